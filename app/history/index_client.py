"""Every call to the history index, off the UI thread, its answers as signals.

Opening the index may rebuild it from the journals (seconds for a few hundred sessions), and even a
search is disk work, so none runs on the UI thread. All of them run on one thread of their own
(a serial ``JobRunner`` whose thread never expires): an SQLite connection belongs to the thread
that opened it, and one thread also keeps the calls in the order they were made, so a rename is
never overtaken by the list it changes.

Searches are asked as the user types; only the newest query's answer is ever shown. Each search
takes a number; one that is no longer the newest when its turn comes is dropped before it runs,
and an answer that arrives after a newer query was asked is dropped when it arrives.

The functions handed to the pool hold only ``_IndexHolder`` (a plain object), never this QObject
(``app.workers.jobs``' lifetime rule).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.workers.jobs import JobCancelled, JobRunner, cancellable
from engine import HistoryIndex, HistoryQueryError

log = logging.getLogger(__name__)

CLOSED, OPENING, OPEN, FAILED = "closed", "opening", "open", "failed"
RESULTS_LIMIT = 50


class _IndexHolder:
    """The open index and the newest query's number: all the index thread sees of the client."""

    def __init__(self, path: Path | None, journal_folder: Path | None):
        self.path, self.journal_folder = path, journal_folder
        self.index: HistoryIndex | None = None  # touched only on the index thread
        self.newest_query = 0  # written on the UI thread, read on the index thread


class HistoryClient(QObject):
    progress = Signal(object, object)  # done, total: the index is being built from the journals
    opened = Signal(list)  # the sessions, newest first: the index is ready
    open_failed = Signal(str)  # one line: why the index cannot be used, and what to do
    sessions_changed = Signal(list)  # the sessions, newest first, after a change or a refresh
    results = Signal(str, list)  # the newest query and its hits
    query_failed = Signal(str, str)  # the newest query and what is wrong with it
    changed = Signal(str, str)  # what was done ("renamed", "pinned", "unpinned", "deleted"), session id
    failed = Signal(str)  # a change that could not be made, and why

    def __init__(self, index_path: Path | None = None, journal_folder: Path | None = None, parent=None):
        """``index_path``: the index's file, ``journal_folder``: the journals it indexes (None:
        the engine's defaults, the per-user ones)."""
        super().__init__(parent)
        self.runner = JobRunner(self, serial=True)
        self.runner.pool.setExpiryTimeout(-1)  # one thread for the index's whole life (see above)
        self._holder = _IndexHolder(index_path, journal_folder)
        self.state = CLOSED
        self.sessions: list = []  # as last listed, newest first

    # -- opening ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the index (building it where the journals changed), then list the sessions. An
        index already open only picks up the journals written since (``sync``)."""
        if self.state == OPENING:
            return
        self.state = OPENING
        holder = self._holder

        def work(report, cancelled):
            if holder.index is None:
                progress = cancellable(report, cancelled)
                holder.index = HistoryIndex.open(holder.path, holder.journal_folder, progress=progress)
            else:
                holder.index.sync()
            return holder.index.sessions()

        job = self.runner.run(work, done=self._opened, failed=self._open_failed)
        job.progress.connect(self.progress)

    def _opened(self, sessions: list) -> None:
        if self.state != OPENING:
            return  # closed while it opened: the close that followed it has closed the index
        self.state = OPEN
        self.sessions = sessions
        self.opened.emit(sessions)

    def _open_failed(self, message: str) -> None:
        if self.state != OPENING:
            return
        self.state = FAILED
        self.open_failed.emit(message)

    def refresh(self) -> None:
        """List the sessions again, with the journals written since the last look."""
        if self.state == OPEN:
            self._run(lambda index: index.sync(), "", "")
        elif self.state in (CLOSED, FAILED):
            self.open()

    # -- searching --------------------------------------------------------------------------------
    def search(self, query: str, since=None, speaker: str | None = None, limit: int = RESULTS_LIMIT) -> int:
        """Search; its answer comes as ``results`` or ``query_failed`` unless a newer search was
        asked meanwhile. Returns the search's number."""
        holder = self._holder
        holder.newest_query += 1
        number = holder.newest_query
        if self.state != OPEN:
            return number

        def work(report, cancelled):
            if holder.newest_query != number:
                raise JobCancelled()  # a newer query is waiting behind this one
            try:
                return (
                    number,
                    query,
                    holder.index.search(query, since=since, speaker=speaker, limit=limit),
                    "",
                )
            except HistoryQueryError as exc:
                return number, query, [], str(exc) or "This search cannot be understood."

        self.runner.run(
            work, done=self._answered, failed=lambda message: self._search_failed(number, query, message)
        )
        return number

    def forget_queries(self) -> None:
        """No search answer is wanted any more (the box was emptied)."""
        self._holder.newest_query += 1

    def _answered(self, answer) -> None:
        number, query, hits, problem = answer
        if number != self._holder.newest_query:
            return  # a newer query was asked while this one ran
        if problem:
            self.query_failed.emit(query, problem)
        else:
            self.results.emit(query, hits)

    def _search_failed(self, number: int, query: str, message: str) -> None:
        if number == self._holder.newest_query:
            self.query_failed.emit(query, message)

    # -- changing ---------------------------------------------------------------------------------
    def rename(self, session_id: str, title: str) -> None:
        self._run(lambda index: index.rename(session_id, title), "renamed", session_id)

    def pin(self, session_id: str, pinned: bool) -> None:
        self._run(lambda index: index.pin(session_id, pinned), "pinned" if pinned else "unpinned", session_id)

    def delete(self, session_id: str) -> None:
        self._run(lambda index: index.delete(session_id), "deleted", session_id)

    def _run(self, change, what: str, session_id: str) -> None:
        """``change(index)`` on the index thread, then the sessions listed again."""
        if self.state != OPEN:
            self.failed.emit("The history is not open yet.")
            return
        holder = self._holder

        def work(report, cancelled):
            change(holder.index)
            return holder.index.sessions()

        def done(sessions):
            self.sessions = sessions
            if what:
                self.changed.emit(what, session_id)
            self.sessions_changed.emit(sessions)

        self.runner.run(work, done=done, failed=self.failed.emit)

    # -- closing ----------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop a rebuild, then close the index on its own thread. Nothing is reported back: this
        runs as the app quits, when there may be no UI thread left to report to."""
        self.runner.cancel_all()
        self.forget_queries()
        holder = self._holder

        def close_index():
            if holder.index is not None:
                holder.index.close()
                holder.index = None

        self.runner.pool.start(close_index)
        self.state = CLOSED

    def wait(self, msecs: int = -1) -> bool:
        """Block until the index thread is idle (tests, quitting)."""
        return self.runner.wait(msecs)
