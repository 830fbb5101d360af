"""The History window: every session's captions, listed, searched and opened again.

The engine keeps every session in its journal and indexes the journals (``engine.HistoryIndex``,
SQLite full-text search). This package is the window over that index: ``window`` (the list of
sessions, the search box, the results), ``session_page`` (one session, read-only, with copy, export,
rename, pin and delete), ``index_client`` (every index call, off the UI thread), ``lists`` and
``session_view`` (the widgets), ``rows`` (how a session or a hit reads). ``benchmark`` measures the
window with a few hundred sessions.
"""
