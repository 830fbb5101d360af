"""Speed of the punctuation engine: ``python -m engine.evaluation.bench``.

Prints one JSON object per thread count (1 and 2). Runs on the shipped model, or
on a same-shape model with random weights when none is shipped (random weights
are never confident, so every step re-scores the full l_max backlog: a worst case).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.punctuation.model import PunctuationModel, default_model_dir
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.punctuation.text_input import split_words
from engine.words import Word

SPOKEN_WORD_SECONDS = 0.4  # the real-time budget per word: an average spoken word

PASSAGE = """
Good morning everyone, thanks for joining. Before we start, can everyone hear me? Great. Today I want to
walk through three things: the release plan, the bug backlog and the hiring update. First, the release.
We moved the date to the twelfth because the installer still fails on older machines, and nobody wants
to ship that. Maria, do you think the fix lands this week? She says yes, probably Thursday. Second, the
backlog has grown again, mostly small layout issues on Windows. I'd like us to spend Friday on it. Does
anyone object? No? Then that's settled. Finally, hiring: we interviewed four people and made one offer.
"""


def bench_words(count: int) -> list[Word]:
    texts = split_words(PASSAGE)
    words, t = [], 0.0
    for i in range(count):
        text = texts[i % len(texts)]
        duration = 0.12 + 0.05 * len(text)
        words.append(Word(text, t, t + duration))
        t += duration + (0.35 if i % 11 == 10 else 0.08)
    return words


def measure(model_dir: Path, threads: int, stream_words: int, offline_words: int, repeat: int = 1) -> dict:
    """One row of figures; with ``repeat`` > 1 each figure is the median over that many passes,
    because on a shared machine a single pass can be hit by someone else's burst."""
    model = PunctuationModel(model_dir, threads=threads)
    words = bench_words(max(stream_words, offline_words) + 20)
    p50s, p99s, rates = [], [], []
    offline = OfflineDecoder.from_model(model)
    offline.decode(words[:64])  # warm-up: first ONNX runs allocate
    for _ in range(max(1, repeat)):
        decoder = StreamingDecoder.from_model(model)
        for w in words[:20]:  # warm-up, and a backlog of left context like a running session
            decoder.push(w)
        steps = []
        for w in words[20 : 20 + stream_words]:
            t0 = time.perf_counter()
            decoder.push(w)
            steps.append(time.perf_counter() - t0)
        p50s.append(float(np.median(steps)))
        p99s.append(float(np.percentile(steps, 99)))
        t0 = time.perf_counter()
        offline.decode(words[:offline_words])
        rates.append(offline_words / (time.perf_counter() - t0))
    p99 = float(np.median(p99s))
    return {
        "threads": threads,
        "stream_p50_ms": round(float(np.median(p50s)) * 1000, 3),
        "stream_p99_ms": round(p99 * 1000, 3),
        "offline_words_per_s": round(float(np.median(rates)), 1),
        "offline_views": len(offline.views),
        "repeat": max(1, repeat),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "realtime_ratio": round(p99 / SPOKEN_WORD_SECONDS, 5),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--stream-words", type=int, default=1000)
    parser.add_argument("--offline-words", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="passes per thread count; figures are medians")
    args = parser.parse_args(argv)
    model_dir = args.model_dir or default_model_dir()
    label = str(model_dir)
    temp = None
    if not (model_dir / "model.onnx").exists():
        from engine.evaluation.synthetic_model import MINILM_L6, write_model_dir

        temp = tempfile.TemporaryDirectory()
        model_dir = write_model_dir(Path(temp.name), shape=MINILM_L6, quantize=True)
        label = "random-weights MiniLM-L6 shape, int8"
    for threads in (1, 2):
        row = {
            "model": label,
            **measure(model_dir, threads, args.stream_words, args.offline_words, args.repeat),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
