"""The history benchmark runs end to end at a small size and prints every figure (no timing is
asserted: the figures are for docs/PERFORMANCE.md, measured on a full run)."""

from __future__ import annotations

import json

from engine.evaluation.history import main

KEYS = {
    "date",
    "cpu",
    "cpu_flags",
    "cores",
    "words",
    "sessions",
    "queries",
    "generation_s",
    "journals_bytes",
    "index_bytes",
    "index_to_journals",
    "open_s",
    "reindex_s",
    "reindex_words_per_s",
    "search_p50_ms",
    "search_p95_ms",
    "search_hits_mean",
    "live_words",
    "live_commits",
    "live_enqueue_ms_per_word_median",
    "live_commit_ms_per_word_median",
    "live_failed",
    "targets",
}


def test_a_small_run_prints_every_figure(capsys, tmp_path):
    out = tmp_path / "bench.json"
    args = ["--words", "5000", "--sessions", "10", "--queries", "20", "--live-words", "60", "--out", str(out)]
    assert main(args) == 0
    stdout, stderr = capsys.readouterr()
    figures = json.loads(stdout)
    assert KEYS <= set(figures)
    assert figures["words"] == 5000 and figures["sessions"] == 10 and figures["queries"] == 20
    assert figures["live_failed"] is None and figures["live_commits"] > 0
    assert figures["search_hits_mean"] > 0  # the queries are drawn from the journaled text
    assert json.loads(out.read_text()) == figures
    assert "history:" in stderr
