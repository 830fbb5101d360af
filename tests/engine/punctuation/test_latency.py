"""The latency slider's mapping onto the decoder's threshold and l_max (engine/punctuation/latency.py)."""

import json

import pytest

from engine.punctuation.latency import REPORT_FILE, LatencyMap, SweepRow
from engine.punctuation.model import shipped_model_dir

ROWS = [
    SweepRow(0.1, 2.2, 47.4),
    SweepRow(0.5, 1.7, 47.2),
    SweepRow(1.0, 1.4, 46.4),
    SweepRow(1.5, 1.0, 43.2),
]


def test_the_middle_is_the_models_default_and_the_ends_are_the_sweeps_extremes():
    m = LatencyMap(ROWS, l_max=4, default_threshold=1.0)
    mid, fast, slow = m.setting(50), m.setting(0), m.setting(100)
    assert mid.threshold == 1.0 and mid.avg_lookahead == pytest.approx(1.4) and mid.f1 == pytest.approx(46.4)
    assert (fast.threshold, fast.avg_lookahead, fast.f1) == (1.5, 1.0, 43.2)
    assert (slow.threshold, slow.avg_lookahead, slow.f1) == (0.1, 2.2, 47.4)
    assert all(s.l_max == 4 for s in (mid, fast, slow))
    # Halfway between the default and the slowest row, in lookahead: 1.8 words, between rows 0.1 and 0.5.
    s75 = m.setting(75)
    assert s75.avg_lookahead == pytest.approx(1.8)
    assert s75.threshold == pytest.approx(0.5 - 0.4 * (1.8 - 1.7) / (2.2 - 1.7))


def test_moving_towards_accuracy_never_shortens_the_wait():
    m = LatencyMap(ROWS, l_max=4, default_threshold=1.0)
    settings = [m.setting(v) for v in range(0, 101, 5)]
    thresholds = [s.threshold for s in settings]
    lookaheads = [s.avg_lookahead for s in settings]
    assert thresholds == sorted(thresholds, reverse=True) and len(set(thresholds)) > 10
    assert lookaheads == sorted(lookaheads)
    assert m.setting(-20) == m.setting(0) and m.setting(250).value == 100  # out-of-range values clamp


def test_the_shipped_model_ships_its_sweep_and_the_default_matches_its_config():
    folder = shipped_model_dir()
    assert (folder / REPORT_FILE).is_file(), (
        "eval_report.json must be installed with the model (package data)"
    )
    decoder = json.loads((folder / "config.json").read_text())["decoder"]
    threshold, l_max = decoder["threshold"], decoder["l_max"]
    m = LatencyMap.for_model(folder, threshold, l_max)
    # The slider's default is exactly the config's decoder: the sweep was run at the config's l_max.
    assert m.setting(50).threshold == threshold and m.setting(50).l_max == l_max
    report = json.loads((folder / REPORT_FILE).read_text())
    assert (
        report["text"]["live_default"]["threshold"] == threshold
        and report["text"]["live_default"]["l_max"] == l_max
    )
    assert m.setting(50).avg_lookahead is not None and 1.0 <= m.setting(50).avg_lookahead <= 2.3
    assert m.setting(0).avg_lookahead < m.setting(50).avg_lookahead < m.setting(100).avg_lookahead
    assert "words" in m.setting(50).describe()


def test_a_model_without_a_report_gets_a_linear_threshold_slider(tmp_path):
    m = LatencyMap.for_model(tmp_path, default_threshold=0.7, l_max=3)
    assert (
        m.setting(50).threshold == 0.7 and m.setting(0).threshold == 1.5 and m.setting(100).threshold == 0.1
    )
    assert m.setting(50).avg_lookahead is None and m.setting(50).l_max == 3
    assert "threshold" in m.setting(50).describe()


def test_a_damaged_report_falls_back_instead_of_failing(tmp_path):
    (tmp_path / REPORT_FILE).write_text('{"text": {"etd_sweep": {"rows": [{"threshold": "x"}]}}}')
    with pytest.raises(ValueError, match="no usable ETD sweep"):
        LatencyMap.from_report(tmp_path / REPORT_FILE, 1.0)
    assert LatencyMap.for_model(tmp_path, 1.0, 4).setting(50).threshold == 1.0
