"""The vocabulary every part of livecap speaks: words in, marks and case out."""

from __future__ import annotations

from dataclasses import dataclass

# Class order is part of the model contract (``punct_logits`` and ``case_logits``).
PUNCT_LABELS: tuple[str, ...] = ("none", "comma", "period", "question")
CASE_LABELS: tuple[str, ...] = ("lower", "capitalized", "upper")
MARK_TEXT = {"none": "", "comma": ",", "period": ".", "question": "?"}
SENTENCE_END_MARKS = frozenset({"period", "question"})


@dataclass(frozen=True)
class Word:
    """One recognized word. Times are seconds from the start of the stream, or None for text input."""

    text: str
    start: float | None = None
    end: float | None = None
    confidence: float = 1.0
    # The recognizer's own writing of the word, with its marks and capitals ("Budget,"), where it
    # writes one (Whisper); "" for recognizers that give bare lower-case words (Vosk, PocketSphinx).
    written: str = ""

    @property
    def has_times(self) -> bool:
        return self.start is not None and self.end is not None


def apply_case(text: str, case: str) -> str:
    """Render ``text`` in one of the three case classes."""
    if case == "upper":
        return text.upper()
    if case == "capitalized":
        return text[:1].upper() + text[1:]
    return text


def is_english(language: str | None) -> bool:
    """A recognizer language the English punctuation model fits (None: unknown, taken for English)."""
    return language is None or language.lower().split("-")[0] in ("en", "eng")
