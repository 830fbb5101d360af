"""What a user types into the search box, made into an FTS5 query; and a hit's text, made plain.

The syntax is FTS5's own: words (all must be there), "a phrase" in double quotes, ``word*`` for a
prefix, ``OR``, ``NOT``, ``NEAR(...)``. But people type ``budget, the schedule`` or ``don't``,
which FTS5 refuses (a comma, an apostrophe): a query FTS5 refuses is asked again as plain words,
each quoted (``"budget" "the" "schedule"``), a trailing ``*`` still a prefix. Only what cannot
mean anything is refused, with one line saying what is wrong: an unbalanced quote, or nothing
to look for.

Matches come back marked by FTS5's ``highlight()`` with two control characters that never occur
in a journal's text; ``plain_and_spans`` takes them out and keeps where they were.
"""

from __future__ import annotations

import re
import sqlite3

from engine.history.errors import HistoryQueryError

__all__ = [
    "MATCH_END",
    "MATCH_START",
    "check_query",
    "is_query_error",
    "plain_and_spans",
    "plain_words_query",
]

MATCH_START, MATCH_END = "\x02", "\x03"  # what highlight() puts around a match
NOTHING_TO_FIND = 'give a word, a "phrase in quotes" or the start of a word with * (budg*)'

# FTS5's own words for a query it cannot parse (as opposed to a database that is busy or broken).
_QUERY_ERRORS = ("fts5:", "no such column", "unknown special query", "unterminated string")
_TOKEN = re.compile(r'"[^"]*"\*?|[^\s"]+')
_WORD = re.compile(r"\w")
_EDGES = re.compile(r"^\W+|\W+$")  # punctuation around a typed word: "budget," → budget


def check_query(query: str) -> str:
    """``query`` stripped; HistoryQueryError for one that cannot mean anything."""
    text = query.strip()
    if not _WORD.search(text):
        raise HistoryQueryError(f"nothing to search for in {text!r}: {NOTHING_TO_FIND}")
    if text.count('"') % 2:
        raise HistoryQueryError(f"unbalanced quote in {text}")
    return text


def is_query_error(exc: sqlite3.Error) -> bool:
    """Whether FTS5 refused the query itself (rather than the database failing)."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(_QUERY_ERRORS)


def plain_words_query(query: str) -> str:
    """``query`` as plain words and phrases, every one quoted so that no character in it is
    FTS5 syntax; a word or phrase ending in ``*`` stays a prefix."""
    parts = []
    for token in _TOKEN.findall(query):
        prefix = token.rstrip(".,;:!?)]}").endswith("*")
        if token.startswith('"'):
            inner = token.rstrip("*")[1:-1]
        else:
            inner = _EDGES.sub("", token.rstrip(".,;:!?)]}").rstrip("*"))
        if _WORD.search(inner):
            parts.append('"' + inner.replace('"', '""') + '"' + ("*" if prefix else ""))
    if not parts:
        raise HistoryQueryError(f"nothing to search for in {query!r}: {NOTHING_TO_FIND}")
    return " ".join(parts)


def plain_and_spans(highlighted: str) -> tuple[str, list[tuple[int, int]]]:
    """The text without ``highlight()``'s marks, and the (start, end) offsets of what they marked."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    length, start = 0, None
    for piece in re.split(f"([{MATCH_START}{MATCH_END}])", highlighted):
        if piece == MATCH_START:
            start = length
        elif piece == MATCH_END:
            if start is not None and length > start:
                spans.append((start, length))
            start = None
        else:
            text.append(piece)
            length += len(piece)
    return "".join(text), spans
