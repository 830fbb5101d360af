"""One term for the user's vocabulary: the small dialog that adds it (from Settings → Vocabulary,
or from a caption word's "Add to vocabulary…"), and the list of a text's proposals to tick.

A term is checked by the engine's own parser (``engine.parse_vocabulary_entry``), so a bad one is
refused with the engine's one line, shown in the dialog, and nothing is written. It is saved
through ``engine.VocabularyFile``: the file is rewritten atomically with every other line, comment
and note as it was, and a file that is itself bad is never written over.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.dialogs.page_base import _hint
from app.theme import is_dark
from engine import VocabularyError, VocabularyFile, parse_vocabulary_entry

__all__ = ["ProposalsDialog", "TermDialog", "add_entries", "error_label"]

BUTTONS = QDialogButtonBox.StandardButton


def error_label(parent: QWidget, name: str) -> QLabel:
    """A hidden line in the error colour, for the engine's one-line refusals."""
    label = QLabel(wordWrap=True)
    label.setAccessibleName(name)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(f"color: {'#ff8a80' if is_dark(parent.palette()) else '#b3261e'};")
    label.hide()
    return label


def add_entries(entries, path: Path | None = None) -> None:
    """Append ``entries`` to the vocabulary file at ``path`` (None: the user's own) and write it
    once; ``VocabularyError`` in one line (a bad file, a term already there) with nothing written."""
    file = VocabularyFile.open(path)
    for entry in entries:
        file.add(entry)
    file.save()


class TermDialog(QDialog):
    """A term, written as the user wants it, and the ways it is said (comma-separated)."""

    saved = Signal(object)  # the entry written (an ``engine.VocabularyEntry``)

    def __init__(self, term: str = "", spoken: str = "", path: Path | None = None, parent=None):
        """``term`` and ``spoken`` pre-fill the fields (a caption's words: what was recognized is
        a spoken form, and the term starts as the same text, selected, for the user to correct);
        ``path``: the vocabulary file (None: the user's own)."""
        super().__init__(parent)
        self.path = path
        self.setWindowTitle("Add to vocabulary")
        self.setAccessibleName("Add a term to your vocabulary")
        self.term = QLineEdit(term, placeholderText="PostgreSQL")
        self.term.setAccessibleName("Term, written as captions should write it")
        self.spoken = QLineEdit(spoken, placeholderText="post gres Q L, postgres")
        self.spoken.setAccessibleName("How it is said, or how it was recognized; commas between")
        self.error = error_label(self, "Why the term cannot be added")
        buttons = QDialogButtonBox(BUTTONS.Save | BUTTONS.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Term:", self.term)
        form.addRow("&Spoken as:", self.spoken)
        form.addRow(
            "",
            _hint(
                "Captions write the term wherever they hear it, or one of its spoken forms, from "
                "now on; words already settled stay as they are."
            ),
        )
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.term.selectAll()
        self.term.setFocus()

    def line(self) -> str:
        """The vocabulary line the fields make ("term: spoken, spoken")."""
        term, spoken = self.term.text().strip(), self.spoken.text().strip()
        return f"{term}: {spoken}" if spoken else term

    def save(self) -> bool:
        """Write the term to the file and close; False (the engine's reason shown) when refused."""
        try:
            entry = parse_vocabulary_entry(self.line())
            if entry is None:
                raise VocabularyError("give a term, as in 'PostgreSQL', and how it is said")
            add_entries([entry], self.path)
        except VocabularyError as exc:
            self.error.setText(str(exc))
            self.error.show()
            self.term.setFocus()
            return False
        self.error.hide()
        self.saved.emit(entry)
        self.accept()
        return True


class ProposalsDialog(QDialog):
    """The terms a text proposes (``engine.propose_terms``), each ticked; the ticked ones are added
    on OK."""

    saved = Signal(list)  # the entries written

    def __init__(self, proposed: list, source: str, path: Path | None = None, parent=None):
        super().__init__(parent)
        self.path, self.proposed = path, proposed
        self.setWindowTitle("Import terms")
        self.setAccessibleName("Terms proposed from a text")
        self.list = QListWidget()
        self.list.setAccessibleName("Proposed terms; untick the ones you do not want")
        for entry in proposed:
            item = QListWidgetItem(entry.term)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        self.error = error_label(self, "Why the terms cannot be added")
        buttons = QDialogButtonBox(BUTTONS.Ok | BUTTONS.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        count = len(proposed)
        layout.addWidget(
            QLabel(f"{source} names {count} term{'' if count == 1 else 's'} your vocabulary lacks. Add:")
        )
        layout.addWidget(self.list)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def ticked(self) -> list:
        return [
            entry
            for row, entry in enumerate(self.proposed)
            if self.list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def save(self) -> bool:
        entries = self.ticked()
        try:
            if entries:
                add_entries(entries, self.path)
        except VocabularyError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return False
        self.saved.emit(entries)
        self.accept()
        return True
