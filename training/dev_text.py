"""The dev texts as documents for the evaluations: a budget of words per file, taken in order
after a number skipped, and cut at sentence ends so that each stream begins and ends as a real
one would."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from engine.punctuation.labelled_text import Document, prepare_folder
from engine.words import PUNCT_LABELS

__all__ = ["load_dev", "slice_document"]

PERIOD = PUNCT_LABELS.index("period")


def load_dev(folder: Path, max_words: int, skip_words: int = 0, log=None) -> dict[str, list[Document]]:
    """file -> ``max_words`` of its words as documents, after its first ``skip_words`` (in order;
    a document is cut at a sentence end when there is one in the second half of what is kept, so
    the stream ends, and after a skip begins, as a real one would)."""
    docs = prepare_folder(folder, log=log)
    files: dict[str, list[Document]] = defaultdict(list)
    budget: dict[str, int] = {}
    skip: dict[str, int] = {}
    for d in docs:
        file = d.name.rsplit("#", 1)[0]
        to_skip = skip.setdefault(file, skip_words)
        if to_skip >= len(d.words):
            skip[file] = to_skip - len(d.words)
            continue
        if to_skip:
            starts = np.flatnonzero(d.marks[: to_skip + 200] >= PERIOD) + 1  # a sentence's first word
            after = starts[starts >= to_skip]
            d = slice_document(d, int(after[0]) if len(after) else to_skip, len(d.words))
            skip[file] = 0
        left = budget.setdefault(file, max_words if max_words > 0 else sys.maxsize)
        if left <= 0:
            continue
        if len(d.words) > left:
            ends = np.flatnonzero(d.marks[:left] >= PERIOD) + 1
            cut = int(ends[-1]) if len(ends) and ends[-1] >= left // 2 else left
            d = slice_document(d, 0, cut)
            left = 0
        else:
            left -= len(d.words)
        budget[file] = left
        files[file].append(d)
    return dict(files)


def slice_document(d: Document, lo: int, hi: int) -> Document:
    return Document(
        d.name,
        d.words[lo:hi],
        d.marks[lo:hi].copy(),
        d.cases[lo:hi].copy(),
        d.sentence_initial[lo:hi].copy(),
        {k - lo: v for k, v in d.mixed.items() if lo <= k < hi},
    )
