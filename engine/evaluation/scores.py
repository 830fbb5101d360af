"""Precision, recall and F1 from hit counts: the one implementation the e2e scores and training's
metrics share.

Fractions in [0, 1], 0.0 where a ratio is undefined (nothing predicted, nothing to find).
Callers round and scale at their display edge: the e2e report shows fractions to four
places, training's reports percent to two.
"""

from __future__ import annotations

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
