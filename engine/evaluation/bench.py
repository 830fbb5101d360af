"""Speed of the punctuation engine: ``python -m engine.evaluation.bench``.

Prints one JSON object per thread count (1 and 2), then a summary line. Runs on the
shipped model, or on a same-shape model with random weights when none is shipped.

Machines here differ several-fold in int8 speed from day to day, so the summary
measures its own unit of cost in the same run, ``window32_ms`` (the median of one
B = 1, 32-token inference on 1 thread), and gives machine-independent ratios:
``stream_p99_windows`` (a live step's p99 in such windows) and
``offline_words_per_window`` (words punctuated offline per such window's time).
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.machine import cpu_description
from engine.punctuation.model import PunctuationModel, model_folder
from engine.punctuation.model_inputs import build_window
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


def bench_words(count: int, written: bool = False) -> list[Word]:
    """``count`` timed words of the passage; ``written``: each also carries the passage's own
    writing of it, as Whisper's words do (marks and capitals), for a model that folds it in."""
    texts = split_words(PASSAGE)
    writings = PASSAGE.split()  # one per word: the passage has no token that splits in two
    words, t = [], 0.0
    for i in range(count):
        text = texts[i % len(texts)]
        duration = 0.12 + 0.05 * len(text)
        words.append(Word(text, t, t + duration, written=writings[i % len(writings)] if written else ""))
        t += duration + (0.35 if i % 11 == 10 else 0.08)
    return words


class CountingModel:
    """The real model, counting the windows it is asked to tag (windows per streamed word)."""

    def __init__(self, model: PunctuationModel):
        self.model, self.windows, self.calls = model, 0, 0

    def __getattr__(self, name):
        return getattr(self.model, name)

    def tag(self, windows):
        self.windows += len(windows)
        self.calls += 1
        return self.model.tag(windows)


def stream_steps(
    model, words: list[Word], count: int, window: int | None = None
) -> tuple[list[float], float]:
    """Seconds per pushed word, and windows tagged per word, for ``count`` words."""
    counting = CountingModel(model)
    settings = model.config.decoder
    decoder = StreamingDecoder.from_model(counting, settings)
    if window is not None:
        decoder.scorer.window = window
    for w in words[:20]:  # warm-up, and a backlog of left context like a running session
        decoder.push(w)
    counting.windows = 0
    steps = []
    for w in words[20 : 20 + count]:
        t0 = time.perf_counter()
        decoder.push(w)
        steps.append(time.perf_counter() - t0)
    return steps, counting.windows / max(1, count)


def window32_ms(model_dir: Path, words: list[Word], runs: int = 200, gap_s: float = 0.0) -> tuple[float, int]:
    """Median ms of one B = 1 inference on the longest window of at most 32 tokens, 1 thread.
    ``gap_s``: idle time before each one, as live speech spaces them (caches and clocks cool down)."""
    model = PunctuationModel(model_dir, threads=1)
    ids = model.tokenizer.encode_words([w.text for w in words[:80]])
    window = max(
        (build_window(ids, end, model.special, window=32) for end in range(40, 80)), key=lambda w: len(w.ids)
    )
    for _ in range(10):
        model.tag([window])
    times = []
    for _ in range(runs):
        if gap_s:
            time.sleep(gap_s)
        t0 = time.perf_counter()
        model.tag([window])
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1000, len(window.ids)


def measure(model_dir: Path, threads: int, stream_words: int, offline_words: int, repeat: int = 1) -> dict:
    """One row of figures; with ``repeat`` > 1 each figure is the median over that many passes,
    because on a shared machine a single pass can be hit by someone else's burst."""
    model = PunctuationModel(model_dir, threads=threads)
    words = bench_words(max(stream_words, offline_words) + 20)
    p50s, p99s, rates, per_word = [], [], [], []
    offline = OfflineDecoder.from_model(model)
    offline.decode(words[:64])  # warm-up: first ONNX runs allocate
    for _ in range(max(1, repeat)):
        steps, windows = stream_steps(model, words, stream_words)
        per_word.append(windows)
        p50s.append(float(np.median(steps)))
        p99s.append(float(np.percentile(steps, 99)))
        t0 = time.perf_counter()
        offline.decode(words[:offline_words])
        rates.append(offline_words / (time.perf_counter() - t0))
    p99 = float(np.median(p99s))
    return {
        "threads": threads,
        "stream_window": model.config.window,
        "stream_p50_ms": round(float(np.median(p50s)) * 1000, 3),
        "stream_p99_ms": round(p99 * 1000, 3),
        "stream_windows_per_word": round(float(np.median(per_word)), 3),
        "offline_words_per_s": round(float(np.median(rates)), 1),
        "offline": {
            "window": offline.window,
            "stride": offline.stride,
            "min_left": offline.min_left,
            "min_right": offline.min_right,
        },
        "repeat": max(1, repeat),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "realtime_ratio": round(p99 / SPOKEN_WORD_SECONDS, 5),
    }


