"""The numbers benchmark's material and scores (``python -m engine.evaluation.numbers``).

The sentences (``numbers_sentences.txt``, beside this module) are the project's own, each with
its number expressions marked: ``[category: spoken => written | other written]``, or
``[category: text]`` where it is read and written alike. The voices read the spoken sentence;
the written sentence is the reference. A transcript's words are scored sentence by sentence:

- an expression is **exact** where the transcript holds one of its written forms as consecutive
  words, after the expression before it (words compared by ``word_core`` in lower case: the marks
  around a word and its capitals aside, "$42,000," is "$42,000", "U.S." stays "u.s.");
- **WER** is the word error rate against the written sentence, on the same words.

Half the sentences (the even lines) are for tuning the written-form step, the other half are
held out (``PARTS``): a figure reported on the held-out half was not tuned on.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.evaluation.e2e_score import align
from engine.words import word_core

__all__ = [
    "CATEGORIES",
    "NUMBER_CATEGORIES",
    "PARTS",
    "SENTENCES",
    "Expression",
    "Sentence",
    "by_part",
    "load_sentences",
    "match_words",
    "misses",
    "parse_line",
    "score_sentence",
    "spoken_words",
    "summarise",
]

SENTENCES = Path(__file__).with_name("numbers_sentences.txt")
# What the benchmark covers: numbers, and the other written forms a transcript must get right.
NUMBER_CATEGORIES = (
    "money", "percent", "time", "date", "ordinal", "phone", "version", "decimal", "range", "count", "words",
)  # fmt: skip
CATEGORIES = (*NUMBER_CATEGORIES, "hyphen", "abbreviation")
PARTS = ("all", "tune", "held-out")  # held-out: the odd sentences, never looked at while tuning
_MARKED = re.compile(r"\[(\w+): ([^\]]+)\]")


@dataclass(frozen=True)
class Expression:
    category: str
    spoken: str  # as the voices read it
    written: tuple[str, ...]  # as a person writes it: the first is the reference's, others also count

    @property
    def forms(self) -> list[list[str]]:
        """Each written form as the words a transcript must hold."""
        return [match_words(w) for w in self.written]


@dataclass(frozen=True)
class Sentence:
    number: int  # its place among the sentences, from 0
    spoken: str
    written: str
    expressions: tuple[Expression, ...]

    @property
    def text(self) -> str:
        """What the voices read (``e2e_speech.synthesize`` reads an excerpt's ``text``)."""
        return self.spoken

    @property
    def part(self) -> str:
        return "tune" if self.number % 2 == 0 else "held-out"


def parse_line(number: int, line: str) -> Sentence:
    """One line of the material; ``ValueError`` naming what is wrong with a malformed one."""
    expressions: list[Expression] = []

    def expression(match: re.Match, spoken: bool) -> str:
        category, body = match.group(1), match.group(2)
        if category not in CATEGORIES:
            raise ValueError(f"line {number + 1}: unknown category {category!r} (choose from {CATEGORIES})")
        said, _, written = (part.strip() for part in body.partition("=>"))
        forms = tuple(f.strip() for f in (written or said).split(" | "))
        if spoken:
            expressions.append(Expression(category, said, forms))
        return said if spoken else forms[0]

    spoken = _MARKED.sub(lambda m: expression(m, True), line)
    written = _MARKED.sub(lambda m: expression(m, False), line)
    if not expressions:
        raise ValueError(f"line {number + 1} marks no expression: {line!r}")
    if "[" in spoken or "]" in spoken:
        raise ValueError(f"line {number + 1} has a bracket outside an expression: {line!r}")
    return Sentence(number, spoken, written, tuple(expressions))


def load_sentences(path: Path = SENTENCES, part: str = "all", count: int | None = None) -> list[Sentence]:
    """The material's sentences (``part`` of them; the first ``count`` where given)."""
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}: choose from {', '.join(PARTS)}")
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    sentences = [parse_line(i, line) for i, line in enumerate(lines)]
    chosen = [s for s in sentences if part == "all" or s.part == part]
    return chosen[:count] if count is not None else chosen


