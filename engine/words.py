"""The vocabulary every part of livecap speaks: words in, marks and case out."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

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


# -- words as recognizers write them ------------------------------------------------------------
# Characters a recognizer attaches to a word that are not part of it: marks, quotes, brackets.
# Symbols are not among them: "%", "$", "€", "£", "#", "&", "@", "+", "/" are words or parts of
# words ("12%", "$8,000", "AT&T", "and/or"), never marks, and never dropped.
STRIPPED = "\"'“”‘’.,?!:;…()[]{}¿¡-–—"
# A symbol that belongs to the number before it ("12 %" is "12%") or after it ("$ 8" is "$8").
AFTER_NUMBER = frozenset("%‰")
BEFORE_NUMBER = frozenset("$€£¥#")
# Letters with a period after each: "U.S.", "e.g.", "a.m."; the last period is the word's own.
_ABBREVIATION = re.compile(r"(?:[^\W\d_]\.){2,}")


def is_abbreviation(text: str) -> bool:
    """Whether ``text`` is letters each followed by a period ("U.S.", "e.g."): its periods are
    part of the word, the last one included, and none of them is a mark."""
    return _ABBREVIATION.fullmatch(text) is not None


def word_core(written: str) -> str:
    """``written`` without the marks, quotes and brackets around it ("Budget," → "Budget"). Inner
    marks stay ("don't", "3.5", "42,000"), symbols stay ("12%", "$8,000"), and so do an
    abbreviation's periods ("U.S.," → "U.S.")."""
    text = written.strip().lstrip(STRIPPED)
    core = text.rstrip(STRIPPED)
    abbreviation = _ABBREVIATION.match(text)
    if abbreviation is not None and abbreviation.group()[:-1] == core:
        return abbreviation.group()
    return core


def bare_word(written: str) -> str:
    """The word as livecap's punctuation engine reads it: ``word_core`` in lower case ("Budget,"
    → "budget", "$8,000," → "$8,000", "U.S." → "u.s.")."""
    return word_core(written).lower()


def continues_word(previous: str, piece: str) -> bool:
    """The one rule for joining a recognizer's pieces into words: whether ``piece`` belongs to
    the word written ``previous`` (both as the recognizer wrote them; a leading space on
    ``piece`` is the recognizer starting a new word there).

    Whisper writes a word as pieces, and says which ones continue the word before: they come
    without a leading space. A piece that starts with a mark or a symbol and comes without a
    space (",000", ".30", "-in", "'s", ".S.", "%") is the rest of the word before it, never a
    word of its own: "42,000", "10.30", "built-in", "U.S.", "12%". A piece that starts with a
    letter or a digit and no space is a word (Chinese and Japanese are written without spaces).
    Whatever the spaces, "%" after a number, a number after "$", and ",000" or ".30" after a
    number belong to it ("12 %", "$ 8", "42 ,000")."""
    core, last = piece.strip(), previous.strip()
    if not core or not last:
        return False
    if not piece[0].isspace() and not core[0].isalnum():
        return True
    if (core in AFTER_NUMBER and last[-1].isdigit()) or (last in BEFORE_NUMBER and core[0].isdigit()):
        return True
    return last[-1].isdigit() and core[0] in ",." and core[1:2].isdigit()


class Piece(NamedTuple):
    """A word or a piece of one as a recognizer writes it (faster-whisper's ``Word`` has the
    same fields): ``word`` with a leading space where it starts a new word."""

    word: str
    start: float
    end: float
    probability: float


def join_pieces(pieces: Iterable[Any]) -> list[Piece]:
    """``pieces`` (each with ``word``, ``start``, ``end`` and ``probability``, as faster-whisper
    gives them) joined into words by ``continues_word``: a word's writing is its pieces' run
    together, its times span them, and its probability is the least of theirs."""
    words: list[Piece] = []
    for piece in pieces:
        if words and continues_word(words[-1].word, piece.word):
            last = words[-1]
            words[-1] = Piece(
                last.word.rstrip() + piece.word.strip(),
                last.start,
                max(last.end, piece.end),
                min(last.probability, piece.probability),
            )
        else:
            words.append(Piece(piece.word, piece.start, piece.end, piece.probability))
    return words
