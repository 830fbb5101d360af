"""A change of speaker ends the sentence in progress: the rule both streaming decoders follow.

In a meeting each word carries who spoke it (``Word.speaker``). Where the next word comes from
the other side, the sentence before it has ended, whatever the words suggest: nobody finishes
another speaker's sentence in a transcript. So the last word before the change takes a sentence
end (its own period or question mark where it has one, else a period; the streaming decoder
lets the model choose between the two) and the first word after it starts a sentence (a capital).

Which change counts: a change of *side* (me ↔ others), as the word was labelled when it was
appended. The side is certain at that moment (it is the stream the word came from); the voices
among the others (``others:N``) are told apart later and may be corrected until their turn
settles (``SpeakersLabelled``), while a mark, once settled, never changes. A sentence end decided
from a voice that is later corrected would stay wrong, so voices do not end sentences here (the
exports still start a new line or cue for each voice).

The settle rule wins: where the last word's mark settled before the next side spoke (a silence
settled it, or its recognizer's writing settles on arrival), its mark stays as settled, and only
the capital of the next word follows the change. Words with no writing of their own in the
recognizer-marks decoder (a language the punctuation model does not know) stay unmarked, as
everywhere else.
"""

from __future__ import annotations

from engine.speakers.labels import OTHERS, is_others
from engine.words import SENTENCE_END_MARKS


def side(speaker: str) -> str:
    """The side a speaker id belongs to: "me", "others" (any voice of the others), or the id
    itself ("" in a one-source session)."""
    return OTHERS if is_others(speaker) else speaker


def starts_turn(before: str | None, speaker: str) -> bool:
    """Whether a word of ``speaker`` starts another side's turn after a word of ``before`` (None:
    no word before it, which starts a sentence anyway). Both are ``Word.speaker`` as appended."""
    return before is not None and side(before) != side(speaker)


def turn_end_mark(mark: str, otherwise: str = "period") -> str:
    """The mark of the last word of a turn: ``mark`` where it ends a sentence, else ``otherwise``."""
    return mark if mark in SENTENCE_END_MARKS else otherwise
