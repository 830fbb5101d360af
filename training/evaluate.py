"""Evaluate an exported (int8 ONNX) punctuation tagger on the dev texts, through the engine's own code.

    python -m training.evaluate [--model-dir DIR] [--dev FOLDER] [--max-words-per-file N]
                                [--out report.json] [--figure etd.png] [--threads 2]
    python -m training.evaluate --sweep-offline [--max-words-per-file 3000]

For each dev document and condition the tagger reads ONE window ending at each word
(``training/eval_tables.py``); those answers give, without further model time:

- fixed lookahead l = 0..4: word j read from the window ending at word j + l;
- entropy threshold decoding: the engine's own ``StreamingDecoder`` over the words, for
  the model's default setting and a sweep of h (F1 against average lookahead);

and the engine's own ``OfflineDecoder`` (mask-combine, the real model) gives the whole-text
figures that exports get. Each file is reported on its own and overall; casing as shown
(sentence capitals derived from the marks), accuracy and F1 on words that are not lowercase.

Conditions:
- ``text``: no ``[PAUSE]`` tokens, the main rows;
- ``pauses``: the dev text has no timings, so pauses are synthesised from the reference
  marks by the training rule (``Noise.pause_given_mark``, fixed seed).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.files.digest import file_digest
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.labelled_text import Document, PrepareError
from engine.punctuation.model import ModelError, PunctuationModel, model_folder
from engine.punctuation.offline import OfflineDecoder
from engine.words import CASE_LABELS, PUNCT_LABELS
from training.dev_text import load_dev
from training.eval_figure import plot
from training.eval_recognized import (
    out_of_source_table,
    protocol_lines,
    protocol_rows,
    reading_label,
    recognized_tables,
    recognized_targets,
    table_lines,
)
from training.eval_tables import CachedScorer, run_streaming, synthesize_pauses, timed_words
from training.metrics import Rows, f1_of
from training.tuning import sweep_bias, sweep_offline

DEFAULT_MAX_WORDS = 10_000
THRESHOLDS = tuple(round(0.1 * k, 1) for k in range(1, 16))  # 0.1 .. 1.5 bits
FIXED_LOOKAHEADS = tuple(range(5))  # 0 .. 4
# The targets of the issue that introduced the tagger (see the report's "targets" block).
TARGETS = {
    "live_default_f1": 68.0,
    "fixed_l4_f1": 67.0,
    "chitchat_question_f1": 75.0,
    "non_lower_f1": 82.0,
    "avg_lookahead_max": 1.5,
}


def log(msg: str) -> None:
    print(f"evaluate: {msg}", file=sys.stderr, flush=True)


# ---- the evaluation ---------------------------------------------------------------
def offline_decoder(model, settings: dict | None = None, pauses: bool = False) -> OfflineDecoder:
    """The engine's offline decoder on the model's settings, with ``settings`` (window, stride,
    min_left, min_right, edge_weighting) changed; ``pauses`` False ignores word timings."""
    changes = {f"offline_{key}": value for key, value in (settings or {}).items()}
    if not pauses:
        changes["pause_threshold"] = None
    return OfflineDecoder.from_model(model, replace(model.config.decoder, **changes))


def evaluate(
    model: PunctuationModel, files: dict[str, list[Document]], thresholds=THRESHOLDS, seed=0
) -> dict:
    cfg, dec = model.config, model.config.decoder
    casing = CaseRenderer(cfg.lexicon)
    live = replace(dec, silence_gap=None)  # the shipped live decoder; text ends, nothing waits
    reported = {"l_min": live.l_min, "l_max": live.l_max, "threshold": live.threshold, "silence_gap": None}
    conditions = ["text"] + (["pauses"] if cfg.pause_threshold is not None else [])
    report: dict = {}
    for condition in conditions:
        rows, case_rows = Rows(), Rows()
        misses, model_s, offline_s, words_total = 0, 0.0, 0.0, 0
        for file, docs in files.items():
            rng = np.random.default_rng([seed, zlib.crc32(file.encode("utf-8"))])
            for d in docs:
                texts, ref = d.words, d.marks
                flags = synthesize_pauses(ref, rng) if condition == "pauses" else [False] * len(texts)
                threshold = cfg.pause_threshold if condition == "pauses" else None
                words = timed_words(texts, flags, threshold)
                t0 = time.perf_counter()
                scorer = CachedScorer(model, texts, flags)
                model_s += time.perf_counter() - t0
                words_total += len(texts)
                for l in FIXED_LOOKAHEADS:
                    punct, _ = scorer.fixed(l)
                    rows.add(("fixed", l), file, ref, punct.argmax(1))
                marks, cases, used = run_streaming(
                    scorer, words, replace(live, pause_threshold=threshold), casing
                )
                rows.add("live", file, ref, marks, used)
                case_rows.add("live", file, d.displayed_cases(), cases)
                if condition == "text":
                    for h in thresholds:
                        m, _, u = run_streaming(
                            scorer, words, replace(live, threshold=h, pause_threshold=None), casing
                        )
                        rows.add(("sweep", h), file, ref, m, u)
                    m, _, u = run_streaming(
                        scorer, words, replace(live, l_min=0, pause_threshold=None), casing
                    )
                    rows.add("l_min_0", file, ref, m, u)
                misses += scorer.misses
                t0 = time.perf_counter()
                settled = offline_decoder(model, pauses=condition == "pauses").decode(
                    words, end_of_input=True
                )
                offline_s += time.perf_counter() - t0
                rows.add("offline", file, ref, [PUNCT_LABELS.index(s.mark) for s in settled])
                shown = [CASE_LABELS.index(s.case) for s in settled]
                case_rows.add("offline", file, d.displayed_cases(), shown)
            log(f"[{condition}] {file} done")
        out = {
            "fixed": {str(l): rows.punctuation(("fixed", l)) for l in FIXED_LOOKAHEADS},
            "live_default": {**reported, **rows.punctuation("live")},
            "offline": {
                "window": dec.offline_window,
                "stride": dec.offline_stride,
                "min_left": dec.offline_min_left,
                "min_right": dec.offline_min_right,
                "edge_weighting": dec.offline_edge_weighting,
                "words_per_s": round(words_total / offline_s, 1) if offline_s else None,
                **rows.punctuation("offline"),
            },
            "casing": {"live_default": case_rows.casing("live"), "offline": case_rows.casing("offline")},
            "model_windows_per_s": round(words_total / model_s, 1) if model_s else None,
            "cache_misses": misses,
        }
        if condition == "text":
            out["etd_sweep"] = {
                "l_min": dec.l_min,
                "l_max": dec.l_max,
                "rows": [
                    {
                        "threshold": h,
                        "f1": f1_of(rows.punctuation(("sweep", h))),
                        "avg_lookahead": rows.punctuation(("sweep", h))["overall"]["avg_lookahead"],
                        "files": {
                            f: r["overall"]["f1"] for f, r in rows.punctuation(("sweep", h))["files"].items()
                        },
                    }
                    for h in thresholds
                ],
            }
            out["etd_l_min_0"] = {**reported, "l_min": 0, **rows.punctuation("l_min_0")}
        report[condition] = out
    report["targets"] = targets(report)
    return report


def targets(report: dict) -> dict:
    text = report["text"]
    chitchat = [f for f in text["live_default"]["files"] if "chitchat" in f]
    measured = {
        "live_default_f1": f1_of(text["live_default"]),
        "fixed_l4_f1": f1_of(text["fixed"]["4"]),
        "chitchat_question_f1": text["live_default"]["files"][chitchat[0]]["question"]["f1"]
        if chitchat
        else None,
        "non_lower_f1": text["casing"]["live_default"]["overall"]["non_lower"]["f1"],
        "avg_lookahead_max": text["live_default"]["overall"]["avg_lookahead"],
    }
    out = {}
    for key, target in TARGETS.items():
        value = measured[key]
        met = None if value is None else (value <= target if key == "avg_lookahead_max" else value >= target)
        out[key] = {"target": target, "measured": value, "met": met}
    return out


def extra_tables(model, files, args) -> dict:
    out: dict = {}
    if args.recognized:
        from engine.evaluation.recognized_sets import load_dev_sets

        readings = {}
        for path in args.recognized:
            log(f"recognizer output: {path}")
            sets = load_dev_sets(path, prosody=not args.no_prosody)
            readings.setdefault(reading_label(sets), {}).update(recognized_tables(model, sets))
        out["recognized"] = next(iter(readings.values()))
        out["recognized_from"] = [str(p) for p in args.recognized]
        out["readings"] = readings
        out["protocol"] = protocol_rows(readings)
    if args.held_out_model:
        held_out = PunctuationModel(args.held_out_model, threads=args.threads, max_batch=args.batch)
        out["out_of_source"] = out_of_source_table(model, held_out, files, args.held_out_source)
        out["out_of_source"]["held_out_model"] = str(args.held_out_model)
    return out


# ---- CLI ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model-dir", type=Path, help="exported model folder (default: the engine's default model)"
    )
    parser.add_argument(
        "--dev", type=Path, default=dev_corpus(), help=f"folder of .txt files (default {dev_corpus()})"
    )
    parser.add_argument(
        "--max-words-per-file",
        type=int,
        default=DEFAULT_MAX_WORDS,
        help="first N words of each file; 0 = all (default %(default)s)",
    )
    parser.add_argument(
        "--skip-words-per-file",
        type=int,
        default=0,
        help="start each file after its first N words (tune on text apart from the reported text)",
    )
    parser.add_argument("--out", type=Path, help="write the JSON report here too")
    parser.add_argument("--figure", type=Path, help="PNG of F1 against average lookahead")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads (default %(default)s)")
    parser.add_argument("--batch", type=int, default=64, help="windows per model call (default %(default)s)")
    parser.add_argument(
        "--sweep-offline", action="store_true", help="try mask-combine settings and print the best"
    )
    parser.add_argument(
        "--sweep-bias",
        action="store_true",
        help="try punctuation logit biases (with --thresholds) and print the best live setting",
    )
    parser.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        help="entropy thresholds to sweep, bits (default 0.1 .. 1.5; with --sweep-bias, the model's)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthesised pauses (default 0)")
    parser.add_argument(
        "--recognized",
        type=Path,
        nargs="+",
        help="recognizer-output dev sets (python -m engine.evaluation.recognized_dev) to score too: "
        "the held-out readings (festival, flite, Piper outside its training styles) and Piper's own",
    )
    parser.add_argument(
        "--no-prosody",
        action="store_true",
        help="score the recognized words without the prosody measured on their audio (what it adds)",
    )
    parser.add_argument(
        "--held-out-model",
        type=Path,
        help="a model trained without --held-out-source (training.train --exclude-source): the "
        "out-of-source table",
    )
    parser.add_argument("--held-out-source", default="chitchat", help="the source it was trained without")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    model_dir = model_folder(args.model_dir)
    try:
        model = PunctuationModel(model_dir, threads=args.threads, max_batch=args.batch)
        files = load_dev(args.dev, args.max_words_per_file, args.skip_words_per_file, log=log)
        if not files:
            raise PrepareError(f"{args.dev}: no words left after cleaning")
    except (ModelError, PrepareError, OSError) as exc:
        print(f"evaluate: error: {exc}", file=sys.stderr)
        return 2
    log(
        f"model {model_dir}, {sum(len(d.words) for ds in files.values() for d in ds):,} words in "
        f"{len(files)} files"
    )
    if args.sweep_offline or args.sweep_bias:
        if args.sweep_offline:
            result = sweep_offline(model, files)
        else:
            chosen = args.thresholds or [model.config.decoder.threshold]  # default: the model's own h
            result = sweep_bias(model, files, sorted(set(chosen)), TARGETS["avg_lookahead_max"])
        text = json.dumps(result, indent=1)
        if args.out:
            args.out.write_text(text + "\n", encoding="utf-8")
        print(text)
        return 0
    body = evaluate(model, files, thresholds=sorted(set(args.thresholds or THRESHOLDS)), seed=args.seed)
    body.update(extra_tables(model, files, args))
    body["targets"].update(recognized_targets(body))
    for line in table_lines(body.get("recognized", {}), body.get("out_of_source")):
        log(line)
    for line in protocol_lines(body.get("protocol", [])):
        log(line)
    model_file = model.model_dir / model.config.model_file
    report = {
        "date": datetime.date.today().isoformat(),
        "model": {
            "dir": str(model.model_dir),
            "file": model.config.model_file,
            "size_mb": round(model_file.stat().st_size / 1e6, 2),
            # which file these figures belong to: the model is retrained, the report kept beside it
            "sha256": file_digest(model_file),
            "window": model.config.window,
            "pause_threshold": model.config.pause_threshold,
            "decoder": model.config.to_dict()["decoder"],
            "threads": model.threads,
        },
        "dev": {
            "folder": str(args.dev),
            "max_words_per_file": args.max_words_per_file,
            "files": {
                f: {"words": sum(len(d.words) for d in ds), "documents": len(ds)} for f, ds in files.items()
            },
            "words": sum(len(d.words) for ds in files.values() for d in ds),
            "note": "each document is one word stream; the first N words of each file, the last document "
            "cut at a sentence end in its second half when there is one",
        },
        **body,
    }
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    if args.figure:
        args.figure.parent.mkdir(parents=True, exist_ok=True)
        plot(
            report,
            args.figure,
            f"{model.model_dir.name}: F1 vs average lookahead on "
            f"{report['dev']['words']:,} dev words, no pause tokens",
        )
        report["figure"] = str(args.figure)
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
