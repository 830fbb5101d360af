"""Precision, recall and F1: one implementation, shown as fractions by the e2e scores (and as
percent by training's metrics, tests/training/test_metrics.py)."""

import pytest

from engine.evaluation.e2e_score import mark_scores
from engine.evaluation.scores import HitCounts, paired_f1_interval


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


def test_the_paired_interval_is_zero_for_one_system_and_shifts_with_a_better_one():
    excerpts = [(3, 1, 1), (5, 0, 2), (2, 2, 0), (4, 1, 1)]
    assert paired_f1_interval(excerpts, excerpts) == (0.0, 0.0)  # the same draws for both
    better = [(tp + 1, fp, fn - 1 if fn else fn) for tp, fp, fn in excerpts]
    low, high = paired_f1_interval(better, excerpts)
    assert 0 < low <= high  # better on every excerpt: every draw is ahead
    assert paired_f1_interval(excerpts, better) == pytest.approx((-high, -low))
    assert paired_f1_interval(better, excerpts) == (low, high)  # seeded: a report is reproducible


def test_the_paired_interval_widens_where_excerpts_disagree():
    steady = [(4, 1, 1), (4, 1, 1)] * 4
    mixed = [(6, 0, 0), (2, 3, 3)] * 4  # the same totals, split unevenly over the excerpts
    base = [(3, 2, 2)] * 8
    steady_low, steady_high = paired_f1_interval(steady, base)
    mixed_low, mixed_high = paired_f1_interval(mixed, base)
    assert steady_low == steady_high  # no excerpt differs from another: nothing to resample
    assert mixed_low < steady_low < mixed_high


def test_the_paired_interval_refuses_tables_that_do_not_pair():
    with pytest.raises(ValueError, match="two equal tables"):
        paired_f1_interval([(1, 0, 0)], [(1, 0, 0), (0, 1, 0)])
