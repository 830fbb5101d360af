"""Choose how a recognizer's own marks fold into the tagger's (``engine.punctuation.hint_fusion``),
on a tuning reading, and write the choice into a model's config.json:

    python -m training.tune_hints --model-dir DIR --reading runs/speech/tune_piper.json --write

The evidence (P(written mark | true mark), and the capital rates inside a sentence) comes from
``--stats``: Whisper's live words of training text read aloud, counted by ``training.speech_cues``.
The default, ``training/piper_cue_stats.json``, counts Piper's readings (``training.piper_speech``),
as the shipped weights did; ``training/speech_cue_stats.json`` holds the earlier espeak-ng ones,
which the tagger's synthetic cues still use. The weights are chosen on a
tuning reading of dev excerpts (``engine.evaluation.recognized_dev --tts piper --seed 7``), on top
of whatever else the model folds in (its ``cue_fusion``); the held-out readings that
``training.evaluate --recognized`` reports are never read here.

Marks first: every (mark weight, none shift) pair is scored live on Whisper's words, and the
pair whose worst file gains most over Whisper's own marks wins (the mean breaks ties). Then the
case weight, by the mean non-lowercase F1, with the marks fixed (it does not move them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.punctuation.hint_fusion import HintFusion
from engine.words import CASE_LABELS, PUNCT_LABELS

# Whisper's confusion on Piper's readings of training text (``training.speech_cues``)
PIPER_STATS = Path(__file__).with_name("piper_cue_stats.json")
MARK_WEIGHTS = (1.0, 1.5, 2.0, 2.5, 3.0)
NONE_SHIFTS = (0.0, 0.5, 1.0, 1.5, 2.0)
CASE_WEIGHTS = (0.5, 1.0, 2.0, 3.0)


def log(msg: str) -> None:
    print(f"tune_hints: {msg}", file=sys.stderr, flush=True)


def fusion_from_stats(stats: dict) -> HintFusion:
    """The measured evidence, weights 1. Counts get half a count each, so that a written mark
    never seen after a true one is unlikely, not impossible."""
    hints = stats.get("hints")
    if not hints or "capital_inside_sentence_counts" not in hints:
        raise ValueError(
            "the statistics hold no Whisper hint counts: rebuild them with "
            "python -m training.speech_cues READINGS (readings by training.speech_timing)"
        )
    marks = np.asarray(hints["counts"], dtype=np.float64) + 0.5
    capitals = np.asarray(hints["capital_inside_sentence_counts"], dtype=np.float64)
    if marks.shape != (len(PUNCT_LABELS), len(PUNCT_LABELS)) or capitals.shape != (len(CASE_LABELS), 2):
        raise ValueError(f"hint counts of shape {marks.shape} and {capitals.shape} do not match the labels")
    rates = (capitals[:, 1] + 0.5) / (capitals.sum(axis=1) + 1.0)
    return HintFusion(marks / marks.sum(axis=1, keepdims=True), rates)


def with_fusion(model, fusion: HintFusion | None):
    """``model`` reading its words with ``fusion`` (its session is shared, nothing is reloaded)."""
    model.config = replace(model.config, hint_fusion=fusion)
    return model


def score_sets(model, sets) -> dict:
    """Live marks F1 and non-lowercase F1 per file on the recognizer's words, with its writing as
    hints, and Whisper's own on the same words; percentages."""
    from engine.evaluation.recognized_sets import score_set
    from engine.evaluation.whisper_marks import engine_live_marks
    from engine.session.batch import keep_written_marks

    out = {}
    several = len({rset.file for rset in sets}) < len(sets)  # more than one reading of a file
    for rset in sets:
        fused = engine_live_marks(
            model, rset.batches, hints=True, recognizer=rset.recognizer, writings=rset.writings
        )
        own = [(w.mark, w.word) for w in keep_written_marks(rset.words).words]
        row = {}
        for name, marked in (("fused", fused), ("whisper_own", own)):
            scores = score_set(rset, [m for m, _ in marked], [f for _, f in marked])
            row[name] = {k: round(100 * scores[k], 2) for k in ("marks_f1", "nonlower_f1")}
        row["gain"] = round(row["fused"]["marks_f1"] - row["whisper_own"]["marks_f1"], 2)
        seen = sum(1 for key in out if key.split(" #")[0] == rset.file)
        out[f"{rset.file} #{seen + 1}" if several else rset.file] = row
    return out


