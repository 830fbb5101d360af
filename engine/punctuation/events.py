"""The typed events of the punctuation decoders, as the session publishes them: what every
subscriber (the window, the journal, dictation, the terminal captions) reads.

A word is ``Appended``; its mark and case are shown ``Provisional`` at once and change until they
are ``Settled``, after which they never change, unless the recognizer takes the word back
(``Withdrawn``, ``Retracted``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.words import Word


@dataclass(frozen=True)
class Appended:
    """A word joined the stream at ``position``."""

    position: int
    word: Word


@dataclass(frozen=True)
class Provisional:
    """The current best guess for a position that may still change."""

    position: int
    mark: str
    case: str
    confidence: float
    form: str


@dataclass(frozen=True)
class Settled:
    """The final mark and case of a position. Never changes, unless the word itself is withdrawn."""

    position: int
    mark: str
    case: str
    lookahead_used: int
    form: str
    confidence: float = 1.0
    # The form inside a sentence: ``form`` without a capital that only marks a sentence start
    # ("" where that is ``form``). Dictation types it where the user's sentence goes on.
    inner_form: str = ""


@dataclass(frozen=True)
class Withdrawn:
    """A settled word was replaced by the recognizer; its settled mark no longer holds."""

    position: int


@dataclass(frozen=True)
class Retracted:
    """Every word from ``from_position`` on was removed from the stream."""

    from_position: int


Event = Appended | Provisional | Settled | Withdrawn | Retracted
