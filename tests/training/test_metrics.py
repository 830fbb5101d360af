"""training.metrics: the shared ratios (engine.evaluation.scores) counted on label arrays, in percent."""

from training.metrics import casing_scores, punctuation_scores


def test_punctuation_scores_in_percent():
    # The case tests/engine/evaluation/test_scores.py shows as fractions: comma 1.0 / 0.5 / 0.6667.
    scores = punctuation_scores([1, 1, 2, 0], [1, 0, 2, 2])
    assert scores["comma"] == {"precision": 100.0, "recall": 50.0, "f1": 66.67, "support": 2}
    assert scores["period"] == {"precision": 50.0, "recall": 100.0, "f1": 66.67, "support": 1}
    assert scores["question"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert scores["overall"] == {"precision": 66.67, "recall": 66.67, "f1": 66.67}


def test_casing_scores_in_percent():
    scores = casing_scores([0, 1, 2, 1], [0, 1, 1, 0])
    assert scores["accuracy"] == 50.0
    assert scores["non_lower"] == {"precision": 50.0, "recall": 33.33, "f1": 40.0, "support": 3}