def tune(model, sets, measured: HintFusion, mark_weights=MARK_WEIGHTS, none_shifts=NONE_SHIFTS,
         case_weights=CASE_WEIGHTS) -> dict:  # fmt: skip
    """The sweep above; returns every trial and the chosen fusion's config."""
    trials = []
    started = time.monotonic()
    for mark_weight, none_shift in itertools.product(mark_weights, none_shifts):
        fusion = replace(measured, mark_weight=mark_weight, case_weight=0.0, none_shift=none_shift)
        files = score_sets(with_fusion(model, fusion), sets)
        gains = [f["gain"] for f in files.values()]
        trials.append({"mark_weight": mark_weight, "none_shift": none_shift, "worst_gain": min(gains),
                       "mean_gain": round(float(np.mean(gains)), 2), "files": files})  # fmt: skip
        log(f"marks: weight {mark_weight}, none shift {none_shift}: worst file {min(gains):+.1f}, "
            f"mean {np.mean(gains):+.2f} ({time.monotonic() - started:.0f} s)")  # fmt: skip
    best = max(trials, key=lambda t: (t["worst_gain"], t["mean_gain"]))
    chosen = replace(measured, mark_weight=best["mark_weight"], none_shift=best["none_shift"])
    case_trials = []
    for case_weight in case_weights:
        files = score_sets(with_fusion(model, replace(chosen, case_weight=case_weight)), sets)
        mean = round(float(np.mean([f["fused"]["nonlower_f1"] for f in files.values()])), 2)
        case_trials.append({"case_weight": case_weight, "mean_nonlower_f1": mean, "files": files})
        log(f"case: weight {case_weight}: mean non-lowercase F1 {mean:.1f}")
    best_case = max(case_trials, key=lambda t: t["mean_nonlower_f1"])
    chosen = replace(chosen, case_weight=best_case["case_weight"])
    return {"chosen": chosen.to_config(), "mark_trials": trials, "case_trials": case_trials}


def write_fusion(model_dir: Path, fusion: dict) -> None:
    """Put ``fusion`` into ``model_dir``'s config.json (atomically), keeping everything else."""
    from engine.files.atomic import atomic_write_text

    path = Path(model_dir) / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["hint_fusion"] = fusion
    atomic_write_text(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.tune_hints", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--model-dir", type=Path, default=None, help="the model (default: the shipped one)")
    parser.add_argument("--reading", type=Path, nargs="+", required=True,
                        help="tuning readings by recognized_dev (never a held-out one)")  # fmt: skip
    parser.add_argument(
        "--stats", type=Path, default=PIPER_STATS, help="training.speech_cues' statistics (default: Piper's)"
    )
    parser.add_argument("--write", action="store_true", help="write the choice into config.json")
    parser.add_argument("--out", type=Path, default=None, help="also write the report (JSON) here")
    args = parser.parse_args(argv)

    from engine.evaluation.recognized_sets import load_dev_sets
    from engine.machine import cpu_description
    from engine.punctuation.model import ModelError, PunctuationModel, model_folder

    try:
        measured = fusion_from_stats(json.loads(args.stats.read_text(encoding="utf-8")))
        sets = [s for r in args.reading for s in load_dev_sets(r) if any(w.written for w in s.words)]
        model = PunctuationModel(args.model_dir, threads=1)
    except (OSError, ValueError, KeyError, ModelError) as exc:
        print(f"tune_hints: {exc}", file=sys.stderr)
        return 2
    if not sets:
        named = " ".join(map(str, args.reading))
        print(f"tune_hints: {named} hold no recognizer that writes its own marks (Whisper)", file=sys.stderr)
        return 2
    if {s.tts for s in sets} & {"festival", "flite"}:
        voices = sorted({s.tts for s in sets})
        print(f"tune_hints: the readings are read by {voices}: that voice is held out; tune on an "
              "espeak-ng reading (recognized_dev --tts espeak-ng)", file=sys.stderr)  # fmt: skip
        return 2
    report = {
        "command": "python -m training.tune_hints " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "reading": [str(r) for r in args.reading],
        "words": sum(len(s.words) for s in sets),
        **tune(model, sets, measured),
    }
    if args.write:
        write_fusion(model_folder(args.model_dir), report["chosen"])
        log(f"wrote hint_fusion into {model_folder(args.model_dir) / 'config.json'}")
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
