"""Speech recognizers behind one streaming interface (see ``base``), and the list of kinds
(``kinds``).

The names load on first use, and backends only when ``select.open_recognizer`` makes one, so that
importing this package loads neither numpy, libvosk nor pocketsphinx: the command line's choices
and the app's settings read ``kinds`` at once.
"""

from __future__ import annotations

import importlib

_NAMES = {
    "Recognizer": "engine.recognizers.base",
    "RecognizerError": "engine.recognizers.base",
    "RecognizerUpdate": "engine.recognizers.base",
    "WayOut": "engine.recognizers.base",
    "RecognizerKind": "engine.recognizers.kinds",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    try:
        module = _NAMES[name]
    except KeyError:
        raise AttributeError(f"module 'engine.recognizers' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
