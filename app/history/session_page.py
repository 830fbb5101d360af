"""The History window's session page: one past session, read-only, and what can be done with it.

Opening a session reads its journal off the UI thread (``engine.read_journal``: the words as they
settled, who spoke, the names the speakers had) and shows it in a ``SessionView``; opened from a
search result, the hit's words are found in it (``session_view.locate``) and scrolled into view.
From here the session can be copied, exported (the captions window's exporters and formats:
``app.exporting``), renamed, pinned or unpinned, and deleted after a confirmation.
Changes to the session go through the window's ``HistoryClient``; questions are asked with
window-modal dialogs that do not stop the event loop.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.action_button import ActionButton
from app.exporting import FILTERS, resolve_format, write
from app.history.rows import SEPARATOR, duration_text, matched_words, session_heading, started_text, who
from app.history.session_view import SessionView, locate
from app.workers.jobs import JobRunner
from engine import read_journal

SHORTCUTS = {
    "back": "Esc",  # bound by the window: Esc also closes it from the list
    "copy": "Ctrl+Shift+C",
    "export": "Ctrl+E",
    "rename": "F2",
    "pin": "Ctrl+D",
    "delete": "Del",
}


def choose_export_path(parent: QWidget, suggested: Path) -> tuple[str, str]:
    """Ask where to export (the captions window's formats); ("", "") when the user cancels."""
    return QFileDialog.getSaveFileName(
        parent, "Export the session", str(suggested), ";;".join(FILTERS.values())
    )


class SessionPage(QWidget):
    back_requested = Signal()
    shown = Signal(str)  # a session's words are on screen (and the hit's, scrolled into view)
    status = Signal(str)  # a line for the window's status bar

    def __init__(self, client, settings_masked: bool = False, font_size: int = 16, parent=None):
        super().__init__(parent)
        self.client = client
        self.masked = settings_masked
        self.jobs = JobRunner(self)
        self.summary = None  # the SessionSummary shown
        self.contents = None  # its journal, once read
        self.hit = None  # the search hit it was opened from, if any
        self._renaming = self._deleting = ""  # the session a dialog's answer is for
        self._reading = 0  # the newest read asked: a slower, older one is dropped
        self.confirm_delete: QMessageBox | None = None
        self.rename_dialog: QInputDialog | None = None
        self.heading = QLabel(textInteractionFlags=Qt.TextInteractionFlag.TextSelectableByMouse)
        self.heading.setAccessibleName("Session")
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setWordWrap(True)
        self.facts = QLabel(wordWrap=True)
        self.facts.setAccessibleName("When, how long, who")
        self.view = SessionView(font_size=font_size)
        self.message = QLabel(wordWrap=True)
        self.message.setAccessibleName("What happened")
        self.actions = {
            "back": self._action("back", "← &Back to the list", self.go_back),
            "copy": self._action("copy", "&Copy all", self.copy_all),
            "export": self._action("export", "&Export…", self.export_dialog),
            "rename": self._action("rename", "&Rename…", self.ask_rename),
            "pin": self._action("pin", "&Pin", self.toggle_pin),
            "delete": self._action("delete", "&Delete…", self.ask_delete),
        }
        buttons = QHBoxLayout()
        for name, action in self.actions.items():
            buttons.addWidget(ActionButton(action))
            if name == "back":
                buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.heading)
        layout.addWidget(self.facts)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.message)
        self._enable(False)

    def _action(self, name: str, text: str, slot) -> QAction:
        action = QAction(text, self)
        if name != "back":
            action.setShortcut(QKeySequence(SHORTCUTS[name]))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
        action.triggered.connect(slot)
        return action

    def _enable(self, loaded: bool) -> None:
        live = self.summary is not None and self.summary.live
        for name in ("copy", "export"):
            self.actions[name].setEnabled(loaded)
        # A session still being recorded is changed only by its writer: the index refuses a title,
        # a pin or a delete until it has ended.
        for name in ("rename", "pin", "delete"):
            self.actions[name].setEnabled(self.summary is not None and not live)

    def go_back(self) -> None:
        self.back_requested.emit()

    # -- showing ----------------------------------------------------------------------------------
    def show_session(self, summary, hit=None) -> None:
        """Read ``summary``'s journal (off the UI thread) and show it; from a search ``hit``,
        scrolled to the hit with its words selected."""
        self.summary, self.hit, self.contents = summary, hit, None
        self._reading += 1
        number = self._reading
        self.update_summary(summary)
        self.message.setText("")
        self.view.clear()
        self.view.setPlaceholderText("Reading the session…")
        self._enable(False)
        path = Path(summary.path)
        terms = matched_words(hit.snippet, hit.spans) if hit is not None else []
        where = (hit.position, hit.time_s) if hit is not None else None

        def work(report, cancelled):
            contents = read_journal(path)
            words = contents.transcript.words
            return contents, locate(words, terms, *where) if where is not None else range(0)

        self.jobs.run(
            work,
            done=lambda answer: self._read(number, *answer),
            failed=lambda m: self._unreadable(number, m),
        )

    def _read(self, number: int, contents, words: range) -> None:
        if number != self._reading:
            return
        self.contents = contents
        self.view.setPlaceholderText("This session has no words.")
        self.view.load(contents.transcript, contents.speaker_names, self.masked)
        self._enable(bool(contents.transcript.words))
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        if words:
            self.view.show_words(words)
        self.shown.emit(self.summary.id)

    def _unreadable(self, number: int, message: str) -> None:
        if number != self._reading:
            return
        self.view.setPlaceholderText("")
        self.message.setText(f"Cannot read this session's journal: {message}")
        self.shown.emit(self.summary.id)

    def update_summary(self, summary) -> None:
        """Show ``summary``'s heading and facts (after a rename or a pin, too)."""
        self.summary = summary
        pinned = "★ " if summary.pinned else ""
        self.heading.setText(pinned + session_heading(summary))
        facts = [started_text(summary.started), duration_text(summary.duration_s), who(summary)]
        facts.append(f"{summary.words} words")
        if summary.recognizer:
            facts.append(summary.recognizer)
        if summary.pinned:
            facts.append("pinned: kept forever")
        if summary.live:
            facts.append("recording now")
        self.facts.setText(SEPARATOR.join(facts))
        self.actions["pin"].setText("Un&pin" if summary.pinned else "&Pin")
        self._enable(self.contents is not None and bool(self.contents.transcript.words))

    # -- what can be done with it -----------------------------------------------------------------
    def copy_all(self) -> None:
        if self.contents is None:
            return
        transcript = self.contents.transcript
        QApplication.clipboard().setText(transcript.text(names=self.contents.speaker_names))
        self._say(f"Copied {len(transcript.words)} words to the clipboard.")

    def suggested_name(self) -> str:
        stem = Path(self.summary.path).stem if self.summary is not None else "session"
        return f"{stem}.txt"

    def export_dialog(self) -> None:
        if self.contents is None:
            return
        path, chosen = choose_export_path(self, Path.home() / self.suggested_name())
        if path:
            self.export_to(path, chosen)

    def export_to(self, path, chosen_filter: str = ""):
        """Write the session in the format its extension names (or the dialog's filter's), with
        the names its speakers had, atomically (the captions window's exporters)."""
        if self.contents is None or not self.contents.transcript.words:
            self._say("Nothing to export: this session has no words.")
            return None
        path, fmt = resolve_format(path, chosen_filter)
        transcript, names, english = (
            self.contents.transcript,
            self.contents.speaker_names,
            self.contents.english,
        )
        # The language spoken (the detected one, for "auto"), and whether the words translate it.
        language, translated = self.contents.language, self.contents.translated

        def work(report, cancelled):
            return write(transcript, fmt, path, english, names, language=language, translated=translated)

        return self.jobs.run(
            work,
            done=lambda written: self._say(f"Exported to {written}"),
            failed=lambda message: self._say(f"Export failed: {message}"),
        )

    def ask_rename(self) -> None:
        if self.summary is None:
            return
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Rename the session")
        dialog.setLabelText("Title (empty: the session's first line):")
        dialog.setTextValue(self.summary.title)
        dialog.setAccessibleName("Rename the session")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.textValueSelected.connect(self._renamed)
        self._renaming = self.summary.id
        self.rename_dialog = dialog
        dialog.open()

    def _renamed(self, title: str) -> None:
        self.client.rename(self._renaming, title.strip())

    def toggle_pin(self) -> None:
        if self.summary is not None:
            self.client.pin(self.summary.id, not self.summary.pinned)

    def ask_delete(self) -> None:
        if self.summary is None or self.summary.live:
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Delete the session?",
            f"Delete the session “{session_heading(self.summary)}” of {started_text(self.summary.started)}? "
            "Its journal is deleted from the disk; this cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.button(QMessageBox.StandardButton.Yes).setText("&Delete")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # Enter must not delete by accident
        box.setAccessibleName("Confirm deleting the session")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(self._delete_answered)
        self._deleting = self.summary.id
        self.confirm_delete = box
        box.open()

    def _delete_answered(self, _result: int) -> None:
        box = self.confirm_delete
        if box is not None and box.clickedButton() is box.button(QMessageBox.StandardButton.Yes):
            self.client.delete(self._deleting)

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.status.emit(text)