def side_by_side_p50_ms(runs: dict, count: int, repeat: int) -> dict[str, float]:
    """Streaming step p50 in ms (1 thread) for each name -> (model, words), the runs interleaved
    pass by pass so that a slow spell of a shared machine falls on all of them; median of passes."""
    p50s: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(max(1, repeat)):
        for name, (model, words) in runs.items():
            steps, _ = stream_steps(model, words, count)
            p50s[name].append(float(np.median(steps)))
    return {name: float(np.median(values)) * 1000 for name, values in p50s.items()}


def stream_with_writing(model_dir: Path, count: int, repeat: int) -> dict:
    """Streaming p50 (ms, 1 thread) on the passage's words bare and with their writing, side by side:
    what folding a recognizer's marks in (the model's ``hint_fusion``) costs per word."""
    model = PunctuationModel(model_dir, threads=1)
    bare, written = bench_words(count + 20), bench_words(count + 20, written=True)
    p50 = side_by_side_p50_ms({"bare": (model, bare), "written": (model, written)}, count, repeat)
    return {
        "folds_writing": model.config.hint_fusion is not None,
        "bare_p50_ms": round(p50["bare"], 3),
        "written_p50_ms": round(p50["written"], 3),
        "written_over_bare": round(p50["written"] / p50["bare"], 3),
    }


def stream_with_cue_fusion(model_dir: Path, count: int, repeat: int) -> dict:
    """Streaming p50 (ms, 1 thread) on timed words with the model's ``cue_fusion`` and without it,
    side by side, and the fusion's own work per word timed alone (``cues_and_fold_ms``: the cues of
    the pending words and their history, with prosody, then the fold)."""
    fused = PunctuationModel(model_dir, threads=1)
    if fused.config.cue_fusion is None:
        return {"folds_cues": False}
    plain = PunctuationModel(model_dir, threads=1)
    plain.config = replace(plain.config, cue_fusion=None)
    words = bench_words(count + 20)
    p50 = side_by_side_p50_ms({"plain": (plain, words), "fused": (fused, words)}, count, repeat)
    plain_ms, fused_ms = p50["plain"], p50["fused"]
    # The fusion's own work per step, timed alone (a step's p50 moves more than this between
    # passes): the cues of the pending words and their history, then the fold.
    from engine.prosody.tracker import annotate_recording
    from engine.punctuation.word_cues import HISTORY_WORDS, word_cues

    pending = fused.config.decoder.l_max + 1  # the words a step asks about
    fusion, span, own = fused.config.cue_fusion, HISTORY_WORDS + pending, []
    punct = np.full((pending, 4), 0.25)
    words = annotate_recording(voiced(words), words)  # live words carry their prosody
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        for end in range(span, len(words)):
            rows = word_cues(words[end - span : end], hints=False)
            fusion.fuse(punct, rows, range(span - pending, span))
        own.append((time.perf_counter() - t0) * 1000 / (len(words) - span))
    return {
        "folds_cues": True,
        "plain_p50_ms": round(plain_ms, 3),
        "fused_p50_ms": round(fused_ms, 3),
        "fused_extra_ms": round(fused_ms - plain_ms, 3),
        "cues_and_fold_ms": round(float(np.median(own)), 4),
    }


def stream_by_window(model_dir: Path, windows: list[int], count: int, repeat: int) -> dict:
    """Streaming p50/p99 (ms, 1 thread) for each streaming window w, measured side by side."""
    model = PunctuationModel(model_dir, threads=1)
    words = bench_words(count + 20)
    out = {}
    for w in windows:
        p50s, p99s = [], []
        for _ in range(max(1, repeat)):
            steps, _ = stream_steps(model, words, count, window=w)
            p50s.append(float(np.median(steps)))
            p99s.append(float(np.percentile(steps, 99)))
        out[str(w)] = {
            "p50_ms": round(float(np.median(p50s)) * 1000, 3),
            "p99_ms": round(float(np.median(p99s)) * 1000, 3),
        }
    return out


def voiced(words: list[Word], rate: int = 16_000) -> np.ndarray:
    """Audio for timed ``words``: each voiced as a pulse train whose pitch falls over the word."""
    audio = np.zeros(int((words[-1].end + 0.5) * rate), np.float32)
    for k, w in enumerate(words):
        a, b = int(w.start * rate), int(w.end * rate)
        f = np.geomspace(110 + 5 * (k % 9), 95, b - a)
        audio[a:b] = 0.2 * np.sign(np.sin(2 * np.pi * np.cumsum(f) / rate))
    return audio


