"""The history index's rows as records: sessions (``SessionSummary``) and search hits
(``SearchHit``), with the speakers' names and the sessions' ids that other tables hold."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path

from engine.history.chunks import NO_TIME, unpack_words, word_at_offset
from engine.history.query import plain_and_spans
from engine.history.records import SearchHit, SessionSummary
from engine.history.store import SEQ_BITS
from engine.transcript.journal_reading import in_use

__all__ = ["SUMMARY_COLUMNS", "by_sid", "search_hits", "summaries"]

SUMMARY_COLUMNS = (
    "sid, id, path, started, duration_s, sources, recognizer, first_line, title, pinned, words, live"
)
SESSIONS_OF = "SELECT sid, id, started FROM sessions WHERE sid IN ({})"
SPEAKERS_OF = "SELECT sid, number, name FROM speakers WHERE sid IN ({}) ORDER BY sid, number"


def by_sid(conn: sqlite3.Connection, query: str, rows: list[tuple]) -> list[tuple]:
    """``query``'s rows for the sids that start ``rows``, asked a few hundred at a time (SQLite
    takes only so many values in one statement)."""
    found = []
    for sids in _batches(rows):
        found += conn.execute(query.format(",".join("?" * len(sids))), sids).fetchall()
    return found


def summaries(conn: sqlite3.Connection, rows: list[tuple]) -> list[SessionSummary]:
    """The sessions of ``rows`` (``SUMMARY_COLUMNS``), with their speakers' names."""
    speakers: dict[int, list[str]] = {}
    for sid, _, name in by_sid(conn, SPEAKERS_OF, rows):
        speakers.setdefault(sid, []).append(name)
    out = []
    for row in rows:
        sid, session_id, path, started, duration, sources, recognizer, first, title, *rest = row
        pinned, words, live = rest
        out.append(
            SessionSummary(
                id=session_id,
                path=Path(path),
                started=datetime.fromisoformat(started),
                duration_s=duration,
                sources=tuple(json.loads(sources)),
                speakers=tuple(speakers.get(sid, ())),
                recognizer=recognizer,
                first_line=first,
                title=title,
                pinned=bool(pinned),
                words=words,
                live=bool(live) and in_use(Path(path)),
            )
        )
    return out


def search_hits(conn: sqlite3.Connection, rows: list) -> list[SearchHit]:
    """The hits of ``rows`` (rowid, speaker, packed words, highlighted text) from a chunk search."""
    sids = [(sid,) for sid in sorted({rowid >> SEQ_BITS for rowid, *_ in rows})]
    sessions = {
        sid: (session_id, datetime.fromisoformat(started))
        for sid, session_id, started in by_sid(conn, SESSIONS_OF, sids)
    }
    names = {(sid, number): name for sid, number, name in by_sid(conn, SPEAKERS_OF, sids)}
    hits = []
    for rowid, speaker, packed, highlighted in rows:
        sid = rowid >> SEQ_BITS
        if sid not in sessions:
            continue  # deleted between the two reads
        snippet, spans = plain_and_spans(highlighted)
        positions, times = unpack_words(packed)
        word = min(word_at_offset(snippet, spans[0][0]) if spans else 0, len(positions) - 1)
        session_id, started = sessions[sid]
        hits.append(
            SearchHit(
                session_id=session_id,
                position=positions[word],
                time_s=_time_of(times, word),
                speaker=names.get((sid, speaker), ""),
                snippet=snippet,
                spans=tuple(spans),
                started=started,
            )
        )
    return hits


def _batches(rows: list[tuple], size: int = 500):
    for start in range(0, len(rows), size):
        yield [row[0] for row in rows[start : start + size]]


def _time_of(times, word: int) -> float:
    """The start of the chunk's ``word``-th word in seconds; a word without times takes the
    nearest earlier word's, else the nearest later one's, else 0."""
    for i in [*range(word, -1, -1), *range(word + 1, len(times))]:
        if times[i] != NO_TIME:
            return times[i] / 1000
    return 0.0
