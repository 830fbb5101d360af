"""Recognized words matched against a vocabulary by how they sound, and replaced by its terms.

After recognition, every run of up to a few recognized words is compared with each entry: its
term and its spoken forms, as text (letters only, any case: "Postgre SQL" is "PostgreSQL") and
as phonemes (``phonemes``: "graph on a" sounds like "Grafana"). A run is replaced only where

- its letters are a spoken form's, or the term's, accents aside ("Krakow" is "Kraków"; a term
  that is one everyday word, "Mark", only by a spoken form: every "mark" is not the name);
- or it sounds like the term or a spoken form within ``THRESHOLD``; where every word of the run
  is a common English word (``word_list``), or the term or the run is short (``SHORT_SOUNDS``:
  "peg or" and "Packer"), within ``COMMON_THRESHOLD`` only, and never for one common word
  alone: "right" sounds exactly like "Wright", and the vocabulary must never write a term that
  was not said. Nor is a run that holds a word the recognizer wrote as letters or a
  number ("OKR", "GD", "2.0": it heard letters, not a word), or that begins or ends in "the".

Runs are taken best first (the closest, then the longest), none overlapping another. A run
is written as heard where another entry sounds nearly as close to some of its words
(``MARGIN``; ``LONG_MARGIN`` where that entry is heard over more words, none where over
fewer: the run explains more of them): a mangled name that is one of two entries ("Mero":
Miro or Xero) is left as the recognizer wrote it. A
replacement keeps the times: a term spans the replaced words' start to end (a term of several
words shares that span by the length of its words), takes their least confidence, and keeps
the marks the recognizer wrote around them. ``match_vocabulary`` is a pure function of the
words: the same words and vocabulary give the same result.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.vocabulary.entries import Entry, Vocabulary
from engine.vocabulary.phonemes import PhonemeError, distance, phonemes, speakable
from engine.vocabulary.word_list import WordList, english_words
from engine.words import Word, word_core

log = logging.getLogger(__name__)

__all__ = ["COMMON_THRESHOLD", "THRESHOLD", "Match", "Matched", "VocabularyMatcher", "match_vocabulary"]

THRESHOLD = 0.24  # the distance (``phonemes.distance``) below which a run of words is the term
COMMON_THRESHOLD = 0.13  # the same for a run of common words only
MARGIN = 0.06  # a match is written only where no other entry is this close to its words
LONG_MARGIN = 0.1  # the same for another entry heard over more words: it explains more of them
MAX_EXTRA_WORDS = 2  # a term of n words may have been heard as up to n + 2 words
# A term that is one everyday word ("Mark", "Hope") is not matched by its letters: every "mark"
# is not the name. Less frequent ones are ("Jenkins", "Consul": written the term's way).
EVERYDAY_RANK = 5_000
MIN_SOUNDS = 4  # a shorter term or run (a syllable) is matched by its letters only
SHORT_SOUNDS = 5  # up to this many sounds, a run must be as close as common words must
# A word said weakly inside a phrase: espeak-ng, given the word alone, says it in full ("a" as
# the letter's name).
WEAK = {"a": "ə", "the": "ðə", "to": "tə", "of": "əv", "and": "ənd", "for": "fəɹ", "an": "ən", "or": "əɹ"}


@dataclass(frozen=True)
class Match:
    """Recognized words ``start``..``end`` (exclusive) are ``entry``'s term, at ``distance``
    (0: by their letters)."""

    start: int
    end: int
    entry: Entry
    distance: float


@dataclass(frozen=True)
class Matched:
    """``match_vocabulary``'s result: the words with the terms in, which of them are a term's
    (index in ``words`` -> the form to write, whatever the punctuation's case), the matches."""

    words: list[Word]
    forms: dict[int, str]
    matches: list[Match]


def letters(text: str) -> str:
    """``text``'s letters and digits, in lower case and without accents ("Kraków" -> "krakow"):
    a recognizer that writes "Krakow" wrote the term."""
    return "".join(c for c in speakable(text).casefold() if c.isalnum())


def _written_on_purpose(core: str) -> bool:
    """A word the recognizer wrote as heard letter by letter or as a number ("OKR", "2.0",
    "iPhone"): another term that sounds like it is not what was said."""
    if any(c.isdigit() for c in core):
        return True
    cased = [c for c in core if c.isalpha()]
    return len(cased) > 1 and (all(c.isupper() for c in cased) or any(c.isupper() for c in cased[1:]))


def _spelled(term: str) -> str | None:
    """An acronym as its letters are said ("AWS" -> "A W S"); None for a term that is not one."""
    bare = term.replace(".", "")
    return " ".join(bare) if bare.isalpha() and bare.isupper() and 2 <= len(bare) <= 6 else None


def _bigrams(sounds: str) -> set[str]:
    return {sounds[i : i + 2] for i in range(len(sounds) - 1)}


class VocabularyMatcher:
    """A vocabulary prepared for matching: its phonemes asked of espeak-ng once."""

    def __init__(self, vocabulary: Vocabulary, words: WordList | None = None):
        self.vocabulary = vocabulary
        self.words = english_words() if words is None else words
        self.by_letters: dict[str, Entry] = {}
        self.variants: list[tuple[Entry, str, int]] = []  # (entry, phonemes, words said)
        texts, owners, spelled_words = [], [], 1
        self.acronyms: set[str] = set()  # the letters of the terms that are acronyms
        for entry in vocabulary:
            rank = self.words.rank.get(letters(entry.term), EVERYDAY_RANK)
            everyday = (
                len(entry.term.split()) == 1 and not _written_on_purpose(entry.term) and rank < EVERYDAY_RANK
            )
            if not everyday:
                self.by_letters.setdefault(letters(entry.term), entry)
            for form in entry.spoken:
                self.by_letters.setdefault(letters(form), entry)
            # An acronym is matched by its letters ("AWS", "A W S") and the spoken forms the user
            # gave, never by how its letters sound: a recognizer that heard the letters wrote
            # them, and words that merely sound like them ("are two O" for RTO) were another thing.
            spelled = _spelled(entry.term)
            spelled_words = max(spelled_words, len(spelled.split()) if spelled else 1)
            if spelled:
                self.acronyms.add(letters(entry.term))
            sounded = (*entry.spoken,) if spelled else (entry.term, *entry.spoken)
            for text in sounded:
                texts.append(text)
                owners.append(entry)
        self.index: dict[str, list[int]] = {}
        try:
            said = phonemes(texts)
            self.problem = ""
        except PhonemeError as exc:  # the letters still match; said once, where the words are
            said, self.problem = [""] * len(texts), f"{exc}; the vocabulary matches spellings only"
            log.warning(self.problem)
        for entry, text, sounds in zip(owners, texts, said):
            if len(sounds) < MIN_SOUNDS:
                continue
            self.variants.append((entry, sounds, len(text.split())))
            for bigram in _bigrams(sounds):
                self.index.setdefault(bigram, []).append(len(self.variants) - 1)
        longest_said = max((len(t.split()) for t in texts), default=1)
        self.longest = max(longest_said + MAX_EXTRA_WORDS, spelled_words)  # "G D P R" by its letters

    def _word_sounds(self, cores: list[str]) -> list[str]:
        if self.problem:
            return [""] * len(cores)
        said = phonemes([c for c in cores if c.lower() not in WEAK])
        it = iter(said)
        return [WEAK[c.lower()] if c.lower() in WEAK else next(it) for c in cores]

    def matches(self, words: Sequence[Word]) -> list[Match]:
        """Every match, best first, none overlapping."""
        if not self.vocabulary or not words:
            return []
        cores = [word_core(w.written or w.text) for w in words]  # the recognizer's capitals
        sounds = self._word_sounds(cores)
        common = [self.words.is_common(letters(c)) for c in cores]
        chosen = [_written_on_purpose(c) for c in cores]
        found: list[Match] = []
        for start in range(len(words)):
            if not cores[start]:
                continue
            for end in range(start + 1, min(len(words), start + self.longest) + 1):
                if not cores[end - 1]:
                    continue
                found.extend(self._candidates(start, end, cores, sounds, common, chosen))
        found.sort(key=lambda m: (m.distance, -(m.end - m.start), m.start))
        taken: set[int] = set()
        kept = []
        for match in found:
            span = set(range(match.start, match.end))
            if span & taken or match.distance > self._limit(match, common):
                continue
            taken |= span
            if not any(_rivals(match, other) for other in found):
                kept.append(match)
        return sorted(kept, key=lambda m: m.start)

    def _limit(self, match: Match, common: list[bool]) -> float:
        return COMMON_THRESHOLD if all(common[match.start : match.end]) else THRESHOLD

    def _candidates(self, start: int, end: int, cores, sounds, common, chosen) -> list[Match]:
        """Each entry that words ``start``..``end`` sound like, within its limit plus
        the rivals' margin (the nearly-as-close ones are rivals of a match, never matches)."""
        key = letters("".join(cores[start:end]))
        entry = self.by_letters.get(key)
        # An acronym's letters across words count where each word is one letter ("A W S"):
        # "I am" is not IAM.
        spread = key in self.acronyms and any(len(letters(c)) > 1 for c in cores[start:end])
        if entry is not None and not (spread and end - start > 1):
            return [Match(start, end, entry, 0.0)]
        if any(chosen[start:end]) or cores[start].lower() == "the" or cores[end - 1].lower() == "the":
            return []  # no term begins or ends in "the": "the API", "hero the" are not terms
        heard = "".join(sounds[start:end])
        all_common = all(common[start:end])
        if len(heard) < MIN_SOUNDS or (all_common and end - start == 1):
            return []
        limit = (COMMON_THRESHOLD if all_common else THRESHOLD) + max(MARGIN, LONG_MARGIN)
        shared = Counter(i for b in _bigrams(heard) for i in self.index.get(b, ()))
        best: dict[str, Match] = {}
        for i, count in shared.items():
            entry, said, term_words = self.variants[i]
            if end - start > term_words + MAX_EXTRA_WORDS or not 0.7 <= len(heard) / len(said) <= 1.4:
                continue
            if count < 0.3 * min(len(heard), len(said)) - 1:  # too few sounds in common to be close
                continue
            far = distance(heard, said)
            if min(len(heard), len(said)) <= SHORT_SOUNDS:
                far = far if far <= COMMON_THRESHOLD else 1.0  # a short word: a sound or two is a lot
            if far <= limit and (entry.term not in best or far < best[entry.term].distance):
                best[entry.term] = Match(start, end, entry, far)
        return list(best.values())

    def apply(self, words: Sequence[Word]) -> Matched:
        """``words`` with each match replaced by its term (``match_vocabulary``)."""
        matches = self.matches(words)
        out: list[Word] = []
        forms: dict[int, str] = {}
        at = 0
        for match in matches:
            out.extend(words[at : match.start])
            for word in _term_words(match.entry.term, words[match.start : match.end]):
                forms[len(out)] = word.text
                out.append(word)
            at = match.end
        out.extend(words[at:])
        return Matched(out, forms, matches)


def _rivals(match: Match, other: Match) -> bool:
    """``other`` is another entry, heard in some of ``match``'s words and nearly as close: the
    words were one of two terms, and writing either may be writing one not said."""
    if match.distance == 0 or other.entry.term == match.entry.term:
        return False  # the recognizer wrote the term's letters (or sounds): it is the term
    if other.end <= match.start or match.end <= other.start:
        return False
    heard, over = match.end - match.start, other.end - other.start
    if over < heard:
        return False  # the match explains more of the words than the other entry
    return other.distance < match.distance + (LONG_MARGIN if over > heard else MARGIN)


def _term_words(term: str, replaced: Sequence[Word]) -> list[Word]:
    """The term's words in place of ``replaced``: their span shared by length, their least
    confidence, the marks the recognizer wrote before the first and after the last."""
    first, last = replaced[0], replaced[-1]
    parts = term.split()
    confidence = min(w.confidence for w in replaced)
    lead = first.written[: len(first.written) - len(first.written.lstrip())] if first.written else ""
    before = _before_core(first.written.strip()) if first.written else ""
    after = _after_core(last.written.strip()) if last.written else ""
    times: list[tuple[float | None, float | None]]
    if first.start is not None and last.end is not None:
        total = sum(len(p) for p in parts)
        times, at = [], first.start
        for p in parts:
            stop = at + (last.end - first.start) * len(p) / total
            times.append((round(at, 3), round(stop, 3)))
            at = stop
        times[-1] = (times[-1][0], last.end)
        times[0] = (first.start, times[0][1])
    else:
        times = [(None, None)] * len(parts)
    out = []
    for k, (part, (start, end)) in enumerate(zip(parts, times)):
        written = ""
        if first.written or last.written:
            written = (lead + before if k == 0 else " ") + part + (after if k == len(parts) - 1 else "")
        source = last if k == len(parts) - 1 else first
        out.append(replace(source, text=part, start=start, end=end, confidence=confidence, written=written))
    return out


def _before_core(written: str) -> str:
    core = word_core(written)
    return written[: written.find(core)] if core and core in written else ""


def _after_core(written: str) -> str:
    core = word_core(written)
    return written[written.find(core) + len(core) :] if core and core in written else ""


def match_vocabulary(words: Sequence[Word], vocabulary: Vocabulary) -> Matched:
    """``words`` with the runs that are ``vocabulary``'s terms replaced (see the module); a
    vocabulary with no entries changes nothing and asks espeak-ng nothing."""
    if not vocabulary:
        return Matched(list(words), {}, [])
    return VocabularyMatcher(vocabulary).apply(words)
