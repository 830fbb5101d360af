"""The vocabulary every part of livecap speaks: words in, marks and case out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

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
    # Who spoke it: a speaker id of ``engine.speakers.labels`` ("me", "others", "others:2"), or ""
    # where the session has one side only (no label shown).
    speaker: str = ""
    # The word's prosody as measured on its audio (``engine.prosody.PROSODY_FIELDS``, NaN where it
    # could not be told), or () where nobody measured it (text input, a journal read back).
    prosody: tuple[float, ...] = ()

    @property
    def has_times(self) -> bool:
        return self.start is not None and self.end is not None


# How ``word_from_dict`` reads a field from JSON; a field not named here is taken as it stands.
_READ = {
    "text": str,
    "start": lambda v: None if v is None else float(v),
    "end": lambda v: None if v is None else float(v),
    "confidence": float,
    "written": lambda v: str(v or ""),
    "speaker": lambda v: str(v or ""),
}
_ALWAYS = ("text", "start", "end", "confidence")  # written even when they hold their default
# Not saved: prosody is evidence for the live punctuation, measured again from audio where needed.
_NOT_SAVED = ("prosody",)


def word_to_dict(word: Word, text_key: str = "text") -> dict[str, Any]:
    """``word`` as JSON (a transcript's words and the journal's lines): its text under
    ``text_key``, its times and confidence, and every other field that is set."""
    out: dict[str, Any] = {}
    for f in fields(Word):
        if f.name in _NOT_SAVED:
            continue
        value = getattr(word, f.name)
        if f.name in _ALWAYS or value != f.default:
            out[text_key if f.name == "text" else f.name] = value
    return out


def word_from_dict(data: Mapping[str, Any], text_key: str = "text") -> Word:
    """The ``Word`` that ``word_to_dict`` wrote (other keys in ``data`` are ignored); a field
    missing from ``data`` takes its default, and the text must be there (KeyError)."""
    values = {"text": str(data[text_key])}
    for f in fields(Word):
        if f.name != "text" and f.name not in _NOT_SAVED and f.name in data:
            values[f.name] = _READ.get(f.name, lambda v: v)(data[f.name])
    return Word(**values)


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
