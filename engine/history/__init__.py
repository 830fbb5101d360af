"""History: every kept session, listed and searched again in a second.

The session journals (``engine.transcript.journal``) stay the one truth; this package keeps a
SQLite FTS5 index beside them (``paths.data_dir()/history.sqlite3``) that can always be built
again from them. ``HistoryIndex`` lists, searches, renames, pins and deletes sessions;
``LiveIndexer`` makes the running session searchable as its words settle.

One module a job: ``store`` (the file and its tables), ``chunks`` (the rows the text is cut
into), ``indexing`` (a journal into rows), ``query`` (what the user typed into FTS5), ``index``
(``HistoryIndex``), ``live`` (``LiveIndexer``), ``live_tail`` (the words it keeps), ``records``
(what they answer with), ``errors``.
"""

from __future__ import annotations

from engine.history.errors import HistoryError, HistoryQueryError
from engine.history.index import HistoryIndex
from engine.history.live import LiveIndexer
from engine.history.records import SearchHit, SessionSummary

__all__ = [
    "HistoryError",
    "HistoryIndex",
    "HistoryQueryError",
    "LiveIndexer",
    "SearchHit",
    "SessionSummary",
]
