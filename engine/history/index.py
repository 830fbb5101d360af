"""``HistoryIndex``: every kept session, listed and searched in milliseconds.

The journals (``paths.journal_dir()``) are the truth; the index is a SQLite FTS5 file beside
them (``store``) that ``open`` brings level with them: made from all journals when it is missing,
of another version or damaged, then ``sync``ed (new and grown journals read, deleted ones dropped)
every time. What a user changes (a title, a pin) is appended to the journal first and then put
in the index, so a rebuild keeps it; a delete removes the journal and then its rows.

A running session is in the index as its words settle: its ``LiveIndexer`` writes it (the row's
``owner``), and ``sync`` leaves it alone while the session runs. A session running without one
(another livecap, indexing off) is indexed as far as its journal goes at each sync.

One connection, used under a lock, so any thread may call any method; WAL lets it read while a
live indexer (of this process or another) writes. Every failure is a ``HistoryError`` with one
line to show: no sqlite traceback gets out.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from engine.files import paths
from engine.history.errors import HistoryError, HistoryQueryError, IndexDamaged
from engine.history.index_rows import SUMMARY_COLUMNS, search_hits, summaries
from engine.history.indexing import index_journal
from engine.history.query import (
    MATCH_END,
    MATCH_START,
    check_query,
    is_query_error,
    plain_words_query,
)
from engine.history.records import SearchHit, SessionSummary
from engine.history.store import (
    SEQ_BITS,
    SEQ_MASK,
    connect,
    damaged,
    default_index_path,
    delete_session,
    journal_key,
    newest_sid_since,
    remove_index_files,
    transaction,
)
from engine.transcript.journal_reading import append_record, in_use, journals, now_iso, remove_journal

__all__ = ["HistoryIndex", "Progress"]

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]  # (sessions done, sessions to do)
TITLE_CHARS = 200
_PHRASE_WORD = re.compile(r"\w+")  # a term's words as the index's tokenizer splits them


def _sqlite_errors(method):
    """The method's sqlite errors as one line each (the index never lets a traceback out)."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        with self._lock:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                if is_query_error(exc):
                    raise HistoryQueryError(f"cannot search for that: {exc}") from None
                raise HistoryError(
                    f"the history index {self.path} failed ({exc}); livecap history reindex builds it again"
                ) from None

    return guarded


