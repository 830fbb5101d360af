"""After a crash: offer the journaled transcript of the session that did not end cleanly.

The engine's journal has every settled word of a session on disk within a second. At
start-up the window asks ``unfinished_sessions``; if there are any, this dialog lists them
and offers to restore one into the window (it is then marked recovered, so it is offered
only once), to discard it (marked recovered without loading: the file stays on disk), or
to decide later (offered again at the next start).
"""

from __future__ import annotations

import logging
import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from engine import JournalContents, describe_sources, mark_recovered
from engine import recover_journal as recover

log = logging.getLogger(__name__)
PREVIEW_WORDS = 14


def unfinished_sessions(journal_dir: str | os.PathLike[str] | None = None) -> list[JournalContents]:
    """Journals of sessions that crashed and hold words, newest first. Empty ones are marked
    recovered on the way (there is nothing to offer, so they must not be offered again)."""
    found = []
    for contents in recover(journal_dir):
        if contents.transcript.words:
            found.append(contents)
        else:
            try:
                mark_recovered(contents.path)
            except OSError as exc:
                log.warning("cannot mark %s recovered: %s", contents.path, exc)
    return sorted(found, key=lambda c: c.path.name, reverse=True)


def local_started(started: str | None) -> str:
    """A journal's start time (ISO 8601, UTC) as the user reads times: local, in their locale's
    short format (ISO 8601 where the locale has none), with no raw "+00:00" offset."""
    from datetime import datetime

    from app.dates import short_date_time

    if not started:
        return "unknown time"
    try:
        local = datetime.fromisoformat(started).astimezone()  # a naive time is taken as local
    except ValueError:
        return started.replace("T", " ")  # not ISO: show what the journal says rather than nothing
    return short_date_time(local)


def describe(contents: JournalContents) -> str:
    words = contents.transcript.words
    preview = " ".join(w.display for w in words[:PREVIEW_WORDS]) + (
        " …" if len(words) > PREVIEW_WORDS else ""
    )
    started = local_started(contents.started)
    header = contents.header
    source = describe_sources(header.get("source"), header.get("others_source")) or "unknown source"
    return f"{started} — {len(words)} words from {source}\n“{preview}”"


class RecoveryDialog(QDialog):
    restore_requested = Signal(object)  # JournalContents

    def __init__(self, found: list[JournalContents], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Restore captions after a crash")
        self.found = list(found)
        intro = QLabel(
            "livecap did not close properly last time. The captions it had saved can be "
            "restored into the window, to read, edit or export.",
            wordWrap=True,
        )
        self.list = QListWidget()
        self.list.setAccessibleName("Unfinished sessions")
        self.list.setWordWrap(True)
        for contents in self.found:
            item = QListWidgetItem(describe(contents))
            item.setData(Qt.UserRole, contents)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        buttons = QDialogButtonBox()
        self.restore_button = QPushButton("&Restore", default=True, clicked=self.restore)
        self.restore_button.setAccessibleName("Restore the selected session")
        self.discard_button = QPushButton("&Discard", clicked=self.discard)
        self.discard_button.setAccessibleName("Do not offer the selected session again")
        later = QPushButton("&Later", clicked=self.reject)
        later.setAccessibleName("Decide at the next start")
        buttons.addButton(self.restore_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.discard_button, QDialogButtonBox.DestructiveRole)
        buttons.addButton(later, QDialogButtonBox.RejectRole)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.resize(640, 320)

    def _selected(self) -> JournalContents | None:
        item = self.list.currentItem()
        return item.data(Qt.UserRole) if item is not None else None

    def restore(self) -> None:
        contents = self._selected()
        if contents is None:
            return
        self._mark(contents)
        self.restore_requested.emit(contents)
        self.accept()

    def discard(self) -> None:
        contents = self._selected()
        if contents is None:
            return
        self._mark(contents)
        self.list.takeItem(self.list.currentRow())
        if self.list.count() == 0:
            self.accept()

    def _mark(self, contents: JournalContents) -> None:
        try:
            mark_recovered(contents.path)
        except OSError as exc:  # read-only folder: restoring still works, it will be offered again
            log.warning("cannot mark %s recovered: %s", contents.path, exc)


def offer_recovery(journal_dir, parent=None) -> RecoveryDialog | None:
    """Open the dialog (window-modal) when sessions in ``journal_dir`` crashed; None when none did,
    or when the folder cannot be read (logged: start-up goes on)."""
    try:
        found = unfinished_sessions(journal_dir)
    except OSError as exc:
        log.warning("cannot look for unfinished sessions: %s", exc)
        return None
    if not found:
        return None
    dialog = RecoveryDialog(found, parent)
    dialog.open()
    return dialog
