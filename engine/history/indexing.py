"""One journal into the index: read it whole, cut its words into chunks, write its rows.

Reading is ``journal_reading``'s own (``read_journal_words``: one reader of the format, whatever
reads it), with the words made as the index keeps them. What the index holds of a session beyond
its words is derived here once, for the full index and the live one alike: when it started, how
long its audio is (``session_length``), who spoke, its first words.

A journal that does not read to its end (cut off, or edited by hand) is indexed as far as it
reads, with a warning: its lines are independent, so what reads is right.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.history.chunks import Chunk, IndexedWord, chunk_words, indexed_word
from engine.history.errors import HistoryError
from engine.history.store import (
    SAME_SECOND,
    chunk_rowid,
    delete_session,
    insert_chunks,
    journal_key,
    session_base,
    transaction,
)
from engine.speakers.labels import SpeakerNames
from engine.transcript.journal_reading import JournalContents, read_journal_words

__all__ = [
    "IndexedSession",
    "first_line",
    "index_journal",
    "read_session",
    "session_length",
    "session_started",
    "speaker_numbers",
    "write_session",
]

log = logging.getLogger(__name__)

FIRST_LINE_CHARS = 100  # enough for a list row to tell sessions apart


@dataclass
class IndexedSession:
    """What the index keeps of one journal, read at ``size`` bytes and ``mtime_ns``."""

    id: str
    path: Path
    size: int
    mtime_ns: int
    started: datetime
    duration_s: float
    sources: tuple[str, ...]
    recognizer: str
    title: str
    pinned: bool
    names: SpeakerNames
    words: list[IndexedWord]  # in position order


def read_session(path: Path, warn: bool = True) -> IndexedSession:
    """Read the journal at ``path`` (OSError when it cannot be); ``warn``: log a warning when lines
    could not be read (off for a journal still being written, whose last line may be half there)."""
    info = path.stat()  # before reading: a journal that grows meanwhile is read again next sync
    contents, by_position = read_journal_words(path, indexed_word)
    if contents.skipped_lines and warn:
        log.warning(
            "%s: %d line(s) could not be read (cut off, or edited by hand); indexed as far as it reads",
            path,
            contents.skipped_lines,
        )
    words = [by_position[p] for p in sorted(by_position)]
    started = session_started(contents, path, info.st_mtime)
    header = contents.header
    return IndexedSession(
        id=path.stem,
        path=path,
        size=info.st_size,
        mtime_ns=info.st_mtime_ns,
        started=started,
        duration_s=session_length(words),
        sources=tuple(str(header[k]) for k in ("source", "others_source") if header.get(k)),
        recognizer=str(header.get("recognizer") or ""),
        title=contents.title,
        pinned=contents.pinned,
        names=contents.speaker_names,
        words=words,
    )


def session_started(contents: JournalContents, path: Path, mtime: float) -> datetime:
    """When the session started, with its time zone: its header's time, else the time in its
    name (local), else the file's last change (a journal whose header was lost in a crash)."""
    for text, parse in (
        (contents.started, datetime.fromisoformat),
        (path.stem[len("session-") :][:15], lambda t: datetime.strptime(t, "%Y%m%d-%H%M%S")),
    ):
        try:
            return parse(str(text)).astimezone()  # a time without a zone is local
        except (TypeError, ValueError, OverflowError, OSError):
            continue
    return datetime.fromtimestamp(mtime).astimezone()


def session_length(words: Iterable) -> float:
    """How long a session is: the end of its last word, in seconds of its audio. The one length
    every front end shows (the History window, ``history list`` and ``show``), on the same clock as
    a search hit's time and ``show --at``. Not the time from its start to its close: a file decodes
    faster than it plays, so that would be how long the decoding took."""
    return max((w.end for w in words if w.end is not None), default=0.0)


def first_line(words: list[IndexedWord]) -> str:
    """The session's first words, up to ``FIRST_LINE_CHARS`` characters (cut between words)."""
    line = ""
    for word in words:
        if not word.display:
            continue
        longer = f"{line} {word.display}" if line else word.display
        if len(longer) > FIRST_LINE_CHARS:
            return (line or word.display[:FIRST_LINE_CHARS]) + "…"
        line = longer
    return line


def speaker_numbers(words: list[IndexedWord]) -> dict[str, int]:
    """Each speaker id's number, in the order they first spoke from 1; the one-source id "" is 0."""
    numbers = {"": 0}
    for word in words:
        if word.speaker not in numbers:
            numbers[word.speaker] = len(numbers)
    return numbers


def write_session(
    conn: sqlite3.Connection,
    session: IndexedSession,
    chunks: list[Chunk],
    numbers: dict[str, int],
    live: bool,
    owner: str | None,
) -> int:
    """Replace the session's rows with these (inside the caller's transaction); returns its sid.
    A live session's size is recorded as unknown (-1), so the first sync after it ends reads it
    whole, whatever the live indexer managed to write."""
    old = conn.execute("SELECT sid FROM sessions WHERE id = ?", (session.id,)).fetchone()
    if old is not None:
        delete_session(conn, old[0])
    sid = _free_sid(conn, session.started.timestamp())
    conn.execute(
        "INSERT INTO sessions(sid, id, path, size, mtime_ns, started, duration_s, sources, recognizer,"
        " first_line, title, pinned, words, live, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            sid,
            session.id,
            journal_key(session.path),
            -1 if live else session.size,
            session.mtime_ns,
            session.started.isoformat(),
            session.duration_s,
            json.dumps(session.sources, ensure_ascii=False),
            session.recognizer,
            first_line(session.words),
            session.title,
            int(session.pinned),
            len(session.words),
            int(live),
            owner,
        ),
    )
    write_speakers(conn, sid, numbers, session.names)
    insert_chunks(
        conn, [(chunk_rowid(sid, c.seq), numbers[c.speaker], c.text, c.packed_words()) for c in chunks]
    )
    return sid


def write_speakers(conn: sqlite3.Connection, sid: int, numbers: dict[str, int], names: SpeakerNames) -> None:
    """The session's speakers with the names they are shown by now (a rename writes them again)."""
    conn.execute("DELETE FROM speakers WHERE sid = ?", (sid,))
    conn.executemany(
        "INSERT INTO speakers(sid, number, speaker, name) VALUES (?, ?, ?, ?)",
        [(sid, number, speaker, names.name(speaker)) for speaker, number in numbers.items() if number],
    )


def _free_sid(conn: sqlite3.Connection, started_ts: float) -> int:
    base = session_base(started_ts)
    taken = {
        row[0]
        for row in conn.execute(
            "SELECT sid FROM sessions WHERE sid BETWEEN ? AND ?", (base, base + SAME_SECOND - 1)
        )
    }
    for sid in range(base, base + SAME_SECOND):
        if sid not in taken:
            return sid
    raise HistoryError(f"more than {SAME_SECOND} sessions started in the same second; cannot index more")


def index_journal(
    conn: sqlite3.Connection, path: Path, live: bool = False, owner: str | None = None
) -> tuple[IndexedSession, int, dict[str, int], list[Chunk]]:
    """Read ``path`` and replace its rows, in one transaction of its own (other writers, such as a
    running session's live indexer, get their turn between journals). Returns what was written:
    (session, sid, speaker numbers, chunks). OSError when the journal cannot be read."""
    session = read_session(path, warn=not live)
    numbers = speaker_numbers(session.words)
    chunks = chunk_words(session.words)
    with transaction(conn):
        sid = write_session(conn, session, chunks, numbers, live, owner)
    return session, sid, numbers, chunks