def match_words(text: str) -> list[str]:
    """``text``'s words as they are compared: without the marks around them, in lower case."""
    return [w for w in (word_core(t).lower() for t in text.split()) if w]


def spoken_words(text: str) -> list[str]:
    """What a recognizer that writes spoken forms writes for ``text`` when it hears every word
    right: lower case, no marks, hyphenated words apart ("built-in" is "built in")."""
    return [w for t in text.replace("-", " ").split() if (w := word_core(t).lower())]


def _find(form: list[str], words: Sequence[str], start: int) -> int | None:
    """Where ``form`` ends in ``words`` at or after ``start``, else None."""
    n = len(form)
    for i in range(start, len(words) - n + 1):
        if list(words[i : i + n]) == form:
            return i + n
    return None


def score_sentence(sentence: Sentence, transcript: Iterable[str]) -> dict:
    """One sentence's transcript (its words as written) against the sentence: each expression
    exact or not, in order, and the word errors against the written sentence."""
    words = match_words(" ".join(transcript))
    reference = match_words(sentence.written)
    hits, at = [], 0
    for expression in sentence.expressions:
        ends = [e for e in (_find(f, words, at) for f in expression.forms) if e is not None]
        hits.append(bool(ends))
        at = min(ends) if ends else at
    pairs = align(reference, words)
    errors = sum(1 for i, j in pairs if i is None or j is None or reference[i] != words[j])
    return {"hits": hits, "errors": errors, "reference_words": len(reference), "heard": " ".join(words)}


def _rate(hit: int, total: int) -> float | None:
    return round(100 * hit / total, 1) if total else None


def summarise(sentences: Sequence[Sentence], scores: Sequence[dict]) -> dict:
    """Exact-match rates in percent (all number expressions; each category; the hyphenated words
    and abbreviations apart) and WER in percent, over ``sentences`` and their ``scores``."""
    hit, total = Counter(), Counter()
    for sentence, score in zip(sentences, scores):
        for expression, ok in zip(sentence.expressions, score["hits"]):
            total[expression.category] += 1
            hit[expression.category] += ok
    numbers = [c for c in NUMBER_CATEGORIES if total[c]]
    words = sum(s["reference_words"] for s in scores)
    return {
        "number_exact_pct": _rate(sum(hit[c] for c in numbers), sum(total[c] for c in numbers)),
        "number_expressions": sum(total[c] for c in numbers),
        "all_exact_pct": _rate(sum(hit.values()), sum(total.values())),
        "by_category_pct": {c: _rate(hit[c], total[c]) for c in CATEGORIES if total[c]},
        "wer_pct": _rate(sum(s["errors"] for s in scores), words),
        "sentences": len(scores),
    }


def misses(sentences: Sequence[Sentence], scores: Sequence[dict]) -> list[dict]:
    """Every expression a transcript did not hold: what was expected, what it wrote."""
    out = []
    for sentence, score in zip(sentences, scores):
        for expression, ok in zip(sentence.expressions, score["hits"]):
            if not ok:
                out.append(
                    {
                        "sentence": sentence.number + 1,
                        "category": expression.category,
                        "expected": expression.written[0],
                        "heard": score["heard"],
                    }
                )
    return out


def by_part(sentences: Sequence[Sentence], scores: Sequence[dict]) -> dict:
    """``summarise`` over all the sentences, the tuning half and the held-out half."""
    groups: dict[str, list[int]] = defaultdict(list)
    for k, sentence in enumerate(sentences):
        groups["all"].append(k)
        groups[sentence.part].append(k)
    return {
        part: summarise([sentences[k] for k in groups[part]], [scores[k] for k in groups[part]])
        for part in PARTS
        if groups[part]
    }
