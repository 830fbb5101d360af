"""Every event a session subscriber receives, in one module: what the window, the journal,
dictation and the terminal captions import, and all they need to import.

Subscribers get lists of them, from two threads (``engine.session.live``):

- the engine thread publishes the decoders' events: a word is ``Appended``; its mark and case are
  shown ``Provisional`` at once and change until they are ``Settled``, after which they never
  change, unless the recognizer takes the word back (``Withdrawn``, ``Retracted``); beside them
  ``Finalized`` (the recognizer will not take words back), ``SpeakersLabelled`` (who spoke) and
  ``EngineFailed``;
- the recognizer thread publishes the session's own: ``PartialWords``, ``AudioLevel``,
  ``SourceNotice``, ``LanguageDetected``, ``InputHint``, ``WordsHidden``.

All are frozen dataclasses: they cross threads, and nobody may change one on its way.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.words import Word


# ---- the decoders' events (engine thread) ----------------------------------------------------
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


Event = Appended | Provisional | Settled | Withdrawn | Retracted  # what a decoder returns


# ---- the engine thread's own --------------------------------------------------------------------
@dataclass(frozen=True)
class Finalized:
    """None of the stream's first ``words`` words will be taken back by the recognizer (the
    stabiliser's horizon: an utterance ended, or its words froze). Published in order with the
    decoder's events, after those words' ``Appended``."""

    words: int


@dataclass(frozen=True)
class SpeakersLabelled:
    """Who spoke words already ``Appended``: position → speaker id (``engine.speakers.labels``).
    A label may be corrected by a later event until its turn settles; positions below
    ``settled_through`` never change label again (the rule marks follow)."""

    labels: tuple[tuple[int, str], ...]
    settled_through: int


@dataclass(frozen=True)
class EngineFailed:
    """The engine hit an error it cannot recover from; it has stopped."""

    message: str


# ---- the session's own (recognizer thread) ------------------------------------------------------
@dataclass(frozen=True)
class PartialWords:
    """The recognizer's uncommitted words, for display only; replaces the previous ones of the
    same ``speaker`` (a meeting's sides each have their own)."""

    words: tuple[Word, ...]
    speaker: str = ""


@dataclass(frozen=True)
class AudioLevel:
    """Root mean square of the latest chunk, 0 (silence) to 1 (full scale), of ``speaker``'s side."""

    rms: float
    speaker: str = ""


@dataclass(frozen=True)
class SourceNotice:
    """Something the user should know: a source event (overrun, device lost/back,
    finished) or a failure (``kind`` "error") that ended the session's input."""

    kind: str
    message: str
    speaker: str = ""  # the side whose source it concerns; "" in a one-source session


@dataclass(frozen=True)
class LanguageDetected:
    """The recognizer told the spoken language from the first speech (a session started with
    language "auto"), once: ``language`` a code of ``language_pack.LANGUAGES`` ("de"),
    ``probability`` how sure it was (0 to 1). It holds for the rest of the session, on its side:
    ``speaker`` the id of the meeting's side it was heard on (``engine.speakers.labels``: "me",
    "others"), whose recognizer tells its own; None in a one-source session."""

    language: str
    probability: float
    speaker: str | None = None


@dataclass(frozen=True)
class InputHint:
    """The input itself is the problem, measured on the audio (``engine.audio.input_check``):
    ``kind`` "quiet", "clipping" or "noisy" (noise or a reverberant room), with ``message`` the
    hint to show the user; ``kind`` None (and ``message`` "") clears the hint. Published only when
    the hint changes, after seconds of speech, so a front end shows it as it comes. ``speaker``:
    the meeting's side it concerns; "" in a one-source session."""

    kind: str | None
    message: str
    speaker: str = ""


@dataclass(frozen=True)
class WordsHidden:
    """Words of the microphone's side that a meeting's echo guard hid as possibly the others'
    speech heard again through the speakers (``engine.speakers.echo_guard``): not shown, and kept
    in the journal marked as hidden, so they can be recovered. ``total``: the words hidden so far
    in the session, for the one notice a front end shows and keeps current ("12 words hidden as
    possible echo")."""

    words: tuple[Word, ...]
    total: int
