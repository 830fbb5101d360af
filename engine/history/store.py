"""The history index's file: where it lives, how it is opened, and the shape of its tables.

The index is derived data: every row can be made again from the journals, which stay the one
truth. So the file is treated as disposable: one of another schema version, a corrupt one, or
none at all is made afresh (``IndexDamaged`` tells the caller to), never repaired.

Opening it:

- the file is created 0600 before SQLite opens it (it holds every word of every meeting), in a
  folder made 0700 where it has to be made;
- WAL, so a History window reads while a running session's ``LiveIndexer`` writes, in this
  process or another; ``synchronous=NORMAL``, since a commit lost in a power cut is caught up by
  the next ``sync`` from the journals; a ``busy_timeout``, so two writers take turns;
- FTS5 must be there: SQLite declares it among its compile options; without it, one line says so.

The tables:

- ``sessions``: one row a journal, keyed by ``sid``, an integer that orders sessions newest first
  (``session_base``);
- ``speakers``: each session's speakers by number (1, 2... in the order they first spoke; 0 is a
  one-source session's no-speaker), with their display names: a rename changes one row here and
  no text;
- ``chunks``: the settled text, a row per sentence-sized run of one speaker's words
  (``engine.history.chunks``), its rowid ``sid << SEQ_BITS | seq`` so the rowid order is the order
  a search lists hits in (newest session first, then position), and FTS5 yields them in that
  order with no sort;
- ``chunk_text``: the FTS5 index over ``chunks.text`` (external content: the text is stored
  once). Chunks are only ever inserted and deleted, never updated: ``insert_chunks`` indexes new
  ones with one statement (a trigger per row costs several times as much), and a trigger takes a
  deleted one's words out.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from engine.files import paths
from engine.history.errors import HistoryError, IndexDamaged

__all__ = [
    "BUSY_TIMEOUT_S",
    "SCHEMA_VERSION",
    "chunk_range",
    "chunk_rowid",
    "connect",
    "damaged",
    "default_index_path",
    "delete_session",
    "forget_journals",
    "fts5_available",
    "insert_chunks",
    "journal_key",
    "newest_sid_since",
    "remove_index_files",
    "session_base",
    "session_of_rowid",
    "transaction",
]

log = logging.getLogger(__name__)

FILE_NAME = "history.sqlite3"
# A new version makes every index afresh: also where a column's meaning changed (duration_s is the
# audio's length, no longer the time from start to close), since the old rows would mislead.
SCHEMA_VERSION = 3
APPLICATION_ID = 0x4C564849  # "LVHI": the file is livecap's history index, not any SQLite file
BUSY_TIMEOUT_S = 5.0

# Row keys. A session's sid: (newest-first second) * SAME_SECOND + a free slot for sessions that
# started in the same second; a chunk's rowid: sid << SEQ_BITS | its number in the session.
SEQ_BITS = 22
SEQ_MASK = (1 << SEQ_BITS) - 1
SAME_SECOND = 256
_LAST_SECOND = 2**32 - 1  # the start times a key can tell apart (through 2106)

_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26

SCHEMA = """
CREATE TABLE sessions(
    sid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,          -- the journal's size when indexed; -1: index it again
    mtime_ns INTEGER NOT NULL,
    started TEXT NOT NULL,          -- ISO 8601 with its offset
    duration_s REAL NOT NULL,       -- seconds of audio: the end of the last word
    sources TEXT NOT NULL,          -- JSON list
    recognizer TEXT NOT NULL,
    first_line TEXT NOT NULL,
    title TEXT NOT NULL,
    pinned INTEGER NOT NULL,
    words INTEGER NOT NULL,
    live INTEGER NOT NULL,          -- indexed while its session ran
    owner TEXT                      -- the LiveIndexer writing it, NULL when none
);
CREATE INDEX sessions_by_path ON sessions(path);
CREATE TABLE speakers(
    sid INTEGER NOT NULL,
    number INTEGER NOT NULL,
    speaker TEXT NOT NULL,          -- the id words carry ("me", "others:2")
    name TEXT NOT NULL,             -- the name shown for it
    PRIMARY KEY (sid, number)
) WITHOUT ROWID;
CREATE INDEX speakers_by_name ON speakers(name COLLATE NOCASE);
CREATE TABLE chunks(
    rowid INTEGER PRIMARY KEY,
    speaker INTEGER NOT NULL,       -- speakers.number; 0: a one-source session
    text TEXT NOT NULL,             -- the words as shown, one space between words
    words BLOB NOT NULL             -- each word's journal position and time (chunks.pack_words)
);
CREATE VIRTUAL TABLE chunk_text USING fts5(
    text, content='chunks', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE TRIGGER chunks_removed AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_text(chunk_text, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
"""


def default_index_path() -> Path:
    return paths.data_dir() / FILE_NAME


def journal_key(path: Path) -> str:
    """How the index names a journal's file: its absolute path, as text."""
    return os.path.abspath(path)


# ---- keys -------------------------------------------------------------------------------------
def session_base(started_ts: float) -> int:
    """The first sid of a session started at ``started_ts`` (a POSIX time); the sids of its second
    are this and the next ``SAME_SECOND - 1``. Later starts get smaller sids."""
    second = min(max(math.floor(started_ts), 0), _LAST_SECOND)
    return (_LAST_SECOND - second) * SAME_SECOND


def newest_sid_since(since_ts: float) -> int:
    """The largest sid of a session that started at ``since_ts`` or later."""
    second = min(max(math.ceil(since_ts), 0), _LAST_SECOND)
    return (_LAST_SECOND - second) * SAME_SECOND + SAME_SECOND - 1


def chunk_rowid(sid: int, seq: int) -> int:
    if not 0 <= seq <= SEQ_MASK:
        raise HistoryError(f"a session of more than {SEQ_MASK} sentences cannot be indexed")
    return sid << SEQ_BITS | seq


def chunk_range(sid: int) -> tuple[int, int]:
    """The first and last rowid a session's chunks may have."""
    return sid << SEQ_BITS, sid << SEQ_BITS | SEQ_MASK


def session_of_rowid(rowid: int) -> int:
    return rowid >> SEQ_BITS


# ---- opening ----------------------------------------------------------------------------------
def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite has FTS5, as its compile options declare."""
    try:
        return bool(conn.execute("SELECT sqlite_compileoption_used('ENABLE_FTS5')").fetchone()[0])
    except sqlite3.Error:
        return False


def connect(path: Path, quick_check: bool = True, create: bool = True) -> sqlite3.Connection:
    """An open connection to the index at ``path``, its schema in place (made in a new file).

    Raises ``IndexDamaged`` for a file to make afresh (another schema version, corrupt, not an
    index; ``quick_check`` looks through the whole file for damage), ``HistoryError`` for anything
    else (no FTS5, a folder that cannot be written...). ``create=False``: a missing file is
    ``IndexDamaged`` too. The connection may be used from any thread, one at a time (the caller
    locks), and commits only what ``transaction`` commits."""
    _create_private(path, create)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise HistoryError(f"cannot open the history index {path}: {exc}") from None
    try:
        if not fts5_available(conn):
            raise HistoryError(
                f"this Python's SQLite ({sqlite3.sqlite_version}) was built without FTS5 full-text "
                "search, which History needs; run livecap on a Python whose sqlite3 module has FTS5 "
                "(python.org's builds and most Linux distributions' do)"
            )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        _check_schema(conn, quick_check)
    except HistoryError:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        if damaged(exc):
            raise IndexDamaged(f"{path}: {exc}") from None
        raise HistoryError(f"cannot open the history index {path}: {exc}") from None
    return conn


def damaged(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the file itself is bad (corrupt, or no database at all), as opposed to
    busy, locked, full or unreadable: only a bad file is thrown away and rebuilt."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def _create_private(path: Path, create: bool) -> None:
    if path.exists():
        return
    if not create:
        raise IndexDamaged(f"{path} does not exist")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            # 0600 from its first byte: SQLite would create it by the umask, readable by others.
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            os.close(os.open(path, flags, 0o600))
        except FileExistsError:
            pass  # another process made it first: it is as good
    except OSError as exc:
        raise HistoryError(
            f"cannot create the history index {path} ({exc.strerror or exc}); "
            f"check that {path.parent} is a folder you can write"
        ) from None


def _check_schema(conn: sqlite3.Connection, quick_check: bool) -> None:
    def header() -> tuple[int, int]:
        return (
            conn.execute("PRAGMA application_id").fetchone()[0],
            conn.execute("PRAGMA user_version").fetchone()[0],
        )

    if header() == (0, 0):  # a new file (or one that is not ours: looked at under the lock)
        with transaction(conn):
            if header() == (0, 0) and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                # One statement at a time: executescript would commit half a schema.
                for statement in _statements(SCHEMA):
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    application, version = header()
    if application != APPLICATION_ID:
        raise IndexDamaged("not a livecap history index")
    if version != SCHEMA_VERSION:
        raise IndexDamaged(f"schema version {version}, not {SCHEMA_VERSION}")
    if quick_check:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise IndexDamaged(f"damaged: {problems[0]}")


def _statements(script: str) -> Iterator[str]:
    """The statements of ``script`` one by one (a trigger's body keeps its own semicolons)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line.split("--")[0] if "--" in line else line
        if sqlite3.complete_statement(statement):
            yield statement.strip()
            statement = ""


def remove_index_files(path: Path) -> None:
    """Delete the index and SQLite's files beside it, to make it afresh."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        except OSError as exc:
            raise HistoryError(
                f"cannot replace the damaged history index {path} ({exc.strerror or exc}); "
                "delete it by hand and livecap builds it again"
            ) from None


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction (taken at once: two writers wait their turn instead of failing later)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# ---- chunks -----------------------------------------------------------------------------------
def insert_chunks(conn: sqlite3.Connection, rows: list[tuple[int, int, str, bytes]]) -> None:
    """Insert chunk rows (rowid, speaker, text, words), in rowid order, and index their text. No
    other chunk may lie between the first rowid and the last: the caller deleted that range."""
    if not rows:
        return
    conn.executemany("INSERT INTO chunks(rowid, speaker, text, words) VALUES (?, ?, ?, ?)", rows)
    conn.execute(
        "INSERT INTO chunk_text(rowid, text) SELECT rowid, text FROM chunks WHERE rowid BETWEEN ? AND ?",
        (rows[0][0], rows[-1][0]),
    )


# ---- removing ---------------------------------------------------------------------------------
def delete_session(conn: sqlite3.Connection, sid: int) -> None:
    """Every row of one session (inside the caller's transaction)."""
    conn.execute("DELETE FROM chunks WHERE rowid BETWEEN ? AND ?", chunk_range(sid))
    conn.execute("DELETE FROM speakers WHERE sid = ?", (sid,))
    conn.execute("DELETE FROM sessions WHERE sid = ?", (sid,))


def forget_journals(journals: Iterable[Path], index_path: Path | None = None) -> None:
    """Drop deleted journals from the index (retention pruned them), where there is an index.
    Never raises: the next ``sync`` drops what this could not."""
    path = index_path if index_path is not None else default_index_path()
    keys = [journal_key(p) for p in journals]
    if not keys or not path.exists():
        return
    try:
        conn = connect(path, quick_check=False, create=False)
    except HistoryError as exc:
        log.info("the history index keeps deleted journals until its next sync: %s", exc)
        return
    try:
        with transaction(conn):
            for key in keys:
                for (sid,) in conn.execute("SELECT sid FROM sessions WHERE path = ?", (key,)).fetchall():
                    delete_session(conn, sid)
    except sqlite3.Error as exc:
        log.warning("the history index keeps deleted journals until its next sync: %s", exc)
    finally:
        conn.close()
