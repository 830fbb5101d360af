"""The one interface every speech recognizer backend honours.

A recognizer is fed 16 kHz mono int16 audio in chunks of any size and answers
each chunk with a ``RecognizerUpdate``: the current unstable hypothesis, plus
the words it finalised if it reached an endpoint in that chunk. Word times are
seconds from the start of the stream, counted from the samples the recognizer
was fed (not the wall clock), so they stay right however late audio arrives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from engine.words import Word


@dataclass(frozen=True)
class WayOut:
    """One thing the user can do about a ``RecognizerError``: a button in the window, a command in
    the terminal. ``action`` says what a front end does: "use_builtin" (switch to PocketSphinx),
    "download" (install ``model`` from the catalogue again), "remove" (delete the installed ``model``)."""

    action: str
    label: str  # the button: "Download again"
    command: str  # the same in the terminal: "livecap models download vosk-model-small-en-us-0.15"
    model: str | None = None


class RecognizerError(RuntimeError):
    """The recognizer cannot be created or used; the message says what to do about it, and
    ``ways_out`` offers the same as actions a front end can turn into buttons."""

    def __init__(self, message: str, ways_out: tuple[WayOut, ...] = ()):
        super().__init__(message)
        self.ways_out = tuple(ways_out)


@dataclass
class RecognizerUpdate:
    """What a recognizer knows after one call.

    ``partial``: the unstable hypothesis since the last final (may be empty; may
    rewrite earlier words from one update to the next). ``final``: the words
    finalised at an endpoint during this call, or None when there was none.
    When both are set, ``partial`` belongs to the utterance after the final.

    A recognizer whose writing of a final word (``Word.written``: its marks and capitals) may
    improve after the word itself is final (``revises_writing``) says so here: ``rewritten`` maps
    a final word's index (counted from the reset, over every final) to the word with its newer
    writing, and the first ``writings_settled`` final words' writings will never change again.
    ``writings_settled`` is None from a recognizer whose writings are final with their words.

    ``heard_through``: the stream time (seconds) up to which every word the recognizer will ever
    give is among its finals so far or in ``partial``; None where it cannot say (Whisper, between
    its decodes, has not yet listened to the latest audio). A silence counts only up to there: a
    word still being decoded is not a pause.
    """

    partial: list[Word] = field(default_factory=list)
    final: list[Word] | None = None
    rewritten: dict[int, Word] = field(default_factory=dict)
    writings_settled: int | None = None
    heard_through: float | None = None


@runtime_checkable
class Recognizer(Protocol):
    """What every recognizer does and declares. The declarations are set by each recognizer (some
    depend on its model or mode), agree with its kind's in ``kinds``, and are read as they stand:
    nobody guesses them."""

    name: str  # its kind's name (``kinds.NAMES``)
    sample_rate: int
    writes_marks: bool  # its words carry its own marks and capitals (``Word.written``)
    commits_words: bool  # its finals are its own commitments; its partials are for display only
    # A final word's writing may still improve after the word is final (``RecognizerUpdate``):
    # live Whisper, never a file's.
    revises_writing: bool
    language: str | None  # what it hears ("en", "ko", "en-us"); None: unknown, taken for English
    multilingual: bool  # its model may hear any language (and writes marks for each)
    detects_language: bool  # it tells the language from each stream's first speech (none was given)
    translating: bool  # it writes English words for speech in ``language`` (Whisper's translate task)
    model_path: Path | None  # the model folder it runs; None: a built-in model without one
    # Whole-buffer decodes so far, for the measuring tools; None for one that decodes as audio arrives.
    decodes: int | None

    def accept(self, pcm: bytes | np.ndarray) -> RecognizerUpdate:
        """Feed 16 kHz mono int16 audio (bytes or an int16 array)."""

    def flush(self) -> RecognizerUpdate:
        """End of input: finalise whatever is pending. Later audio continues the same clock."""

    def reset(self) -> None:
        """Forget everything and start a new stream at time 0."""

    def close(self) -> None:
        """Release the model (a child process, CTranslate2's threads). Idempotent; later calls may raise."""

    def another_stream(self) -> Recognizer:
        """A second recognizer of the same kind and model, with a stream of its own, for a
        meeting's other side: it shares the loaded model where the library allows (Whisper,
        Vosk), so a second side costs no second copy in memory. Closing it leaves this one open."""

    @property
    def closed(self) -> bool:
        """Closed, or unable to go on (its process died): a new one is needed."""


# The declarations a wrapper (``IsolatedRecognizer``) forwards from the recognizer it wraps.
DECLARATIONS = (
    "writes_marks", "commits_words", "revises_writing", "language", "multilingual", "detects_language",
    "translating", "model_path",
)  # fmt: skip


def as_pcm_bytes(pcm: bytes | bytearray | memoryview | np.ndarray) -> bytes:
    """Normalise ``accept``'s argument to little-endian int16 bytes, refusing what would be misread."""
    if isinstance(pcm, np.ndarray):
        if pcm.dtype != np.int16:
            # Silently casting float audio in [-1, 1] to int16 would feed the recognizer silence.
            raise TypeError(
                f"audio must be int16 samples, got a {pcm.dtype} array (scale floats by 32767 first)"
            )
        if pcm.ndim != 1:
            raise ValueError(f"audio must be mono (one dimension), got shape {pcm.shape}")
        return pcm.astype("<i2", copy=False).tobytes()
    data = bytes(pcm)
    if len(data) % 2:
        raise ValueError("int16 audio must have an even number of bytes")
    return data


def clamp_confidence(value: float | None) -> float:
    if value is None or math.isnan(value):  # the recognizer gave nothing usable
        return 1.0
    return min(1.0, max(0.0, float(value)))
