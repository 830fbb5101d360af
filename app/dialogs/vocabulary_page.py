"""The settings dialog's Vocabulary page: the user's names and terms, added, removed and imported.

The page shows the user's own vocabulary file (``engine.user_vocabulary_path``), one row a term:
its spoken forms, and how many times the kept sessions said it (the history index counts it, off
the UI thread, and the column fills in when it is done). Unlike the other pages it has no setting
for OK to save: a change is written to the file at once, atomically, with every other line as it
was, the way ``livecap vocabulary`` writes it, so the file and the page never disagree. A file that
cannot be read or has a bad line is shown in one line, and nothing is written over it. Each
change is told (``changed``): the captions window hands the file to a running session then.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.dialogs.page_base import Controls, SettingsPage, _hint, _row
from app.dialogs.vocabulary_entry import ProposalsDialog, TermDialog, error_label
from app.workers.jobs import Job, JobRunner
from engine import (
    HistoryIndex,
    Vocabulary,
    VocabularyError,
    VocabularyFile,
    propose_terms,
    user_vocabulary_path,
)

__all__ = ["VocabularyPage", "count_heard"]

TERM, SPOKEN, HEARD = range(3)
COUNTING = "…"


def count_heard(terms: list[str], journal_folder: Path | None, index_path: Path | None = None) -> dict:
    """How many times the kept sessions said each term (the history index, brought level with the
    journals first)."""
    with HistoryIndex.open(index_path, journal_folder) as index:
        return index.times_heard(terms)


class VocabularyPage(SettingsPage):
    changed = Signal()  # the file was written (a running session may take it at once)

    def __init__(
        self,
        path: Path | None = None,
        journal_folder: Path | None = None,
        index_path: Path | None = None,
        parent: QWidget | None = None,
    ):
        """``path``: the vocabulary file (None: the user's own); ``journal_folder`` and
        ``index_path``: the history the Heard column counts in (None: the defaults)."""
        super().__init__(parent)
        self.path = Path(path) if path is not None else user_vocabulary_path()
        self.journal_folder, self.index_path = journal_folder, index_path
        self.vocabulary = Vocabulary()
        self.jobs = JobRunner(self)
        self.counting: Job | None = None
        self.table = QTableWidget(0, 3)
        self.table.setAccessibleName("Your vocabulary: term, spoken forms, times heard")
        self.table.setHorizontalHeaderLabels(["Term", "Spoken forms", "Heard"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(TERM, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SPOKEN, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(HEARD, QHeaderView.ResizeMode.ResizeToContents)
        self.add_button = QPushButton("&Add…", clicked=lambda: self.add_term())
        self.remove_button = QPushButton("Re&move", clicked=self.remove_selected)
        self.import_button = QPushButton("&Import from a text…", clicked=lambda: self.import_file())
        self.import_button.setToolTip(
            "Propose the names and unknown words of an agenda or a list of attendees"
        )
        self.error = error_label(self, "Problem with the vocabulary")
        layout = QVBoxLayout(self)
        layout.addWidget(
            _hint(
                "Names and terms captions write your way: live, in files, in the journal, the "
                "history and every export. Changes are saved at once to "
                f"{self.path} (livecap vocabulary list shows it too)."
            )
        )
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        buttons = _row(self.add_button, self.remove_button, self.import_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.reload()

    def controls(self) -> Controls:
        return {}  # written to the vocabulary file as it changes, not on OK

    # -- the table --------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the file again and show it; count the terms in the history."""
        try:
            self.vocabulary = VocabularyFile.open(self.path).vocabulary
            self._show_error("")
            usable = True
        except VocabularyError as exc:
            self.vocabulary = Vocabulary()
            self._show_error(f"{exc}. Fix that line in the file; nothing is written over it meanwhile.")
            usable = False
        self.add_button.setEnabled(usable)
        self.import_button.setEnabled(usable)
        self.table.setRowCount(0)
        for entry in self.vocabulary:
            row = self.table.rowCount()
            self.table.insertRow(row)
            self.table.setItem(row, TERM, QTableWidgetItem(entry.term))
            self.table.setItem(row, SPOKEN, QTableWidgetItem(", ".join(entry.spoken)))
            heard = QTableWidgetItem(COUNTING)
            heard.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, HEARD, heard)
            if entry.note:
                self.table.item(row, TERM).setToolTip(entry.note)
        self._update_buttons()
        self._count()

    def terms(self) -> list[str]:
        return [self.table.item(row, TERM).text() for row in range(self.table.rowCount())]

    def heard(self) -> list[str]:
        """The Heard column as shown ("…" while counting)."""
        return [self.table.item(row, HEARD).text() for row in range(self.table.rowCount())]

    def _count(self) -> None:
        if self.counting is not None:
            self.counting.cancel()  # its answer is for an older list: dropped when it comes
        terms = [entry.term for entry in self.vocabulary]
        if not terms:
            self.counting = None
            return
        folder, index_path = self.journal_folder, self.index_path
        job = self.jobs.run(
            lambda report, cancelled: count_heard(terms, folder, index_path),
            done=lambda counts: self._show_counts(job, counts),
            failed=lambda message: self._count_failed(job, message),
        )
        self.counting = job

    def _current(self, job: Job) -> bool:
        """Whether ``job`` counts the list shown, on a page still there (the dialog may have
        closed while the history was read)."""
        return job is self.counting and shiboken6.isValid(self.table)

    def _show_counts(self, job: Job, counts: dict) -> None:
        if not self._current(job):
            return
        self.counting = None
        for row, term in enumerate(self.terms()):
            self.table.item(row, HEARD).setText(str(counts.get(term, 0)))

    def _count_failed(self, job: Job, message: str) -> None:
        if not self._current(job):
            return
        self.counting = None
        for row in range(self.table.rowCount()):
            item = self.table.item(row, HEARD)
            item.setText("—")
            item.setToolTip(f"The history could not be counted: {message}")

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectionModel().selectedRows()))

    def _show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    # -- changes ---------------------------------------------------------------------------------
    def add_term(self, term: str = "", spoken: str = "") -> TermDialog:
        """Open the dialog that adds a term (returned, for a test to fill)."""
        dialog = TermDialog(term, spoken, self.path, self)
        dialog.saved.connect(lambda _entry: self._written())
        dialog.open()
        return dialog

    def remove_selected(self) -> None:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        if not rows:
            return
        terms = [self.table.item(row, TERM).text() for row in rows]
        try:
            file = VocabularyFile.open(self.path)
            for term in terms:
                file.remove(term)
            file.save()
        except VocabularyError as exc:
            self._show_error(str(exc))
            return
        self._written()

    def _written(self) -> None:
        self.reload()
        self.changed.emit()

    def import_file(self, text_path: str | Path | None = None) -> ProposalsDialog | None:
        """Propose the terms of a text file (asked for when ``text_path`` is None) and open the
        list to tick (returned); None when there is nothing to propose or the file is refused."""
        if text_path is None:
            text_path, _ = QFileDialog.getOpenFileName(
                self, "Import terms from a text", "", "Text (*.txt *.md *.csv);;All files (*)"
            )
            if not text_path:
                return None
        text_path = Path(text_path)
        try:
            text = text_path.read_text(encoding="utf-8-sig")
            vocabulary = VocabularyFile.open(self.path).vocabulary
        except UnicodeDecodeError:
            self._show_error(f"{text_path}: not UTF-8 text; save it as UTF-8 and import it again")
            return None
        except OSError as exc:
            self._show_error(f"cannot read {text_path}: {exc.strerror or exc}")
            return None
        except VocabularyError as exc:
            self._show_error(str(exc))
            return None
        proposed = propose_terms(text, vocabulary)
        if not proposed:
            self._show_error(f"{text_path.name}: no names or unknown words your vocabulary lacks")
            return None
        self._show_error("")
        dialog = ProposalsDialog(proposed, text_path.name, self.path, self)
        dialog.saved.connect(lambda _entries: self._written())
        dialog.open()
        return dialog