def prosody_ms_per_word(words: list[Word], repeat: int) -> dict:
    """What measuring each word's prosody (``engine.prosody``, on the side's thread) and turning it
    into word cues (the engine's thread, once per window) cost per word, in ms, median of ``repeat``
    passes: the words are voiced as a pulse train whose pitch falls over each word."""
    from engine.prosody.tracker import ProsodyTracker
    from engine.punctuation.word_cues import word_cues

    audio = voiced(words)
    measure_ms, cues_ms = [], []
    for _ in range(max(1, repeat)):
        tracker = ProsodyTracker()
        tracker.hear(audio)
        t0 = time.perf_counter()
        measured = tracker.annotate(words)
        measure_ms.append((time.perf_counter() - t0) * 1000 / len(words))
        t0 = time.perf_counter()
        for end in range(40, len(measured)):  # as the streaming decoder does: ~40 words per window step
            word_cues(measured[end - 40 : end])
        bare_t = time.perf_counter() - t0
        plain = [Word(w.text, w.start, w.end) for w in measured]
        t0 = time.perf_counter()
        for end in range(40, len(plain)):
            word_cues(plain[end - 40 : end])
        cues_ms.append((bare_t - (time.perf_counter() - t0)) * 1000 / (len(measured) - 40))
    return {
        "measure_ms": round(float(np.median(measure_ms)), 4),
        "cues_extra_ms": round(float(np.median(cues_ms)), 4),
        "total_ms": round(float(np.median(measure_ms) + np.median(cues_ms)), 4),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--stream-words", type=int, default=1000)
    parser.add_argument("--offline-words", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="passes per thread count; figures are medians")
    parser.add_argument(
        "--window",
        default="",
        help="streaming windows to compare side by side on 1 thread, e.g. 32,48,64 (default: the model's)",
    )
    parser.add_argument(
        "--paced",
        type=int,
        default=0,
        metavar="N",
        help="also time N single windows spaced like spoken words (one every 0.4 s), as the live "
        "pipeline runs them, against window32_ms (default 0: skip; 60 takes about 25 s)",
    )
    args = parser.parse_args(argv)
    if args.paced < 0:
        print(f"bench: --paced takes a number of windows, not {args.paced}", file=sys.stderr)
        return 2
    model_dir = model_folder(args.model_dir)
    label = str(model_dir)
    temp = None
    if not (model_dir / "model.onnx").exists():
        from engine.evaluation.synthetic_model import MINILM_L6, write_model_dir

        temp = tempfile.TemporaryDirectory()
        model_dir = write_model_dir(Path(temp.name), shape=MINILM_L6, quantize=True)
        label = "random-weights MiniLM-L6 shape, int8"
    try:
        windows = [int(w) for w in args.window.split(",") if w.strip()]
    except ValueError:
        print(f"bench: --window takes token counts such as 32,48,64, not {args.window!r}", file=sys.stderr)
        return 2
    rows = []
    for threads in (1, 2):
        row = {
            "model": label,
            **measure(model_dir, threads, args.stream_words, args.offline_words, args.repeat),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    unit, tokens = window32_ms(model_dir, bench_words(100))
    one = rows[0]
    summary = {
        "summary": True,
        "model": label,
        "date": datetime.date.today().isoformat(),
        **cpu_description(),
        "window32_ms": round(unit, 3),
        "window32_tokens": tokens,
        "stream_p99_windows": round(one["stream_p99_ms"] / unit, 3),
        "offline_words_per_window": round(one["offline_words_per_s"] * unit / 1000, 3),
        "offline_words_per_s_2_threads": rows[1]["offline_words_per_s"],
    }
    if args.paced:
        paced, _ = window32_ms(model_dir, bench_words(100), runs=args.paced, gap_s=SPOKEN_WORD_SECONDS)
        summary["window32_paced_ms"] = round(paced, 3)
        summary["paced_over_back_to_back"] = round(paced / unit, 3)
    summary["stream_with_writing"] = stream_with_writing(model_dir, args.stream_words, args.repeat)
    summary["stream_with_cue_fusion"] = stream_with_cue_fusion(model_dir, args.stream_words, args.repeat)
    summary["prosody_per_word"] = prosody_ms_per_word(bench_words(400), args.repeat)
    if windows:
        summary["stream_by_window"] = stream_by_window(model_dir, windows, args.stream_words, args.repeat)
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
