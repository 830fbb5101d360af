"""What the history index answers with: a session's summary, and one search hit.

Plain frozen values, so a front end may hand them between threads and keep them as long as it
likes; the text of a whole session is never here (``read_journal`` on ``SessionSummary.path``
reads it from the journal, the one truth).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

__all__ = ["SearchHit", "SessionSummary"]


@dataclass(frozen=True)
class SessionSummary:
    """One kept session, as the History list shows it."""

    id: str  # the journal's file name without ".jsonl": "session-20261128-093000"
    path: Path  # the journal
    started: datetime  # with its time zone
    duration_s: float  # the length of its audio: the end of its last word (``session_length``)
    sources: tuple[str, ...]  # the audio sources it captioned (a meeting has two)
    speakers: tuple[str, ...]  # display names, in the order each first spoke; () for one source
    recognizer: str
    first_line: str  # the start of its text, for a list that has no title to show
    title: str  # the user's name for it, "" where none was given
    pinned: bool  # kept whatever the retention
    words: int
    live: bool  # a session still being written


@dataclass(frozen=True)
class SearchHit:
    """Where a search matched: one place in one session."""

    session_id: str
    position: int  # journal word position of the first matched word
    time_s: float  # seconds from the session start of that word
    speaker: str  # display name, "" when the session had one source
    snippet: str  # plain text around the match
    spans: tuple[tuple[int, int], ...]  # (start, end) character offsets of the matches in snippet
    started: datetime  # the session's start (for listing)
