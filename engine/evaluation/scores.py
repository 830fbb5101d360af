"""Precision, recall and F1 from hit counts: the one implementation the e2e scores and training's
metrics share.

Fractions in [0, 1], 0.0 where a ratio is undefined (nothing predicted, nothing to find).
Callers round and scale at their display edge: the e2e report shows fractions to four
places, training's reports percent to two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HitCounts:
    tp: int  # predicted and in the reference
    fp: int  # predicted, not in the reference
    fn: int  # in the reference, not predicted

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def paired_f1_interval(
    first: Sequence[Sequence[int]],
    second: Sequence[Sequence[int]],
    level: float = 0.9,
    draws: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """A ``level`` interval of F1(first) − F1(second), by a paired bootstrap over units.

    ``first`` and ``second`` hold one (tp, fp, fn) row per unit (an excerpt), for two systems
    scored on the same units. Units, not words, are resampled: marks within an excerpt are not
    independent (one misheard sentence costs several), and the same draw is taken for both systems,
    since they punctuate the same words. Seeded, so a report is reproducible."""
    import numpy as np

    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 2 or a.shape[1] != 3 or not len(a):
        raise ValueError(f"two equal tables of (tp, fp, fn) per unit, not {a.shape} and {b.shape}")
    picks = np.random.default_rng(seed).integers(0, len(a), size=(draws, len(a)))

    def f1(counts: np.ndarray) -> np.ndarray:
        tp, fp, fn = (counts[picks, k].sum(axis=1) for k in range(3))
        found = 2 * tp + fp + fn  # F1 = 2tp / (2tp + fp + fn); 0 where nothing was marked or due
        return np.divide(2 * tp, found, out=np.zeros_like(tp), where=found > 0)

    gaps = f1(a) - f1(b)
    tail = (1 - level) / 2
    return float(np.quantile(gaps, tail)), float(np.quantile(gaps, 1 - tail))
