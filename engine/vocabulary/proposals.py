"""The terms a text proposes for the vocabulary: an agenda, a list of attendees, an email.

A word is proposed where it is

- capitalised but not at a sentence's start, a common word too ("with Siobhan and John"; a run
  of such words is one name: "Małgorzata Szczepańska");
- written with an inner capital or a digit ("PostgreSQL", "iPhone", "Q3", "S3");
- unknown to plain English (``word_list``): "kubectl", "nginx".

A line's first word counts as a sentence's start only where it is a plain English word: a list
of attendees starts each line with a name. Common words ("The", "Monday") are never proposed
on their capital alone, nor is a common word capitalised in a title ("Weekly Platform Sync"),
nor a term already in the vocabulary.
"""

from __future__ import annotations

import re

from engine.vocabulary.entries import MAX_TERM_CHARACTERS, MAX_TERM_WORDS, Entry, Vocabulary, term_key
from engine.vocabulary.word_list import WordList, english_words

__all__ = ["propose_terms"]

# A word: letters, digits, and inner apostrophes, hyphens, dots or ampersands ("O'Neill", "AT&T").
WORD = re.compile(r"[^\W_](?:[\w'’&.-]*[^\W_])?")
SENTENCE_END = re.compile(r"[.!?:;]\s*$|^\s*$|^\s*[-*•\d.)]+\s*$")
# Calendar and other capitalised words no one adds to a vocabulary.
ALWAYS_CAPITAL = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december mr mrs ms dr".split()
)


def _shape(word: str) -> str | None:
    """Why ``word`` is proposed whatever its place, or None."""
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        return "digits"
    if any(c.isupper() for c in word[1:]) and any(c.islower() for c in word):
        return "inner capital"
    return None


FUNCTION_RANK = 100  # "The", "And", "With": capitalised for emphasis or a title, never a name
SUFFIXES = ("s", "es", "ed", "d", "ing", "ly", "er", "ers", "'s", "’s")


def plain_english(word: str, words: WordList) -> bool:
    """Whether ``word`` is plain English: in the list, or a word of it with an ending ("buckets",
    "rolled"), or two words of it joined ("rollout", "workstream")."""
    folded = word.casefold()
    if words.knows(folded):
        return True
    for suffix in SUFFIXES:
        stem = folded[: -len(suffix)]
        if folded.endswith(suffix) and len(stem) > 2 and (words.knows(stem) or words.knows(stem + "e")):
            return True
    return any(words.is_common(folded[:i]) and words.is_common(folded[i:]) for i in range(3, len(folded) - 2))


def propose_terms(
    text: str, vocabulary: Vocabulary = Vocabulary(), words: WordList | None = None
) -> list[Entry]:
    """The terms ``text`` proposes, in the order they first appear, each once, none already in
    ``vocabulary``."""
    words = english_words() if words is None else words
    found: dict[str, str] = {}

    def propose(term: str) -> None:
        term = term.strip(".-'’")
        key = term_key(term)
        if term and len(term) <= MAX_TERM_CHARACTERS and key not in found and vocabulary.find(term) is None:
            found[key] = term

    for line in text.splitlines():
        run: list[str] = []
        previous_end = 0
        long_words = [w for w in WORD.findall(line) if len(w) > 3 and w.isalpha()]
        title = sum(w[0].isupper() for w in long_words) > 0.6 * len(long_words) > 1
        for match in WORD.finditer(line):
            word = match.group().rstrip(".")
            before = line[previous_end : match.start()]
            at_start = previous_end == 0 and SENTENCE_END.search(before) is not None
            at_start = at_start or (previous_end > 0 and re.search(r"[.!?]\s*$", before) is not None)
            previous_end = match.end()
            folded = word.casefold()
            plain_first = at_start and plain_english(word, words)
            named = word[:1].isupper() and not plain_first and folded not in ALWAYS_CAPITAL
            named = named and not (words.is_common(folded) and at_start)
            joined = run and not re.search(r"[,.;:!?()]", before) and len(run) < MAX_TERM_WORDS
            spelled = _shape(word) != "digits"
            plain_capital = words.is_common(folded) and (title or words.rank[folded] < FUNCTION_RANK)
            if named and spelled and (word.isupper() or not plain_capital or joined):
                if not joined and run:
                    propose(" ".join(run))
                    run = []
                run.append(word)
                continue
            if run:
                propose(" ".join(run))
                run = []
            if _shape(word) or (word.isalpha() and len(word) > 2 and not plain_english(word, words)):
                propose(word)
        if run:
            propose(" ".join(run))
    return [Entry(term) for term in found.values()]
