"""The History window's benchmark (app/history/benchmark.py) runs end to end on a small archive
written by the engine's journal writer: the window opens it, and typed words find sessions."""

import json

import pytest

from app.history import benchmark

pytestmark = [pytest.mark.gui]


def test_a_small_run_prints_its_figures_and_finds_the_words_typed(tmp_path, capsys):
    out = tmp_path / "window.json"
    assert benchmark.main(["--sessions", "20", "--words", "300", "--keystrokes", "6", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["sessions"] == 20 and result["keystroke_to_result_ms"]["runs"] == 6
    assert result["results_per_query_median"] >= 1  # the rare words typed are in the journals
    assert {"date", "cpu", "cpu_flags", "open_first_s", "typing_last_key_to_result_ms"} <= set(result)
