"""The vocabulary benchmark's material and scores (``python -m engine.evaluation.vocabulary``).

``vocabulary_sentences.txt``: meeting sentences, each rare term marked with its kind, its spoken
forms for the vocabulary and, where the spelling misleads a voice, what the voices read;
``vocabulary_distractors.txt``: 500 entries no sentence says. Scored per sentence:

- exact-form recall: a term counts where the sentence's transcript holds its words exactly as
  written, case and accents included (the marks around words aside);
- false insertions: each distractor written, and each said term written more often in a sentence
  than it says it, where the transcript without a vocabulary did not write it already;
- WER on the other words: the transcript aligned with the sentence, the errors on the words that
  are not a term's (and the words inserted away from a term) over those words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.evaluation.e2e_score import align
from engine.vocabulary import Entry, Vocabulary, parse_entry, read_vocabulary
from engine.words import word_core

__all__ = [
    "KINDS",
    "PARTS",
    "Sentence",
    "Term",
    "load_distractors",
    "load_sentences",
    "score_sentences",
    "sentences_vocabulary",
]

HERE = Path(__file__).resolve().parent
SENTENCES = HERE / "vocabulary_sentences.txt"
DISTRACTORS = HERE / "vocabulary_distractors.txt"
KINDS = ("name", "product", "acronym", "place", "medicine")
PARTS = ("all", "tune", "held-out")
MARKED = re.compile(r"\[(\w+):\s*([^\]~|]+?)\s*(?:~\s*([^\]|]+?)\s*)?(?:\|\s*([^\]]+?)\s*)?\]")


@dataclass(frozen=True)
class Term:
    kind: str
    entry: Entry  # the term as written, with the spoken forms its vocabulary entry lists
    said: str  # what the voices read


@dataclass(frozen=True)
class Sentence:
    number: int  # 1-based, in the file's order of sentences
    written: str  # the sentence as written, its terms in their form
    said: str  # what the voices read
    terms: tuple[Term, ...]

    @property
    def text(self) -> str:
        """What the voices read (``e2e_speech.synthesize`` reads ``text``)."""
        return self.said

    @property
    def part(self) -> str:
        return "tune" if self.number % 2 == 0 else "held-out"


def parse_sentence(number: int, line: str) -> Sentence:
    terms = []

    def term(match: re.Match) -> str:
        kind, written, said, spoken = match.groups()
        if kind not in KINDS:
            raise ValueError(f"sentence {number}: unknown kind {kind!r}")
        entry = parse_entry(written + (f": {spoken}" if spoken else ""))
        terms.append(Term(kind, entry, said or written))
        return written

    written = MARKED.sub(term, line)
    said = MARKED.sub(lambda m: m.group(3) or m.group(2), line)
    return Sentence(number, written, said, tuple(terms))


def load_sentences(path: Path = SENTENCES, part: str = "all", count: int | None = None) -> list[Sentence]:
    lines = [x.strip() for x in path.read_text(encoding="utf-8").splitlines()]
    sentences = [
        parse_sentence(n, x) for n, x in enumerate((x for x in lines if x and not x.startswith("#")), 1)
    ]
    chosen = [s for s in sentences if part == "all" or s.part == part]
    return chosen[:count] if count is not None else chosen


def sentences_vocabulary(sentences: Sequence[Sentence]) -> Vocabulary:
    """The vocabulary a user would have for these meetings: every term said, with its spoken forms."""
    entries = {}
    for s in sentences:
        for t in s.terms:
            entries.setdefault(t.entry.key, t.entry)
    return Vocabulary(tuple(entries.values()))


def load_distractors(path: Path = DISTRACTORS) -> Vocabulary:
    return read_vocabulary(path)


def _cores(words: Sequence[str]) -> list[str]:
    return [c for c in (word_core(w) for w in words) if c]


def _count(term: str, words: Sequence[str]) -> int:
    parts = term.split()
    return sum(list(words[i : i + len(parts)]) == parts for i in range(len(words) - len(parts) + 1))


def score_sentences(
    sentences: Sequence[Sentence],
    transcripts: Sequence[Sequence[str]],
    distractors: Vocabulary,
    baseline: Sequence[Sequence[str]] | None = None,
) -> dict:
    """Recall, insertions and WER of ``transcripts`` (each sentence's words as shown); an
    insertion is a term written more often than in ``baseline`` (the transcript without a
    vocabulary: what the recognizer wrote on its own is not the vocabulary's doing)."""
    said_terms = {t.entry.term for s in sentences for t in s.terms}
    found = {k: [0, 0] for k in KINDS}  # hit, total
    misses, inserted, said_extra = [], [], 0
    errors = other_words = hyp_words = 0
    for k, (sentence, transcript) in enumerate(zip(sentences, transcripts)):
        hyp = _cores(transcript)
        before = _cores(baseline[k]) if baseline is not None else []
        hyp_words += len(hyp)
        for t in sentence.terms:
            hit = _count(t.entry.term, hyp) > 0
            found[t.kind][0] += hit
            found[t.kind][1] += 1
            if not hit:
                misses.append({"sentence": sentence.number, "term": t.entry.term, "written": " ".join(hyp)})
        for d in distractors:
            if d.term not in said_terms and _count(d.term, hyp) > _count(d.term, before):
                inserted.append({"sentence": sentence.number, "term": d.term, "written": " ".join(hyp)})
        own = _cores(sentence.written.split())
        for term in said_terms:
            said_extra += max(0, _count(term, hyp) - max(_count(term, own), _count(term, before)))
        e, n = _other_errors(sentence, own, hyp)
        errors, other_words = errors + e, other_words + n
    hits, total = sum(v[0] for v in found.values()), sum(v[1] for v in found.values())
    insertions = len(inserted) + said_extra
    return {
        "terms": total,
        "exact_recall_pct": round(100 * hits / total, 1) if total else None,
        "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in found.items() if v[1]},
        "words": hyp_words,
        "false_insertions": insertions,
        "insertions_per_2000_words": round(2000 * insertions / hyp_words, 2) if hyp_words else None,
        "distractors_written": inserted,
        "other_words_wer_pct": round(100 * errors / other_words, 2) if other_words else None,
        "missed": misses,
    }


def _other_errors(sentence: Sentence, own: list[str], hyp: list[str]) -> tuple[int, int]:
    """(errors, words) on ``own``'s words that are no term's."""
    is_term = [False] * len(own)
    for t in sentence.terms:
        parts = t.entry.term.split()
        for i in range(len(own) - len(parts) + 1):
            if own[i : i + len(parts)] == parts:
                is_term[i : i + len(parts)] = [True] * len(parts)
    near_term = set()
    for i, flag in enumerate(is_term):
        if flag:
            near_term |= {i - 1, i, i + 1}
    errors, last = 0, -1
    for i, j in align(own, hyp):
        if i is not None:
            last = i
            if not is_term[i] and (j is None or own[i].lower() != hyp[j].lower()):
                errors += 1
        elif last not in near_term and last + 1 not in near_term:
            errors += 1  # inserted away from a term: a term heard as several words is the term's miss
    return errors, is_term.count(False)
