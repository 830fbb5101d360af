"""What the history index says when it cannot do what was asked: one line the user can act on.

A front end shows ``str(error)`` as it stands (the window in a banner, the CLI after
``livecap:``), so every message names what went wrong and what to do, and no sqlite traceback
ever reaches the user: the index catches ``sqlite3.Error`` and says it in these words.
"""

from __future__ import annotations

__all__ = ["HistoryError", "HistoryQueryError", "IndexDamaged"]


class HistoryError(Exception):
    """The history index cannot be used or cannot do this (no FTS5 in this Python's SQLite, a
    folder it cannot write, an unknown session...); the message is one actionable line."""


class HistoryQueryError(HistoryError):
    """A search that cannot be understood, e.g. ``unbalanced quote in "foo bar``."""


class IndexDamaged(HistoryError):
    """The index file is not one this livecap can use as it is (another schema version, corrupt,
    not a livecap index): the caller rebuilds it from the journals. Never reaches a user."""
