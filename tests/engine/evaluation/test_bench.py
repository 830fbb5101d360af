"""``python -m engine.evaluation.bench``: one JSON line per thread count, on a real model."""

import json

import pytest

from engine.evaluation import bench

KEYS = {
    "threads",
    "model",
    "stream_p50_ms",
    "stream_p99_ms",
    "offline_words_per_s",
    "peak_rss_mb",
    "realtime_ratio",
}


def _rows(capsys):
    lines = capsys.readouterr().out.strip().splitlines()
    return [json.loads(line) for line in lines]


def test_bench_prints_one_row_per_thread_count_and_same_run_ratios(tiny_model_dir, capsys):
    assert (
        bench.main(
            [
                "--model-dir",
                str(tiny_model_dir),
                "--stream-words",
                "40",
                "--offline-words",
                "50",
                "--repeat",
                "2",
                "--window",
                "16,32",
            ]
        )
        == 0
    )
    *rows, summary = _rows(capsys)
    assert [r["threads"] for r in rows] == [1, 2]
    # the tagger: one window per streamed word, whatever the number of pending positions
    assert all(r["stream_windows_per_word"] == 1.0 for r in rows)
    assert summary["summary"] and summary["window32_ms"] > 0 and 3 < summary["window32_tokens"] <= 32
    assert summary["stream_p99_windows"] == pytest.approx(
        rows[0]["stream_p99_ms"] / summary["window32_ms"], rel=1e-2
    )
    assert summary["offline_words_per_window"] == pytest.approx(
        rows[0]["offline_words_per_s"] * summary["window32_ms"] / 1000, rel=1e-2
    )
    assert set(summary["stream_by_window"]) == {"16", "32"} and summary["date"] and "cpu_flags" in summary
    writing = summary["stream_with_writing"]
    assert writing["folds_writing"] is False  # the tiny model carries no hint_fusion
    assert writing["written_over_bare"] == pytest.approx(
        writing["written_p50_ms"] / writing["bare_p50_ms"], rel=1e-2
    )
    assert summary["stream_with_cue_fusion"] == {"folds_cues": False}  # nor any cue_fusion
    for r in rows:
        assert KEYS <= set(r) and r["model"] == str(tiny_model_dir) and r["repeat"] == 2
        assert 0 < r["stream_p50_ms"] <= r["stream_p99_ms"] and r["offline_words_per_s"] > 0
        assert r["realtime_ratio"] == pytest.approx(
            r["stream_p99_ms"] / 1000 / bench.SPOKEN_WORD_SECONDS, abs=1e-5
        )
        assert r["peak_rss_mb"] > 10


def test_bench_falls_back_to_a_random_model_of_the_same_shape(tmp_path, capsys, monkeypatch):
    import engine.evaluation.synthetic_model as synthetic

    built = []
    real = synthetic.write_model_dir

    def spy(folder, shape, quantize):
        built.append((shape, quantize))
        return real(folder, shape=synthetic.TINY, quantize=quantize)  # the real shape takes too long here

    monkeypatch.setattr(synthetic, "write_model_dir", spy)
    assert (
        bench.main(
            [
                "--model-dir",
                str(tmp_path / "empty"),
                "--stream-words",
                "20",
                "--offline-words",
                "20",
                "--repeat",
                "1",
            ]
        )
        == 0
    )
    assert built == [(synthetic.MINILM_L6, True)]
    rows = _rows(capsys)
    assert len(rows) == 3 and all(r["model"].startswith("random-weights MiniLM-L6") for r in rows)


def test_paced_windows_are_timed_against_back_to_back_ones_in_the_same_run(
    tiny_model_dir, capsys, monkeypatch
):
    slept = []
    real_sleep = bench.time.sleep
    monkeypatch.setattr(bench, "SPOKEN_WORD_SECONDS", 0.01)  # the real 0.4 s makes 3 windows take 1.2 s
    monkeypatch.setattr(bench.time, "sleep", lambda s: (slept.append(s), real_sleep(s)))
    args = [
        "--model-dir",
        str(tiny_model_dir),
        "--stream-words",
        "20",
        "--offline-words",
        "30",
        "--repeat",
        "1",
    ]
    assert bench.main([*args, "--paced", "3"]) == 0
    summary = _rows(capsys)[-1]
    assert slept == [0.01] * 3  # one gap before each paced window, none before the others
    assert summary["window32_paced_ms"] > 0
    assert summary["paced_over_back_to_back"] == pytest.approx(
        summary["window32_paced_ms"] / summary["window32_ms"], rel=1e-2
    )
    assert bench.main(args) == 0 and "window32_paced_ms" not in _rows(capsys)[-1]  # off by default
    assert bench.main([*args, "--paced", "-1"]) == 2


def test_written_bench_words_carry_the_passage_as_written():
    bare, written = bench.bench_words(120), bench.bench_words(120, written=True)
    assert [w.text for w in bare] == [w.text for w in written] and not any(w.written for w in bare)
    # the writing is the word itself, with the passage's case and marks around it
    assert all(w.written.lower().strip(".,?!:;") == w.text for w in written)
    assert written[0].written == "Good" and written[5].written == "joining."


def test_cue_fusion_is_timed_against_the_same_model_without_it(tiny_model_dir, tmp_path):
    import shutil

    import numpy as np

    from engine.punctuation.cue_fusion import FUSED_CUES, CueFusion

    fused_dir = tmp_path / "fused"
    shutil.copytree(tiny_model_dir, fused_dir)
    config = json.loads((fused_dir / "config.json").read_text())
    config["cue_fusion"] = CueFusion(FUSED_CUES, np.full((len(FUSED_CUES), 4), 0.1)).to_config()
    (fused_dir / "config.json").write_text(json.dumps(config))
    out = bench.stream_with_cue_fusion(fused_dir, 30, 2)
    assert out["folds_cues"] is True and out["plain_p50_ms"] > 0 and out["fused_p50_ms"] > 0
    assert out["fused_extra_ms"] == pytest.approx(out["fused_p50_ms"] - out["plain_p50_ms"], abs=2e-3)
    assert out["cues_and_fold_ms"] > 0
