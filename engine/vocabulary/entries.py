"""A vocabulary: the names and terms a user wants written their way, one entry per line.

An entry is the term as written, then optionally a colon and the ways it is said, then
optionally a note:

    PostgreSQL: post gres Q L, postgres   # the database
    Siobhan: shiv awn
    kubectl: cube control, cube cuttle
    Małgorzata Szczepańska

- The term ends at the first colon followed by a space (or ending the line), so a colon inside
  a term ("Re:Invent") stays part of it.
- The spoken forms are comma-separated, each written as it sounds in plain English words or
  letters ("post gres Q L"): recognition compares what it heard with them.
- A note begins at " #" (a space, then #) and runs to the end of the line; it is the user's own
  and recognition ignores it. A line starting with # is a comment; blank lines are allowed.

A bad line is refused whole with one message naming the line and what is wrong: a vocabulary
that half loads would leave the user guessing which of their terms count.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "MAX_SPOKEN_FORMS",
    "MAX_TERM_CHARACTERS",
    "MAX_TERM_WORDS",
    "Entry",
    "Vocabulary",
    "VocabularyError",
    "parse_entry",
    "parse_vocabulary",
]

MAX_TERM_CHARACTERS = 60  # a name or a product, not a sentence
MAX_TERM_WORDS = 5  # "Universidad Nacional Autónoma de México" fits; a phrase to say does not
MAX_SPOKEN_FORMS = 8
NOTE = re.compile(r"\s#")  # a note begins at whitespace then "#"
TERM_END = re.compile(r":(?=\s|$)")  # the colon that ends the term


class VocabularyError(ValueError):
    """A vocabulary line or file that cannot be used; its message is one line naming it."""


@dataclass(frozen=True)
class Entry:
    """One term: ``term`` as the user writes it, ``spoken`` the ways it is said (may be empty),
    ``note`` the user's own remark (recognition ignores it)."""

    term: str
    spoken: tuple[str, ...] = ()
    note: str = ""

    @property
    def key(self) -> str:
        """What two entries must not share: the term regardless of case and spacing."""
        return term_key(self.term)

    def line(self) -> str:
        """The entry as a vocabulary file line (``parse_entry`` reads it back equal)."""
        text = self.term + (": " + ", ".join(self.spoken) if self.spoken else "")
        return text + (f"  # {self.note}" if self.note else "")


@dataclass(frozen=True)
class Vocabulary:
    """Entries in the order they were given, no two with the same ``Entry.key``."""

    entries: tuple[Entry, ...] = ()

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def find(self, term: str) -> Entry | None:
        key = term_key(term)
        return next((e for e in self.entries if e.key == key), None)

    def merged(self, other: Vocabulary) -> Vocabulary:
        """This vocabulary and ``other``'s entries not already here (an entry here wins: the
        user's own file comes first, a session's file adds to it)."""
        keys = {e.key for e in self.entries}
        return Vocabulary(self.entries + tuple(e for e in other.entries if e.key not in keys))


def term_key(term: str) -> str:
    return " ".join(unicodedata.normalize("NFC", term).casefold().split())


def _control_character(text: str) -> str | None:
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf") and ch != "\t":
            return f"U+{ord(ch):04X}"
    return None


def parse_entry(text: str) -> Entry | None:
    """The entry on one line, or None for a blank line or a comment; ``VocabularyError`` (without
    the line number: ``parse_vocabulary`` adds it) for a bad one."""
    control = _control_character(text)
    if control is not None:
        raise VocabularyError(f"a control character ({control}); write the term in plain text")
    text = unicodedata.normalize("NFC", text).strip()
    if not text or text.startswith("#"):
        return None
    note = ""
    found = NOTE.search(text)
    if found is not None:
        text, note = text[: found.start()].rstrip(), text[found.end() :].strip()
    end = TERM_END.search(text)
    term, spoken_text = (text[: end.start()], text[end.end() :]) if end else (text, "")
    term = " ".join(term.split())
    if not term:
        raise VocabularyError("the term is empty; write it before the colon, as in 'PostgreSQL: post gres'")
    if len(term) > MAX_TERM_CHARACTERS:
        raise VocabularyError(
            f"the term is {len(term)} characters long; a term is a name or a word, at most "
            f"{MAX_TERM_CHARACTERS} characters"
        )
    if len(term.split()) > MAX_TERM_WORDS:
        raise VocabularyError(f"the term has {len(term.split())} words; at most {MAX_TERM_WORDS}")
    if not any(ch.isalnum() for ch in term):
        raise VocabularyError(f"the term {term!r} has no letter or digit")
    spoken = tuple(" ".join(s.split()) for s in spoken_text.split(",")) if spoken_text.strip() else ()
    if any(not s for s in spoken):
        raise VocabularyError("an empty spoken form (two commas, or one at the end); remove it")
    if len(spoken) > MAX_SPOKEN_FORMS:
        raise VocabularyError(f"{len(spoken)} spoken forms; at most {MAX_SPOKEN_FORMS}")
    for form in spoken:
        if len(form) > MAX_TERM_CHARACTERS * 2:
            raise VocabularyError(f"the spoken form {form[:20]!r}... is too long")
        if not any(ch.isalnum() for ch in form):
            raise VocabularyError(f"the spoken form {form!r} has no letter or digit")
    return Entry(term, tuple(dict.fromkeys(spoken)), note)


def parse_vocabulary(lines: Iterable[str], source: str = "vocabulary") -> Vocabulary:
    """Every entry of ``lines`` (a file's lines), in order; ``VocabularyError`` naming ``source``
    and the line number of the first bad line, or of a term given twice."""
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        try:
            entry = parse_entry(line.rstrip("\r\n"))
        except VocabularyError as exc:
            raise VocabularyError(f"{source}, line {number}: {exc}") from None
        if entry is None:
            continue
        if entry.key in seen:
            raise VocabularyError(
                f"{source}, line {number}: {entry.term!r} is already on line {seen[entry.key]}; "
                "keep one (put every spoken form on it)"
            )
        seen[entry.key] = number
        entries.append(entry)
    return Vocabulary(tuple(entries))
