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


def test_bench_prints_one_row_per_thread_count(tiny_model_dir, capsys):
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
            ]
        )
        == 0
    )
    rows = _rows(capsys)
    assert [r["threads"] for r in rows] == [1, 2]
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
    assert len(rows) == 2 and all(r["model"].startswith("random-weights MiniLM-L6") for r in rows)
