"""``LiveIndexer``: the session in progress, searchable as its words settle.

The journal writer hands it every batch of lines it has just written (``JournalObserver``), on the
engine's thread: the indexer only puts them in a bounded queue, and never waits. When the queue
is full the batch is dropped and the session marked to be read again from its journal, which
already holds every line (the writer writes first, then tells): so nothing is lost, and the
engine never waits for the index.

Its own thread applies the lines as the reader does (``read_journal_words``'s rules: a word line
sets a position, "speakers" relabels, withdrawals and retractions remove) to the last few hundred
words it keeps, and commits every ``commit_interval`` seconds or ``commit_words`` words: the
chunks the changes touched (``engine.history.chunks``: the open sentence, mostly) are written
again, older ones never. A change further back than it keeps (rare: the decoder takes back only
recent words) reads the journal whole instead, as does a session whose rows another writer
replaced (a ``reindex``: the row's ``owner`` is no longer this indexer's).

Nothing it meets stops the captions or the journal: a full disk, a locked or damaged index, no
FTS5. It logs once, writes nothing more, and the session's row keeps its "unknown size", so the
first ``sync`` after the session (the next time the history opens) reads its journal whole.
When the journal closes, the thread commits what it has, records the journal's final size (so
sync has nothing left to do) and stops; ``journal_closed`` waits for it, a bounded time.
"""

from __future__ import annotations

import collections
import logging
import queue
import sqlite3
import threading
import time
import uuid
from pathlib import Path

from engine.history.errors import HistoryError
from engine.history.indexing import index_journal
from engine.history.live_tail import LiveTail, NotOwner
from engine.history.store import connect, default_index_path, delete_session, transaction

__all__ = ["LiveIndexer"]

log = logging.getLogger(__name__)

_STOP = object()


