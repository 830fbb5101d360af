"""Scoring words with the tagger: one inference tags every word of a window that ends at a given
word, so one window answers every position still waiting for context (docs/METHOD.md).

``ModelScorer`` runs the ONNX model through the shared input builder (``build_window``);
``score_from_tags`` turns (position, lookahead) requests into the windows that answer them. The
entropy helpers measure how sure an answer is, which is what the streaming decoder decides on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.punctuation.model_inputs import build_window
from engine.words import PUNCT_LABELS


@dataclass(frozen=True)
class Tagged:
    """The tagger's answer for one window: rows for the words ``first .. first + len(punct) - 1``."""

    first: int
    punct: np.ndarray  # [words, 4] probabilities
    case: np.ndarray  # [words, 3]


class Scorer(Protocol):
    window: int
    uses_cues: bool  # the decoders compute word cues (``word_cues``) only for a scorer that reads them

    def tag(
        self,
        words: Sequence[str],
        pauses: Sequence[bool],
        ends: Sequence[int],
        window: int | None = None,
        cues: np.ndarray | None = None,
    ) -> list[Tagged]:
        """One window per entry of ``ends``, each ending at that word: every word's distributions.
        ``cues``: one ``word_cues`` row per word, or None (bare text)."""

    def score(
        self,
        words: Sequence[str],
        pauses: Sequence[bool],
        requests: Sequence[tuple[int, int]],
        window: int | None = None,
        cues: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities [len(requests), 4] and [len(requests), 3] for (position, lookahead) requests."""


def score_from_tags(
    scorer: Scorer, words, pauses, requests, window=None, cues=None
) -> tuple[np.ndarray, np.ndarray]:
    """(position, lookahead) requests answered from windows: position p at lookahead l is read from
    the window ending at word p + l. The streaming decoder's pending positions all share the newest
    word as that edge, so a step costs one window. A word that a window cannot reach (long words
    before it fill the window) is read from the window ending at itself."""
    edges = sorted({p + l for p, l in requests})
    tagged = dict(zip(edges, scorer.tag(words, pauses, edges, window, cues=cues)))
    missing = sorted({p for p, l in requests if p < tagged[p + l].first})
    if missing:
        tagged_alone = dict(zip(missing, scorer.tag(words, pauses, missing, window, cues=cues)))
    punct, case = [], []
    for p, l in requests:
        t = tagged[p + l]
        if p < t.first:
            t = tagged_alone[p]
        punct.append(t.punct[p - t.first])
        case.append(t.case[p - t.first])
    return np.array(punct), np.array(case)


class ModelScorer:
    """Tags windows with the ONNX model through the shared input builder (``build_window``)."""

    def __init__(self, model, window: int | None = None):
        self.model = model
        self.window = window or model.config.window
        self.windows_tagged = 0  # the model's work, counted for the live pipeline's report

    @property
    def uses_cues(self) -> bool:
        return self.model.uses_cues

    def tag(self, words, pauses, ends, window=None, cues=None) -> list[Tagged]:
        window = window or self.window
        if not ends:
            return []
        self.windows_tagged += len(ends)
        # Only the words a window can reach need tokenizing: each word is at least one token.
        lo = max(0, min(ends) - window)
        hi = max(ends) + 1
        ids = self.model.tokenizer.encode_words(words[lo:hi])
        flags = pauses[lo:hi]
        rows = cues[lo:hi] if cues is not None and self.uses_cues else None
        windows = [build_window(ids, end - lo, self.model.special, flags, window, rows) for end in ends]
        return [
            Tagged(lo + w.first, punct, case) for w, (punct, case) in zip(windows, self.model.tag(windows))
        ]

    def score(self, words, pauses, requests, window=None, cues=None):
        return score_from_tags(self, words, pauses, requests, window, cues)


def entropies_bits(probs: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of a [B, C] probability array."""
    p = np.clip(probs, 1e-12, 1.0)
    return -(p * np.log2(p)).sum(axis=-1)


def entropy_bits(probs: np.ndarray) -> float:
    return float(entropies_bits(probs))


_PERIOD, _QUESTION = PUNCT_LABELS.index("period"), PUNCT_LABELS.index("question")


def sentence_final_mark(punct: np.ndarray) -> str:
    """The mark of the last word of the input: the end of input is the end of a sentence, so the
    likelier of period and question by the model (a period on a tie, or when it says neither)."""
    return "question" if punct[_QUESTION] > punct[_PERIOD] else "period"
