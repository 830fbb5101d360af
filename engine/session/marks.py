"""Whose marks a session's words carry: livecap's punctuation model's (English only) or the
recognizer's own, live and after Stop; and how a notice names the language a recognizer hears.
``decide_marks`` decides it once, for the recognition plan (``plan.resolve_plan``), which the
session factory (``build``) and the file transcription (``cli.transcribe``) read;
``decoder_for`` builds the streaming decoder the decision names."""

from __future__ import annotations

from dataclasses import dataclass

from engine.punctuation.decoder import Decoder
from engine.recognizers.base import Recognizer
from engine.recognizers.kinds import recognizer_kind
from engine.words import is_english

__all__ = [
    "MARKS",
    "MARK_LABELS",
    "MarksDecision",
    "choose_decoder",
    "decide_marks",
    "decoder_for",
    "keeps_written_marks",
    "language_heard",
    "whose_marks",
    "words_are_english",
]

MARKS = ("auto", "engine", "recognizer")  # what `--marks` and the settings accept
# Each choice's line in the settings dialog.
MARK_LABELS = {
    "auto": "Automatic: the better one for the recognizer",
    "engine": "Punctuation by livecap (its model, taking Whisper's into account)",
    "recognizer": "Punctuation by Whisper (it comes with Whisper's words)",
}


@dataclass(frozen=True)
class MarksDecision:
    """Whose marks a recognizer's words take, and what to say of it."""

    live: str  # as they arrive: "engine" (the punctuation model's) or "recognizer" (as written)
    after_stop: str  # the text after Stop and an export (a file's: as ``live``)
    english: bool  # the words are English: the punctuation model may mark them
    notice: str  # one line, "" when there is nothing to say


def decide_marks(recognizer: Recognizer, marks: str = "auto", model=None, live: bool = True) -> MarksDecision:
    """Whose marks ``recognizer``'s words take, ``live`` (a session, given its punctuation
    ``model``) or for a whole file (no model: the kind's default, ``keeps_written_marks``).
    Livecap's punctuation model is English: words of another language pass through as
    recognized, said once. ``marks`` ("auto", "engine", "recognizer"): see ``SessionSpec.marks``."""
    if marks not in MARKS:
        raise ValueError(f"marks must be one of {', '.join(MARKS)}, got {marks!r}")
    english = words_are_english(recognizer)
    shown = whose_marks(recognizer, marks, model if live else None)
    after_stop = whose_marks(recognizer, marks, model, offline=True) if live else shown
    notice = ""
    if not english:
        writes = "with the recognizer's own punctuation" if recognizer.writes_marks else "without punctuation"
        heard = language_heard(recognizer)
        notice = (
            f"{heard[:1].upper()}{heard[1:]}. livecap's punctuation model is English only, so the "
            f"words are shown as recognized, {writes}."
            if live
            else f"{heard}; livecap's punctuation model is English only, so the words are written as "
            f"recognized, {writes}"
        )
    elif live and marks == "recognizer" and shown == "engine":
        notice = f"{recognizer.name} writes no marks: livecap's punctuation model adds them."
    return MarksDecision(shown, after_stop, english, notice)


def decoder_for(marks_by: str, model, settings, recognizer: Recognizer, known_forms=None) -> Decoder:
    """The streaming decoder giving ``marks_by``'s marks ("engine" or "recognizer", as
    ``decide_marks`` decided) to ``recognizer``'s words, on ``settings``; ``known_forms``: the
    written forms of the user's terms (``terms.known_forms``), which set their case."""
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
    from engine.punctuation.streaming import StreamingDecoder

    if marks_by == "recognizer":
        return RecognizerMarksDecoder(settings, not recognizer.revises_writing)  # settles on arrival
    return StreamingDecoder.from_model(model, settings, recognizer=recognizer.name, known_forms=known_forms)


def choose_decoder(model, settings, recognizer: Recognizer, marks: str = "auto") -> tuple[Decoder, str]:
    """(decoder, notice): ``decide_marks``' live decision, and the streaming decoder it names."""
    decision = decide_marks(recognizer, marks, model)
    return decoder_for(decision.live, model, settings, recognizer), decision.notice


def words_are_english(recognizer: Recognizer) -> bool:
    """Whether ``recognizer``'s words are English, the only language livecap's punctuation model
    may mark: a translation's are; a multilingual model's are only once it is known to hear
    English (it may be told the language later, and then the words already marked would be
    another language's)."""
    if recognizer.translating:
        return True
    if recognizer.multilingual and (recognizer.language is None or recognizer.detects_language):
        return False
    return is_english(recognizer.language)


def language_heard(recognizer: Recognizer) -> str:
    """What a notice says of the language ``recognizer`` hears, in plain words: "the speech is
    German", or "the language is detected from the first words spoken" (not known yet)."""
    if recognizer.language is None:
        return "the language is detected from the first words spoken"
    if recognizer.multilingual:
        from engine.recognizers.language_pack import language_title

        return f"the speech is {language_title(recognizer.language)}"
    from engine.vosk_models.catalogue import language_name

    return f"the speech is {language_name(recognizer.language)}"


def whose_marks(recognizer: Recognizer, marks: str = "auto", model=None, offline: bool = False) -> str:
    """ "recognizer" when the words keep the marks their recognizer wrote (or pass unmarked, for a
    language the punctuation model does not know), "engine" when the punctuation model marks them:
    live, given the session's ``model``, what ``choose_decoder`` builds, for a front end to say
    before a session starts; ``offline``, what the text after Stop or an export gets; with no
    ``model``, what a whole file gets (``keeps_written_marks``)."""
    if not words_are_english(recognizer) or keeps_written_marks(recognizer, marks, model, offline):
        return "recognizer"
    return "engine"


def keeps_written_marks(
    recognizer: Recognizer, marks: str = "auto", model=None, offline: bool = False
) -> bool:
    """Whether ``recognizer``'s own marks are kept as written: asked for, or the default for it; a
    multilingual Whisper model may hear any language, so it keeps its own.

    The default hangs on the ``model``: one that folds the recognizer's marks in as evidence
    (``hint_fusion``) gives the engine with them as hints, which is what runs live where the
    recognizer's kind says so (``RecognizerKind.engine_with_hints_live``), and in the ``offline``
    pass over a live session's words (the text after Stop, an export), which sees the whole
    transcript (docs/QUALITY.md). Without such a model (or with none given: a whole file, decoded
    once per window, which was measured apart), the kind's ``marks_by_default``."""
    if not recognizer.writes_marks or marks == "engine":
        return False
    if marks == "recognizer" or recognizer.multilingual:
        return True
    kind = recognizer_kind(recognizer.name)
    folds_them_in = model is not None and model.config.hint_fusion is not None
    if folds_them_in and (offline or kind.engine_with_hints_live):
        return False
    return kind.marks_by_default
