"""The recognition plan: what a session or a file is recognized with, decided once.

A front end's choices (``RecognitionChoice``: the recognizer asked for, the spoken language,
translate, Speed or accuracy, whose marks) are checked here and nowhere else, and turned here into
what runs:

- ``RecognitionChoice.vocabulary``: the user's terms, parsed once by the front end; every
  front end reads them from the plan (``RecognitionPlan.vocabulary``).
- ``RecognitionChoice.request``: the recognizer kind and its options, before anything loads.
  English keeps the recognizer asked for (the built-in Whisper tiny.en by default, or Whisper base
  told English where Speed or accuracy asks for it); any other language, or "auto", runs Whisper
  base (the language pack) with the language and the task. English speech has nothing to
  translate: translate with English is English transcription, as the window and the command line
  both run it.
- ``resolve_plan``: once the recognizer is open (and, live, the punctuation model loaded), the
  frozen ``RecognitionPlan``: the language and whether it translates, whether the words are
  English, whose marks live and after Stop (``marks.decide_marks``), and the notices to show.

The session factory (``build``), the app's preload (through ``SessionResources.plan``), ``livecap
transcribe`` and the meeting sides read the plan; none decides any of it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.recognizers.accuracy import ACCURACY_OPTION, accuracy, wants_base
from engine.recognizers.base import Recognizer
from engine.recognizers.kinds import AUTO, WHISPER, WHISPER_BASE
from engine.recognizers.language_pack import AUTO_LANGUAGE, check_language
from engine.session.marks import decide_marks
from engine.vocabulary import Vocabulary

__all__ = ["AUTO_LANGUAGE", "ENGLISH", "RecognitionChoice", "RecognitionPlan", "resolve_plan"]

ENGLISH = "en"  # ``RecognitionChoice.language``'s default: the recognizer asked for, tiny.en by default


@dataclass(frozen=True)
class RecognitionChoice:
    """What a front end asks of recognition: the window fills it from its settings (through
    ``SessionSpec``), the command line from its flags. Checked on creation: ``ValueError``, one
    line, for a language or an accuracy the engine does not know (a marks choice, as the plan is
    resolved: ``decide_marks``)."""

    recognizer: str = AUTO  # one of ``kinds.CHOICES``; English only
    # "en", a code of ``language_pack.LANGUAGES`` ("de"), or "auto" (told from the first speech).
    language: str = ENGLISH
    translate: bool = False  # English captions of speech in ``language``
    accuracy: str = "auto"  # ``accuracy.Accuracy``'s value
    marks: str = "auto"  # one of ``marks.MARKS``
    # The user's terms (``engine.vocabulary``): their own and a session's file, read once by the
    # front end; recognition writes them the user's way.
    vocabulary: Vocabulary = Vocabulary()

    def __post_init__(self):
        language = check_language(self.language)
        object.__setattr__(self, "language", language)
        object.__setattr__(self, "accuracy", accuracy(self.accuracy).value)
        # English speech has nothing to translate: English transcription, on English's recognizer.
        object.__setattr__(self, "translate", bool(self.translate) and language != ENGLISH)

    @property
    def uses_language_pack(self) -> bool:
        """Another language than English (or "auto"): only Whisper base hears it."""
        return self.language != ENGLISH

    def request(self, live: bool = True) -> tuple[str, dict]:
        """(kind, options) of the recognizer to open, ``live`` or for a file: the recognizer asked
        for, with the accuracy only where it asks for Whisper base, for English; Whisper base with
        the language and the task for any other language."""
        if not self.uses_language_pack:
            # Only where it changes something: a front end's factory for tiny.en takes no options.
            named = self.recognizer == WHISPER.name
            wanted = self.recognizer in (AUTO, WHISPER.name) and wants_base(self.accuracy, live, named)
            return self.recognizer, {ACCURACY_OPTION: self.accuracy} if wanted else {}
        language = None if self.language == AUTO_LANGUAGE else self.language
        return WHISPER_BASE.name, {
            "language": language,
            "task": "translate" if self.translate else "transcribe",
        }


@dataclass(frozen=True)
class RecognitionPlan:
    """What a session (``live``) or a file runs, resolved once on the open recognizer."""

    choice: RecognitionChoice
    live: bool
    kind: str  # the kind asked of the factory (``RecognitionChoice.request``)
    options: dict  # its options
    recognizer: str = ""  # the kind that opened (a fallback may differ from ``kind``)
    # The spoken language the recognizer declares (None: unknown, or told from the speech later).
    language: str | None = None
    translating: bool = False  # the words are an English translation of ``language``
    english: bool = True  # the words are English: livecap's punctuation model may mark them
    marks: str = "engine"  # whose marks the words show: "engine" or "recognizer"
    final_marks: str = "engine"  # whose marks the text after Stop and an export take
    notices: tuple[str, ...] = ()  # one line each, for the front end to show

    @property
    def vocabulary(self) -> Vocabulary:
        """The session's vocabulary, as the front end chose it."""
        return self.choice.vocabulary


def resolve_plan(
    choice: RecognitionChoice, recognizer: Recognizer, model=None, live: bool = True
) -> RecognitionPlan:
    """The plan for ``choice`` on ``recognizer``, opened from ``choice.request(live)``; ``model``:
    the session's punctuation model (live), whose cue fusion decides whose marks by default."""
    kind, options = choice.request(live)
    marks = decide_marks(recognizer, choice.marks, model, live)
    return RecognitionPlan(
        choice=choice,
        live=live,
        kind=kind,
        options=options,
        recognizer=recognizer.name,
        # Not told yet where the recognizer tells it from each session's speech (a cached one
        # still declares the last session's until its reset).
        language=None if recognizer.detects_language else recognizer.language,
        translating=recognizer.translating,
        english=marks.english,
        marks=marks.live,
        final_marks=marks.after_stop,
        notices=(marks.notice,) if marks.notice else (),
    )