class LiveIndexer:
    """A ``JournalObserver`` that keeps one running session's rows in the history index level
    with its journal. Pass it to ``JournalWriter`` (``observer=``); it stops when the journal closes."""

    def __init__(
        self,
        index_path: Path | None = None,
        commit_interval: float = 1.0,
        commit_words: int = 200,
        queue_batches: int = 4096,
        join_timeout: float = 5.0,
    ):
        self.index_path = Path(index_path) if index_path is not None else default_index_path()
        self.commit_interval = commit_interval
        self.commit_words = commit_words
        self.join_timeout = join_timeout
        self.failed: str | None = None  # why it stopped writing, once it has
        # (seconds, words) of each commit of settled words: what a word costs the indexer's thread.
        self.commit_costs: collections.deque[tuple[float, int]] = collections.deque(maxlen=100_000)
        self._queue: queue.Queue = queue.Queue(maxsize=queue_batches)
        self._reread = threading.Event()  # a batch was dropped: read the journal whole
        self._stopping = threading.Event()
        self._owner = uuid.uuid4().hex
        self._path: Path | None = None
        self._conn: sqlite3.Connection | None = None
        self._tail: LiveTail | None = None
        # Started by the journal's first lines: an indexer whose journal never opened costs nothing.
        self._thread = threading.Thread(target=self._run, name="history-live-index", daemon=True)

    # ---- the writer's side (engine thread): never blocks --------------------------------------
    def journal_written(self, path: Path, records: list[dict]) -> None:
        if self.failed is not None:
            return
        if self._thread.ident is None:
            self._thread.start()  # the writer calls under its own lock: never twice at once
        try:
            self._queue.put_nowait((path, records))
        except queue.Full:
            self._reread.set()

    def journal_closed(self, path: Path) -> None:
        self._stopping.set()
        if self._thread.ident is None:
            return  # never started: nothing was written
        try:
            self._queue.put_nowait(_STOP)
        except queue.Full:
            pass  # the thread sees ``_stopping`` once it has emptied the queue
        self._thread.join(self.join_timeout)
        if self._thread.is_alive():
            log.warning("the history index is still busy with %s; the next sync catches up", path.name)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything handed over so far is committed (for tests and measurements)."""
        if self._thread.ident is None:
            return self.failed is None
        done = threading.Event()
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        return done.wait(timeout) and self.failed is None

    # ---- the indexer's thread ---------------------------------------------------------------
    def _run(self) -> None:
        deadline = None
        while True:
            wait = 1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                item = self._queue.get(timeout=0 if self._stopping.is_set() else wait)
            except queue.Empty:
                item = None
            if item is None or item is _STOP:
                if self._stopping.is_set() and self._queue.empty():
                    self._finish()
                    return
            elif isinstance(item, threading.Event):
                self._commit()
                deadline = None
                item.set()
                continue
            else:
                self._apply(*item)
            tail = self._tail
            if tail is not None and tail.dirty and deadline is None:
                deadline = time.monotonic() + self.commit_interval
            due = deadline is not None and time.monotonic() >= deadline
            if due or self._reread.is_set() or (tail is not None and tail.changed_words >= self.commit_words):
                self._commit()
                deadline = None

    def _apply(self, path: Path, records: list[dict]) -> None:
        if self.failed is not None:
            return
        if self._path is None:
            self._path = Path(path)
        elif Path(path) != self._path:
            log.warning("a live indexer follows one journal; %s is not %s", path, self._path)
            return
        if self._tail is None:
            self._reread.set()  # its first commit reads the journal (the header) and makes its row
            return
        for record in records:
            try:
                if not self._tail.apply(record):
                    self._reread.set()
                    return
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                self._reread.set()  # a line the reader would skip, or one this state cannot place
                return

    def _commit(self) -> None:
        if self.failed is not None or self._path is None:
            return
        try:
            if self._conn is None:
                self._conn = connect(self.index_path, quick_check=False)
            if self._reread.is_set() or self._tail is None:
                if self._stopping.is_set() and not self._path.exists():
                    return  # the writer closed a journal without words and deleted it: _finish drops it
                self._read_whole()
            elif self._tail.dirty:
                started, words = time.perf_counter(), self._tail.changed_words
                try:
                    self._tail.write(self._conn, self._owner)
                except NotOwner:
                    self._read_whole()
                    return
                if words:
                    self.commit_costs.append((time.perf_counter() - started, words))
        except (sqlite3.Error, HistoryError, OSError) as exc:
            self._fail(exc)

    def _read_whole(self) -> None:
        """Index the journal whole (it holds every line handed over, and maybe a few not yet)."""
        self._reread.clear()
        session, sid, numbers, chunks = index_journal(self._conn, self._path, live=True, owner=self._owner)
        self._tail = LiveTail(sid, numbers, session.names, session.words, chunks)

    def _finish(self) -> None:
        """The journal closed: commit the rest, then record its final size (or drop the session,
        when the writer deleted a journal without words)."""
        try:
            if self.failed is not None or self._path is None:
                return
            if not self._path.exists():  # no words: the writer deleted it
                if self._conn is not None:
                    with transaction(self._conn):
                        for (sid,) in self._conn.execute(
                            "SELECT sid FROM sessions WHERE owner = ?", (self._owner,)
                        ).fetchall():
                            delete_session(self._conn, sid)
                return
            self._commit()
            if self.failed is not None or self._conn is None:
                return
            info = self._path.stat()
            with transaction(self._conn):
                self._conn.execute(
                    "UPDATE sessions SET live = 0, owner = NULL, size = ?, mtime_ns = ? WHERE owner = ?",
                    (info.st_size, info.st_mtime_ns, self._owner),
                )
        except (sqlite3.Error, HistoryError, OSError) as exc:
            self._fail(exc)
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _fail(self, exc: Exception) -> None:
        self.failed = str(exc)
        name = self._path.name if self._path is not None else "the session"
        log.warning(
            "the history index stopped following %s (%s); it catches up from the journal next time "
            "the history opens",
            name,
            exc,
        )
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None
