"""Speech recognizers behind one streaming interface (see ``base``).

Backends are imported lazily by ``select.create_recognizer`` so that merely
importing this package loads neither libvosk nor pocketsphinx.
"""

from engine.recognizers.base import Recognizer, RecognizerError, RecognizerUpdate, WayOut

__all__ = ["Recognizer", "RecognizerError", "RecognizerUpdate", "WayOut"]
