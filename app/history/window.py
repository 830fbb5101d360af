"""The History window: every session, newest first, and a search over all their words.

Two pages in one window. The list page has the search box on top: empty, the list shows every
session (date, duration, who, a ★ for pinned ones, the title or first line); with a query it
shows the matching moments, each a snippet with the matched words highlighted, its session and
its time. Opening a session or a result shows the session page (``session_page``), scrolled to
the moment; Esc comes back to the list, and from the list closes the window.

Results come as the user types. The first key after a pause searches at once; keys that follow
within ``DEBOUNCE_MS`` wait until typing stops, so a fast typist's every letter is not a search.
Searches run on the index's own thread (``index_client``); only the newest query's answer is
shown, and a query the index cannot understand shows its one line under the box.

Opening the window opens the index, which may first build itself from the journals: the list
page shows how far it is. A problem with the index is one line with what to do, and a button to
try again.

Keyboard: Ctrl+F the search box; Down/Up from the box into the list; arrows in the list; Enter
opens; Esc goes back, then closes. Every control has an accessible name.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app import settings as keys
from app.history.index_client import FAILED, OPEN, OPENING, HistoryClient
from app.history.lists import ResultList, SessionList
from app.history.session_page import SessionPage
from app.theme import is_dark

DEBOUNCE_MS = 150
PERIODS = (("Any time", None), ("Past day", 1), ("Past week", 7), ("Past month", 31), ("Past year", 366))


class _SearchKeys(QObject):
    """Up and Down in the search box move in the list below it, so the keyboard never has to
    leave the box to choose a result; Enter opens the chosen one."""

    def __init__(self, window: HistoryWindow):
        super().__init__(window)
        self.window = window

    def eventFilter(self, watched, event) -> bool:
        if event.type() != QEvent.Type.KeyPress:
            return False
        key, shown = event.key(), self.window.shown_list()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp) and shown.count():
            shown.setFocus(Qt.FocusReason.OtherFocusReason)
            if shown.currentRow() < 0 or key == Qt.Key.Key_Down and shown.currentRow() == 0:
                shown.setCurrentRow(0)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.window.open_current()
            return True
        return False


class HistoryWindow(QMainWindow):
    results_shown = Signal(str)  # a query's results (or its problem) are on screen
    sessions_shown = Signal()  # the list of sessions is on screen (after opening, or a change)

    def __init__(
        self, settings, journal_folder: Path | None = None, index_path: Path | None = None, parent=None
    ):
        """``journal_folder``: where the sessions are (None: the per-user folder); ``index_path``:
        the index's file (None: the engine's default, beside the journals' data)."""
        super().__init__(parent)
        self.settings = settings
        self.journal_folder = journal_folder
        self.setWindowTitle("livecap — history")
        self.setAccessibleName("livecap history window")
        self.masked = settings.get(keys.PROFANITY_MASK)
        self.client = HistoryClient(index_path, journal_folder, self)
        self._last_search = float("-inf")  # when the last search was asked (time.monotonic)
        self.query = ""  # the query whose answer the list shows, or waits for
        self._build()
        self._connect()
        geometry = settings.get_raw("history/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(860, 640)

    # -- layout -----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.search_box = QLineEdit(
            placeholderText="Find words in every session (Ctrl+F)", clearButtonEnabled=True
        )
        self.search_box.setAccessibleName("Search every session")
        self.search_box.setAccessibleDescription(
            'Words or a "quoted phrase"; results appear as you type. Down moves into the results.'
        )
        search_label = QLabel("&Search:")
        search_label.setBuddy(self.search_box)
        self.period = QComboBox()
        self.period.setAccessibleName("Search sessions from")
        for text, days in PERIODS:
            self.period.addItem(text, days)
        self.query_problem = QLabel(wordWrap=True)
        self.query_problem.setAccessibleName("Problem with the search")
        self.query_problem.setStyleSheet(f"color: {'#ff8a80' if is_dark(self.palette()) else '#b3261e'};")
        self.query_problem.hide()
        self.status_line = QLabel(wordWrap=True)
        self.status_line.setAccessibleName("History status")
        self.progress = QProgressBar(textVisible=True, maximumWidth=220)
        self.progress.setAccessibleName("Indexing progress")
        self.progress.hide()
        self.retry_button = QPushButton("&Try again", clicked=self.open_index)
        self.retry_button.setAccessibleName("Open the history index again")
        self.retry_button.hide()
        self.sessions_list = SessionList()
        self.results_list = ResultList()
        self.lists = QStackedWidget()
        self.lists.addWidget(self.sessions_list)
        self.lists.addWidget(self.results_list)
        top = QHBoxLayout()
        top.addWidget(search_label)
        top.addWidget(self.search_box, 1)
        top.addWidget(self.period)
        status = QHBoxLayout()
        status.addWidget(self.status_line, 1)
        status.addWidget(self.progress)
        status.addWidget(self.retry_button)
        browse = QVBoxLayout()
        browse.addLayout(top)
        browse.addWidget(self.query_problem)
        browse.addLayout(status)
        browse.addWidget(self.lists, 1)
        self.browse_page = QWidget()
        self.browse_page.setLayout(browse)
        font_size = max(11, self.settings.get(keys.WINDOW_FONT_SIZE) - 4)
        self.session_page = SessionPage(self.client, self.masked, font_size)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.browse_page)
        self.pages.addWidget(self.session_page)
        self.setCentralWidget(self.pages)
        self.debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS, timeout=self._search_now)
        self._search_keys = _SearchKeys(self)
        self.search_box.installEventFilter(self._search_keys)

    def _connect(self) -> None:
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, activated=self.focus_search)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.go_back)
        self.search_box.textChanged.connect(self._typed)
        self.period.currentIndexChanged.connect(lambda _index: self._search_now())
        self.sessions_list.activated.connect(lambda _index: self.open_current())
        self.results_list.activated.connect(lambda _index: self.open_current())
        self.session_page.back_requested.connect(self.show_list)
        self.session_page.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        c = self.client
        c.progress.connect(self._indexing)
        c.opened.connect(self._opened)
        c.open_failed.connect(self._open_failed)
        c.sessions_changed.connect(self._sessions_changed)
        c.results.connect(self._results)
        c.query_failed.connect(self._query_failed)
        c.changed.connect(self._changed)
        c.failed.connect(lambda message: self.session_page.message.setText(message))

    # -- the index ---------------------------------------------------------------------------------
    def open_index(self) -> None:
        """Open the index (the window does when it is shown); progress shows while it builds."""
        self.retry_button.hide()
        self.status_line.setText("Opening the history…")
        self.progress.setRange(0, 0)  # busy until the first report says how much there is
        self.progress.show()
        self.search_box.setEnabled(True)
        self.client.open()

    def _indexing(self, done, total) -> None:
        if not total:
            return
        self.progress.setRange(0, int(total))
        self.progress.setValue(int(min(done, total)))
        self.progress.setFormat(f"{done} of {total}")
        self.status_line.setText(f"Indexing the sessions' words: {done} of {total} sessions…")

    def _opened(self, sessions: list) -> None:
        self.progress.hide()
        self._sessions_changed(sessions)
        if self.search_box.text().strip():
            self._search_now()  # typed while the index was being built

    def _open_failed(self, message: str) -> None:
        self.progress.hide()
        self.status_line.setText(message)
        self.retry_button.show()

    def _sessions_changed(self, sessions: list) -> None:
        self.sessions_list.show_sessions(sessions, self.masked)
        count = len(sessions)
        self.status_line.setText(
            f"{count} session{'s' if count != 1 else ''}, newest first." if count else "No sessions yet."
        )
        shown = self.session_page.summary
        if shown is not None:
            fresh = next((s for s in sessions if s.id == shown.id), None)
            if fresh is not None:
                self.session_page.update_summary(fresh)
        if self.query:
            self._search_now()  # a rename or a delete changes what matches
        self.sessions_shown.emit()

    def _changed(self, what: str, session_id: str) -> None:
        self.statusBar().showMessage(f"Session {what}.", 5000)
        if (
            what == "deleted"
            and self.session_page.summary is not None
            and self.session_page.summary.id == session_id
        ):
            self.session_page.summary = None
            self.show_list()

    # -- searching ---------------------------------------------------------------------------------
    def _typed(self, text: str) -> None:
        if not text.strip():
            self.debounce.stop()
            self.client.forget_queries()
            self.query = ""
            self.query_problem.hide()
            self.lists.setCurrentWidget(self.sessions_list)
            return
        if time.monotonic() - self._last_search >= DEBOUNCE_MS / 1000 and not self.debounce.isActive():
            self._search_now()
        else:
            self.debounce.start()  # typing goes on: search when it pauses

    def _search_now(self) -> None:
        self.debounce.stop()
        query = self.search_box.text().strip()
        if not query:
            return
        self.query = query
        self._last_search = time.monotonic()
        days = self.period.currentData()
        since = datetime.now().astimezone() - timedelta(days=days) if days else None
        if self.client.state == OPEN:
            self.client.search(query, since=since)
        elif self.client.state == FAILED:
            self._query_failed(query, "The history index is not open: see the line above.")

    def _results(self, query: str, hits: list) -> None:
        if query != self.query:
            return
        self.query_problem.hide()
        by_id = {s.id: s for s in self.client.sessions}
        self.results_list.show_hits(hits, by_id, self.masked)
        self.lists.setCurrentWidget(self.results_list)
        count = len(hits)
        self.status_line.setText(
            f"{count} moment{'s' if count != 1 else ''} found{' (the best ones)' if count >= 50 else ''}."
            if count
            else f"No session has “{query}”."
        )
        self.results_shown.emit(query)

    def _query_failed(self, query: str, message: str) -> None:
        if query != self.query:
            return
        self.query_problem.setText(" ".join(message.split()))  # one line, whatever it holds
        self.query_problem.show()
        self.results_list.clear()
        self.lists.setCurrentWidget(self.results_list)
        self.status_line.setText("")
        self.results_shown.emit(query)

    # -- moving about ------------------------------------------------------------------------------
    def shown_list(self):
        return self.lists.currentWidget()

    def open_current(self) -> None:
        """Open the chosen session, or the chosen result's session at its moment."""
        shown = self.shown_list()
        data = shown.current_data()
        if data is None and shown.count():
            data = shown.row_data(0)
        if data is None:
            return
        if shown is self.results_list:
            summary = next((s for s in self.client.sessions if s.id == data.session_id), None)
            if summary is None:
                self.statusBar().showMessage("That session is gone (deleted or expired).", 8000)
                return
            self.session_page.show_session(summary, data)
        else:
            self.session_page.show_session(data)
        self.pages.setCurrentWidget(self.session_page)

    def show_list(self) -> None:
        self.pages.setCurrentWidget(self.browse_page)
        shown = self.shown_list()
        (shown if shown.count() else self.search_box).setFocus(Qt.FocusReason.OtherFocusReason)

    def focus_search(self) -> None:
        self.pages.setCurrentWidget(self.browse_page)
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def go_back(self) -> None:
        """Esc: from a session back to the list; from the list, close the window."""
        if self.pages.currentWidget() is self.session_page:
            self.show_list()
        else:
            self.close()

    def present(self) -> None:
        """Show the window in front (from the main window or the tray), the search box ready."""
        self.showNormal()
        self.raise_()
        self.activateWindow()
        self.focus_search()

    # -- Qt ----------------------------------------------------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.client.state == OPEN:
            self.client.refresh()  # sessions recorded since it was last shown
        elif self.client.state != OPENING:
            self.open_index()

    def closeEvent(self, event) -> None:
        self.settings.set_raw("history/geometry", self.saveGeometry())
        event.accept()

    def shutdown(self, wait_ms: int = 0) -> None:
        """Stop a rebuild and close the index on its thread; ``wait_ms``: wait that long for it
        (the app quits: a rebuild stopped mid-journal must not outlive the event loop)."""
        self.client.close()
        if wait_ms:
            self.client.wait(wait_ms)


def show_history(settings, window: HistoryWindow | None, journal_folder: Path | None) -> HistoryWindow:
    """Bring the History window to the front: ``window`` when it indexes ``journal_folder``, else a
    new one for it (the journal folder setting changed since)."""
    if window is not None and window.journal_folder != journal_folder:
        window.close()
        window.shutdown()
        window = None
    if window is None:
        window = HistoryWindow(settings, journal_folder)
    window.present()
    return window
