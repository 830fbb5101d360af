"""The caption page's benchmark runs end to end: a real server, a headless Chromium and a light
event-stream client, for a few seconds. Skips with one line where Chromium is missing."""

import json

import pytest

from engine.evaluation.share import chromium_paths, main

pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extra)")
pytestmark = pytest.mark.skipif(
    not all(chromium_paths()), reason="needs Debian's chromium and chromium-driver (apt install)"
)


def test_the_benchmark_measures_every_word_in_the_browser_and_the_stream(capsys, tmp_path):
    out = tmp_path / "share.json"
    # The live session's committed p90 (minutes of paced speech) is left out: --session-excerpts 0
    assert main(["--seconds", "1", "--viewers", "2", "--session-excerpts", "0", "--out", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == result
    assert {"date", "cpu", "cpu_flags", "settings", "browser", "committed_p90", "phases"} <= result.keys()
    assert result["committed_p90"] == {"measured": False, "why": "--session-excerpts 0"}
    (phase,) = result["phases"]
    assert phase["viewers"] == 2 and phase["browser_viewers"] == 1 and phase["words"] == 3
    for figure in ("dom_ms", "stream_ms"):
        assert phase[figure]["n"] == 3  # every word reached the browser's DOM and the stream
        for stat in ("p50", "p90", "max"):
            assert isinstance(phase[figure][stat], float) and phase[figure][stat] > 0
    assert phase["dom_missing"] == 0 and phase["stream_missing"] == 0
    assert phase["server_cpu_share"] >= 0 and phase["rss_mb"] > 0
    assert phase["publish_ms"]["n"] == 3 and phase["dropped"] == {}
