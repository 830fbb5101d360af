"""Scores of the end-to-end evaluation (``python -m engine.evaluation.e2e``): a recognized, punctuated
transcript against the reference excerpts.

The transcript is aligned to the reference words by edit distance (lowercase
words; per excerpt, the recognized words being split between excerpts at the
middle of each silence). Reported: WER; precision, recall and F1 per mark and
micro-averaged over comma, period and question on the aligned word pairs (the
reference word's mark against the mark after the recognized word aligned to
it), and a "strict" variant that also counts the marks of deleted and inserted
words; casing of correctly recognized words (displayed case class against the
reference spelling).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from engine.evaluation.e2e_speech import Excerpt
from engine.evaluation.scores import HitCounts
from engine.punctuation.labelled_text import case_of
from engine.words import CASE_LABELS, PUNCT_LABELS

MARKS = PUNCT_LABELS[1:]  # "none" is no mark
Pair = tuple[int | None, int | None]  # (reference index, hypothesis index); None: deleted / inserted


def align(ref: Sequence[str], hyp: Sequence[str]) -> list[Pair]:
    """Levenshtein alignment of two word sequences (case-insensitive), in order.

    Matches and substitutions pair a reference word with a hypothesis word;
    ``(i, None)`` is a deletion, ``(None, j)`` an insertion. Among the alignments
    with the fewest edits it takes one with the most matches ("the mat" / "mat
    today" pairs the two "mat"s), and it pairs a lone differing word rather than
    deleting and inserting it.
    """
    a, b = [w.lower() for w in ref], [w.lower() for w in hyp]
    n, m = len(a), len(b)
    gap = n + m + 1  # an insertion or deletion; a substitution costs gap + 1: edits first, then substitutions
    d = [[j * gap for j in range(m + 1)]] + [[i * gap] + [0] * m for i in range(1, n + 1)]
    for i in range(1, n + 1):
        row, up, ai = d[i], d[i - 1], a[i - 1]
        for j in range(1, m + 1):
            row[j] = min(up[j - 1] + (0 if ai == b[j - 1] else gap + 1), up[j] + gap, row[j - 1] + gap)
    pairs: list[Pair] = []
    i, j = n, m
    while i or j:
        if i and j and d[i][j] == d[i - 1][j - 1] + (0 if a[i - 1] == b[j - 1] else gap + 1):
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif i and d[i][j] == d[i - 1][j] + gap:
            i -= 1
            pairs.append((i, None))
        else:
            j -= 1
            pairs.append((None, j))
    return pairs[::-1]


def word_errors(ref: Sequence[str], hyp: Sequence[str], pairs: Sequence[Pair]) -> dict:
    subs = sum(1 for i, j in pairs if i is not None and j is not None and ref[i].lower() != hyp[j].lower())
    dels = sum(1 for i, j in pairs if j is None)
    ins = sum(1 for i, j in pairs if i is None)
    return {
        "reference_words": len(ref),
        "recognized_words": len(hyp),
        "substitutions": subs,
        "deletions": dels,
        "insertions": ins,
        "wer": round((subs + dels + ins) / len(ref), 4) if ref else None,
    }


def _prf(tp: int, fp: int, fn: int) -> dict:
    hits = HitCounts(tp, fp, fn)
    return {
        "precision": round(hits.precision, 4),
        "recall": round(hits.recall, 4),
        "f1": round(hits.f1, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
    }


def mark_scores(
    ref_marks: Sequence[str], hyp_marks: Sequence[str], pairs: Sequence[Pair], strict: bool = False
) -> dict:
    """Per-mark and micro-averaged P/R/F1 over comma, period, question.

    On the aligned pairs only, or (``strict``) also counting a deleted reference word's mark
    as missed and an inserted word's mark as spurious."""
    counts = _mark_counts(ref_marks, hyp_marks, pairs, strict)
    out = {m: _prf(*c) for m, c in counts.items()}
    out["micro"] = _prf(*micro_counts(counts))
    return out


def micro_counts(counts: dict[str, list[int]]) -> tuple[int, int, int]:
    """(tp, fp, fn) summed over the marks."""
    return tuple(sum(c[k] for c in counts.values()) for k in range(3))


def _mark_counts(
    ref_marks: Sequence[str], hyp_marks: Sequence[str], pairs: Sequence[Pair], strict: bool
) -> dict[str, list[int]]:
    counts = {m: [0, 0, 0] for m in MARKS}  # tp, fp, fn
    for i, j in pairs:
        r = ref_marks[i] if i is not None else "none"
        h = hyp_marks[j] if j is not None else "none"
        if (i is None or j is None) and not strict:
            continue
        if r == h:
            if r != "none":
                counts[r][0] += 1
            continue
        if h != "none":
            counts[h][1] += 1
        if r != "none":
            counts[r][2] += 1
    return counts


def case_class(form: str) -> str:
    """The case class of a spelling, by the rule the reference was labelled with."""
    return CASE_LABELS[case_of(form)[0]]


def case_scores(
    ref: Sequence[str],
    ref_cases: Sequence[str],
    hyp: Sequence[str],
    hyp_cases: Sequence[str],
    pairs: Sequence[Pair],
) -> dict:
    """Casing of the correctly recognized words: accuracy, and P/R/F1 of the non-lowercase classes
    (a hit needs the same class: "capitalized" for "upper" is a miss and a false alarm)."""
    n = right = tp = fp = fn = 0
    for i, j in pairs:
        if i is None or j is None or ref[i].lower() != hyp[j].lower():
            continue
        r, h = ref_cases[i], hyp_cases[j]
        n += 1
        right += r == h
        if r != "lower" and r == h:
            tp += 1
        else:
            fp += h != "lower"
            fn += r != "lower"
    return {"words": n, "accuracy": round(right / n, 4) if n else None, "nonlower": _prf(tp, fp, fn)}


def split_by_spans(times: Sequence[float | None], spans: Sequence[tuple[float, float]]) -> list[int]:
    """Excerpt index of each recognized word: the cuts lie in the middle of the silences between spans."""
    cuts = [(a[1] + b[0]) / 2 for a, b in zip(spans, spans[1:])]
    out, last = [], 0
    for t in times:
        last = bisect.bisect(cuts, t) if t is not None else last
        out.append(last)
    return out


def texts_by_span(words, spans, text=lambda word: word.text) -> list[list[str]]:
    """Each span's words (``text`` of each: as written, or as shown), split where ``split_by_spans``
    cuts by the middle of each word's time."""
    times = [None if w.start is None else (w.start + w.end) / 2 for w in words]
    out: list[list[str]] = [[] for _ in spans]
    for word, k in zip(words, split_by_spans(times, spans)):
        out[k].append(text(word))
    return out


def score(excerpts: Sequence[Excerpt], spans, hyp_words, hyp_marks, hyp_cases, hyp_times) -> dict:
    """WER, marks and casing of a transcript (``hyp_*``) against the excerpts."""
    ref = [w for e in excerpts for w in e.words]
    ref_marks = [m for e in excerpts for m in e.marks]
    ref_cases = [c for e in excerpts for c in e.cases]
    buckets = split_by_spans(hyp_times, spans)
    pairs: list[Pair] = []
    by_excerpt: list[tuple[int, int, int]] = []
    ref_at = 0
    for k, e in enumerate(excerpts):  # align excerpt by excerpt: cheaper, and errors stay local
        idx = [j for j, b in enumerate(buckets) if b == k]
        mine = [
            (None if i is None else ref_at + i, None if j is None else idx[j])
            for i, j in align(e.words, [hyp_words[j] for j in idx])
        ]
        by_excerpt.append(micro_counts(_mark_counts(ref_marks, hyp_marks, mine, strict=False)))
        pairs += mine
        ref_at += len(e.words)
    return {
        **word_errors(ref, hyp_words, pairs),
        "marks": mark_scores(ref_marks, hyp_marks, pairs),
        "marks_by_excerpt": by_excerpt,  # micro (tp, fp, fn) per excerpt, as "marks" counts them
        "marks_strict": mark_scores(ref_marks, hyp_marks, pairs, strict=True),
        "casing": case_scores(ref, ref_cases, hyp_words, hyp_cases, pairs),
    }