class HistoryIndex:
    """The searchable history of the sessions in one journal folder. Make it with ``open``."""

    def __init__(self, conn: sqlite3.Connection, path: Path, journal_folder: Path):
        self._conn = conn
        self.path = path
        self.journal_folder = journal_folder
        self._lock = threading.RLock()

    @classmethod
    def open(
        cls, path: Path | None = None, journal_folder: Path | None = None, progress: Progress | None = None
    ) -> HistoryIndex:
        """The index at ``path`` (default: ``history.sqlite3`` in livecap's data folder) of the
        journals in ``journal_folder`` (default: the per-user one), brought level with them:
        built whole when missing, of another version or damaged, else synced; ``progress`` is told
        (sessions read, sessions to read) either way."""
        path = Path(path) if path is not None else default_index_path()
        folder = Path(journal_folder) if journal_folder is not None else paths.journal_dir()
        rebuild = not path.exists()
        try:
            conn = connect(path)
        except IndexDamaged as exc:
            log.warning("building the history index again: %s", exc)
            remove_index_files(path)
            conn = connect(path)
            rebuild = True
        index = cls(conn, path, folder)
        try:
            if rebuild:
                index.reindex(progress)
            else:
                index._sync(progress)
        except BaseException:
            index.close()
            raise
        return index

    def __enter__(self) -> HistoryIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- listing --------------------------------------------------------------------------
    @_sqlite_errors
    def sessions(self, limit: int | None = None) -> list[SessionSummary]:
        """Every indexed session, newest first (at most ``limit``)."""
        rows = self._conn.execute(
            f"SELECT {SUMMARY_COLUMNS} FROM sessions ORDER BY sid LIMIT ?",
            (-1 if limit is None else max(0, limit),),
        ).fetchall()
        return summaries(self._conn, rows)

    @_sqlite_errors
    def session(self, session_id: str) -> SessionSummary:
        """One session by its id; HistoryError when the index has none of that id."""
        return summaries(self._conn, [self._row(session_id)])[0]

    # ---- searching ------------------------------------------------------------------------
    @_sqlite_errors
    def search(
        self, query: str, *, since: datetime | None = None, speaker: str | None = None, limit: int = 50
    ) -> list[SearchHit]:
        """Where ``query`` (FTS5 syntax, or plain words) matches: newest sessions first, then by
        position; at most ``limit`` hits, one a chunk (about a sentence). ``since``: sessions that
        started then or later (a naive time is local); ``speaker``: words of the speaker shown by
        that name (any case)."""
        text = check_query(query)
        if limit <= 0:
            return []
        try:
            rows = self._matches(text, since, speaker, limit)
        except sqlite3.OperationalError as exc:
            if not is_query_error(exc):
                raise
            rows = self._matches(plain_words_query(text), since, speaker, limit)
        return search_hits(self._conn, rows)

    @_sqlite_errors
    def times_heard(self, phrases: list[str]) -> dict[str, int]:
        """How many times each of ``phrases`` (a vocabulary's terms) occurs in the kept sessions,
        any case and accents aside: FTS5 finds the chunks that hold it, and ``highlight()`` marks
        each occurrence in them. A phrase with nothing to search for counts 0."""
        counts: dict[str, int] = {}
        for phrase in phrases:
            words = _PHRASE_WORD.findall(phrase)
            if not words:
                counts[phrase] = 0
                continue
            rows = self._conn.execute(
                f"SELECT highlight(chunk_text, 0, '{MATCH_START}', '{MATCH_END}') FROM chunk_text"
                " WHERE chunk_text MATCH ?",
                ('"' + " ".join(words) + '"',),
            ).fetchall()
            counts[phrase] = sum(text.count(MATCH_START) for (text,) in rows)
        return counts

    def _matches(self, fts_query: str, since: datetime | None, speaker: str | None, limit: int) -> list:
        sql = (
            "SELECT chunk_text.rowid, c.speaker, c.words,"
            f" highlight(chunk_text, 0, '{MATCH_START}', '{MATCH_END}')"
            " FROM chunk_text JOIN chunks c ON c.rowid = chunk_text.rowid WHERE chunk_text MATCH ?"
        )
        values: list = [fts_query]
        if since is not None:
            sql += " AND chunk_text.rowid <= ?"
            values.append(newest_sid_since(since.astimezone().timestamp()) << SEQ_BITS | SEQ_MASK)
        if speaker is not None:
            sql += (
                f" AND (chunk_text.rowid >> {SEQ_BITS}, c.speaker) IN"
                " (SELECT sid, number FROM speakers WHERE name = ? COLLATE NOCASE)"
            )
            values.append(speaker.strip())
        sql += " ORDER BY chunk_text.rowid LIMIT ?"
        values.append(limit)
        return self._conn.execute(sql, values).fetchall()

    # ---- changing -------------------------------------------------------------------------
    @_sqlite_errors
    def rename(self, session_id: str, title: str) -> None:
        """Give the session a title ("" takes it away); kept in its journal, so a rebuild keeps it."""
        title = " ".join(title.split())
        if len(title) > TITLE_CHARS:
            raise HistoryError(f"a title is at most {TITLE_CHARS} characters; this one has {len(title)}")
        self._change(session_id, "rename", {"t": "title", "title": title, "at": now_iso()}, "title", title)

    @_sqlite_errors
    def pin(self, session_id: str, pinned: bool) -> None:
        """Pin the session (retention never deletes it) or unpin it; kept in its journal."""
        record = {"t": "pinned", "pinned": bool(pinned), "at": now_iso()}
        self._change(session_id, "pin", record, "pinned", int(bool(pinned)))

    @_sqlite_errors
    def delete(self, session_id: str) -> None:
        """Delete the session: its journal (and lock sidecar), then its rows."""
        row = self._row(session_id)
        path = Path(row[2])
        self._refuse_live(path, session_id, "delete")
        try:
            remove_journal(path)
        except OSError as exc:
            raise HistoryError(f"cannot delete {path}: {exc.strerror or exc}") from None
        with transaction(self._conn):
            delete_session(self._conn, row[0])

    def _change(self, session_id: str, verb: str, record: dict, column: str, value) -> None:
        """Append ``record`` to the session's journal, then set ``column`` to ``value``. The journal's
        new size is recorded only where the index had read it whole: else the next sync reads it."""
        sid, _, path_text, *_ = self._row(session_id)
        path = Path(path_text)
        self._refuse_live(path, session_id, verb)
        try:
            before = path.stat()
            append_record(path, record)
            after = path.stat()
        except FileNotFoundError:
            with transaction(self._conn):
                delete_session(self._conn, sid)
            raise HistoryError(f"{session_id} is no longer there: its journal {path} was deleted") from None
        except OSError as exc:
            why = exc.strerror or exc
            raise HistoryError(f"cannot {verb} {session_id}: cannot write {path} ({why})") from None
        with transaction(self._conn):
            self._conn.execute(
                f"UPDATE sessions SET {column} = ?,"
                " size = CASE WHEN size = ? AND mtime_ns = ? THEN ? ELSE size END,"
                " mtime_ns = CASE WHEN size = ? AND mtime_ns = ? THEN ? ELSE mtime_ns END WHERE sid = ?",
                (value, before.st_size, before.st_mtime_ns, after.st_size)
                + (before.st_size, before.st_mtime_ns, after.st_mtime_ns, sid),
            )

    @staticmethod
    def _refuse_live(path: Path, session_id: str, verb: str) -> None:
        # Its writer appends at its own offset: a line added behind its back would be overwritten.
        if in_use(path):
            raise HistoryError(f"{session_id} is still being recorded; {verb} it once the session has ended")

    # ---- keeping level with the journals --------------------------------------------------
    @_sqlite_errors
    def reindex(self, progress: Progress | None = None) -> int:
        """Build the index again from every journal; returns the words indexed. A file found
        damaged on the way is made afresh."""
        try:
            self._empty()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise
            log.warning("building the history index again: %s", exc)
            self._conn.close()
            remove_index_files(self.path)
            self._conn = connect(self.path)
        words = self._index(journals(self.journal_folder), progress)
        # One segment instead of one a journal: every later search reads one list per word.
        with transaction(self._conn):
            self._conn.execute("INSERT INTO chunk_text(chunk_text) VALUES ('optimize')")
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return words

    def _empty(self) -> None:
        with transaction(self._conn):
            # Emptied whole, not chunk by chunk: the delete trigger would tokenize every old text.
            self._conn.execute("DELETE FROM speakers")
            self._conn.execute("DELETE FROM sessions")
            self._conn.execute("INSERT INTO chunk_text(chunk_text) VALUES ('delete-all')")
            self._conn.execute("DROP TRIGGER chunks_removed")
            self._conn.execute("DELETE FROM chunks")
            self._conn.execute(
                "CREATE TRIGGER chunks_removed AFTER DELETE ON chunks BEGIN INSERT INTO chunk_text"
                "(chunk_text, rowid, text) VALUES ('delete', old.rowid, old.text); END"
            )

    def sync(self) -> None:
        """Index new and grown journals, drop the rows of journals that are gone."""
        self._sync(None)

    @_sqlite_errors
    def _sync(self, progress: Progress | None) -> None:
        listed = {journal_key(p): p for p in journals(self.journal_folder)}
        rows = self._conn.execute("SELECT sid, id, path, size, mtime_ns, owner FROM sessions").fetchall()
        gone = [sid for sid, _, key, *_ in rows if key not in listed]
        if gone:
            with transaction(self._conn):
                for sid in gone:
                    delete_session(self._conn, sid)
        known = {key: (size, mtime_ns, owner) for _, _, key, size, mtime_ns, owner in rows}
        todo = []
        for key, path in listed.items():
            if key in known:
                size, mtime_ns, owner = known[key]
                try:
                    info = path.stat()
                except OSError:
                    continue
                if (size, mtime_ns) == (info.st_size, info.st_mtime_ns):
                    continue
                if owner is not None and in_use(path):
                    continue  # its session's live indexer keeps it level
            todo.append(path)
        self._index(todo, progress)

    def _index(self, todo: list[Path], progress: Progress | None) -> int:
        words = 0
        for done, path in enumerate(todo, start=1):
            try:
                session, *_ = index_journal(self._conn, path, live=in_use(path))
                words += len(session.words)
            except OSError as exc:  # deleted or unreadable meanwhile: the next sync looks again
                log.warning("cannot index the journal %s: %s", path, exc.strerror or exc)
            if progress is not None:
                progress(done, len(todo))
        return words

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # ---- rows -----------------------------------------------------------------------------
    def _row(self, session_id: str) -> tuple:
        query = f"SELECT {SUMMARY_COLUMNS} FROM sessions WHERE id = ?"
        row = self._conn.execute(query, (session_id,)).fetchone()
        if row is None:
            raise HistoryError(f"no session {session_id!r} in the history; livecap history list shows them")
        return row
