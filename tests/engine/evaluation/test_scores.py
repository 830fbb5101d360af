"""Precision, recall and F1: one implementation, shown as fractions by the e2e scores (and as
percent by training's metrics, tests/training/test_metrics.py)."""

import pytest

from engine.evaluation.e2e_score import mark_scores
from engine.evaluation.scores import HitCounts


def test_ratios_are_fractions():
    hits = HitCounts(tp=3, fp=1, fn=2)
    assert hits.precision == 0.75 and hits.recall == 0.6
    assert hits.f1 == pytest.approx(2 / 3)


def test_undefined_ratios_are_zero():
    assert (HitCounts(0, 0, 0).precision, HitCounts(0, 0, 0).recall, HitCounts(0, 0, 0).f1) == (0.0, 0.0, 0.0)
    assert HitCounts(0, 4, 0).precision == 0.0 and HitCounts(0, 4, 0).recall == 0.0
    assert HitCounts(0, 0, 4).recall == 0.0 and HitCounts(0, 0, 4).f1 == 0.0


def test_e2e_scores_show_fractions():
    pairs = [(0, 0), (1, 1), (2, 2), (3, 3)]
    e2e = mark_scores(["comma", "comma", "period", "none"], ["comma", "none", "period", "period"], pairs)
    assert e2e["comma"] == {"precision": 1.0, "recall": 0.5, "f1": 0.6667, "tp": 1, "fp": 0, "fn": 1}
    assert e2e["micro"]["f1"] == 0.6667  # tests/training/test_metrics.py: the same case in percent
