"""Fit the model's cue fusion on recognized speech: ``python -m training.fit_cue_fusion
--speech runs/speech/piper_train [--model-dir DIR] [--write OUT_DIR]`` (numpy only, no torch).

``engine.punctuation.cue_fusion`` adds ``cues · W`` to the log-probabilities the tagger gives a
word. Its weights are fitted here against the answers the model really gives on Whisper's words
of Piper readings (``training.piper_speech``): every word at every lookahead the streaming decoder
asks it at (0 to ``l_max`` words after it), with the cues as the decoder holds them at that step
(the gap after the newest word unknown until the next word comes or a silence begins), the next
word's row once it has come (``--next-cues``), and the prosody measured on the reading's audio by
the engine's own code. Inserted words (no reference word) are left out.

The fit is a multinomial logistic regression with the model's log-probabilities as a fixed
offset (Newton's method, an L2 penalty). ``--hidden-units N`` adds the fusion's hidden layer,
fitted from there by Adam (``fit_hidden``). The weights are first judged by five-fold cross
validation over readings, then fitted on all of them; ``--write`` copies the model folder with
the weights in its ``config.json`` (an existing folder is never overwritten).

``--recognizer pocketsphinx`` fits on that recognizer's words of the same readings
(``piper_speech --recognizer pocketsphinx --audio-from ...``) and writes the weights as its own
(``cue_fusion_by_recognizer``), keeping the model's other fusions: a recognizer's word times and
errors are its own, and so is how its words answer the cues. Without it the readings must be
Whisper's, and the weights become the default fusion. Readings of another recognizer are refused.

The report also judges each fusion the model already carries on the same words
(``fusions_carried``), so that one recognizer's fusion can be measured on another's words.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from engine.punctuation.cue_fusion import FUSED_CUES, CueFusion, next_rows
from engine.punctuation.model import ModelConfig, PunctuationModel, model_folder
from engine.punctuation.model_inputs import pauses_from_times
from engine.punctuation.scoring import ModelScorer
from engine.punctuation.word_cues import cue_index, word_cues
from engine.recognizers.kinds import NAMES as KIND_NAMES
from engine.words import PUNCT_LABELS
from training.dataset import IGNORE

# The words handed to the scorer and to ``word_cues`` at each step: a window's reach (32 tokens hold
# at most 30 words) and the history a cue row reads (``word_cues.HISTORY_WORDS``) both fit in 48.
CONTEXT_WORDS = 48


class Stacked(NamedTuple):
    """Per labelled word and lookahead, one row each."""

    probs: np.ndarray  # the model's mark probabilities
    rows: np.ndarray  # the word's cue row, as the streaming decoder holds it at that step
    next_rows: np.ndarray  # the next word's, zeros at lookahead 0 (it has not come)
    truth: np.ndarray  # the true mark
    groups: np.ndarray  # the reading
    ahead: np.ndarray  # the lookahead


def stacked_examples(
    readings, scorer: ModelScorer, l_max: int, silence_gap: float, pause_threshold: float
) -> Stacked:
    """Every labelled word at every lookahead the streaming decoder asks it at."""
    probs, rows, nexts, marks, groups, ahead = [], [], [], [], [], []
    for k, reading in enumerate(readings):
        words = reading.words
        flags = pauses_from_times(words, pause_threshold)
        for t in range(len(words)):
            nxt = words[t + 1] if t + 1 < len(words) else None
            gap = (
                None if nxt is None or nxt.start is None or words[t].end is None else nxt.start - words[t].end
            )
            silence = gap is None or gap >= silence_gap
            lo = max(0, t - CONTEXT_WORDS)
            heard = words[lo : t + 1]
            pauses = list(flags[lo : t + 1])
            pauses[-1] = silence  # the gap after the newest word is known once a silence began
            cues = word_cues(heard, pause_after_last=silence, hints=False)
            requests = [
                (p - lo, t - p) for p in range(max(0, t - l_max), t + 1) if reading.marks[p] != IGNORE
            ]
            if not requests:
                continue
            punct, _ = scorer.score([w.text for w in heard], pauses, requests)
            following = next_rows(cues, [q for q, _ in requests])
            for (q, look), row, after in zip(requests, punct, following):
                probs.append(row)
                rows.append(cues[q])
                nexts.append(after)
                marks.append(reading.marks[lo + q])
                groups.append(k)
                ahead.append(look)
    return Stacked(
        np.array(probs),
        np.array(rows, dtype=np.float64),
        np.array(nexts, dtype=np.float64),
        np.array(marks),
        np.array(groups),
        np.array(ahead),
    )


def _hessian(x: np.ndarray, cov: np.ndarray, block: int = 8192) -> np.ndarray:
    """sum_i x_ia x_ib cov_ice as [a, c, b, e]: one matrix product per block of rows, not a
    four-index einsum (which numpy runs as a plain loop, hundreds of times slower), the rows in
    blocks so that the (rows, d, c, c) product stays small."""
    n, d = x.shape
    c = cov.shape[1]
    out = np.zeros((d, d * c * c))
    for start in range(0, n, block):
        xs, cs = x[start : start + block], cov[start : start + block]
        out += xs.T @ (xs[:, :, None, None] * cs[:, None, :, :]).reshape(len(xs), -1)
    return out.reshape(d, d, c, c).transpose(1, 2, 0, 3)


def fit_weights(
    offsets: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float = 1e-4, steps: int = 30
) -> np.ndarray:
    """W [features, classes] minimising the mean negative log-likelihood of softmax(offsets + x W)
    plus l2/2 |W|^2, by Newton's method (a few dozen weights: the Hessian is small)."""
    n, d = x.shape
    c = offsets.shape[1]
    target = np.eye(c)[y]
    w = np.zeros((d, c))
    for _ in range(steps):
        p = _softmax(offsets + x @ w)
        grad = x.T @ (p - target) / n + l2 * w
        # Hessian of the softmax NLL: sum_i (diag p_i - p_i p_i^T) ⊗ x_i x_i^T
        cov = np.einsum("ic,ce->ice", p, np.eye(c)) - np.einsum("ic,ie->ice", p, p)
        hess = _hessian(x, cov).reshape(d * c, d * c) / n
        hess += l2 * np.eye(d * c)
        delta = np.linalg.solve(hess, grad.reshape(-1)).reshape(d, c)
        w -= delta
        if np.abs(delta).max() < 1e-6:
            break
    return w


def fit_hidden(
    offsets: np.ndarray,
    x: np.ndarray,
    hidden_x: np.ndarray,
    y: np.ndarray,
    units: int,
    l2: float = 1e-4,
    epochs: int = 4,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The log-linear weights W [features, classes] and a hidden layer A [hidden features, units],
    B [units, classes] minimising the mean NLL of softmax(offsets + x W + tanh(hidden_x A) B) plus
    l2/2 of every squared weight. W starts at the log-linear fit (``fit_weights``) and B at zero,
    so the search starts from the log-linear fusion and only moves for what it leaves out; then
    Adam on minibatches of 1024 with a one-cycle rate, seeded, so a refit is the same fit."""
    rng = np.random.default_rng(seed)
    n, c = len(y), offsets.shape[1]
    target = np.eye(c)[y]
    params = [
        fit_weights(offsets, x, y, l2),
        rng.normal(0.0, 1.0 / np.sqrt(hidden_x.shape[1]), (hidden_x.shape[1], units)),
        np.zeros((units, c)),
    ]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    batch = min(1024, n)
    steps = epochs * (n // batch)
    peak, beta1, beta2 = 3e-3, 0.9, 0.999
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n - batch + 1, batch):
            pick = order[start : start + batch]
            w, a, b = params
            h = np.tanh(hidden_x[pick] @ a)
            g = (_softmax(offsets[pick] + x[pick] @ w + h @ b) - target[pick]) / batch
            dh = (g @ b.T) * (1.0 - h * h)
            grads = [x[pick].T @ g + l2 * w, hidden_x[pick].T @ dh + l2 * a, h.T @ g + l2 * b]
            step += 1
            # one cycle: a quarter warming up, then a cosine down to nothing
            warm = steps / 4
            rate = peak * (
                step / warm if step < warm else 0.5 * (1 + np.cos(np.pi * (step - warm) / (steps - warm)))
            )
            for p, grad, (m, v) in zip(params, grads, moments):
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                p -= rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)
    return params[0], params[1], params[2]


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def marks_f1(truth: np.ndarray, predicted: np.ndarray) -> float:
    """Micro-F1 of the marks (every label but none), as the project scores punctuation."""
    tp = int(np.sum((predicted == truth) & (truth > 0)))
    fp = int(np.sum((predicted > 0) & (predicted != truth)))
    fn = int(np.sum((truth > 0) & (predicted != truth)))
    return round(100.0 * 2 * tp / max(2 * tp + fp + fn, 1), 2)


def judged(probs, truth, ahead) -> dict:
    offsets = np.log(np.clip(probs, 1e-12, 1.0))
    out = {"nll": round(float(-np.mean(offsets[np.arange(len(truth)), truth])), 4)}
    for look in sorted(set(ahead.tolist())):
        chosen = ahead == look
        out[f"marks_f1_lookahead{look}"] = marks_f1(truth[chosen], probs[chosen].argmax(axis=1))
    return out


def cross_validated(probs, x, truth, groups, ahead, l2: float, folds: int = 5) -> dict:
    offsets = np.log(np.clip(probs, 1e-12, 1.0))
    fused = np.zeros_like(probs)
    for f in range(folds):
        test = groups % folds == f
        w = fit_weights(offsets[~test], x[~test], truth[~test], l2)
        fused[test] = _softmax(offsets[test] + x[test] @ w)
    return {"model": judged(probs, truth, ahead), "fused": judged(fused, truth, ahead)}


def cross_validated_hidden(probs, x, hidden_x, truth, groups, ahead, l2: float, units: int, folds: int = 5):
    """``cross_validated``'s folds for the fusion with a hidden layer (``fit_hidden``)."""
    offsets = np.log(np.clip(probs, 1e-12, 1.0))
    fused = np.zeros_like(probs)
    for f in range(folds):
        test = groups % folds == f
        w, a, b = fit_hidden(offsets[~test], x[~test], hidden_x[~test], truth[~test], units, l2)
        fused[test] = _softmax(offsets[test] + x[test] @ w + np.tanh(hidden_x[test] @ a) @ b)
    return judged(fused, truth, ahead)


def fusions_carried(config: ModelConfig, probs, rows, after_rows, truth, ahead) -> dict:
    """How each fusion the model already carries does on these words ("default", then one per
    recognizer kind): a fusion fitted on one recognizer's words, judged on another's."""
    carried = {"default": config.cue_fusion, **config.cue_fusion_by_recognizer}
    offsets = np.log(np.clip(probs, 1e-12, 1.0))
    return {
        name: judged(_softmax(offsets + fusion.shift(rows, after_rows, offsets)), truth, ahead)
        for name, fusion in carried.items()
        if fusion is not None
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.fit_cue_fusion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--speech", type=Path, nargs="+", required=True, help="folders of Piper readings")
    parser.add_argument("--model-dir", type=Path, default=None, help="the model (default: the shipped one)")
    parser.add_argument(
        "--l2", type=float, default=1e-4, help="the weights' L2 penalty (chosen by cross-validation)"
    )
    parser.add_argument("--cues", nargs="+", default=list(FUSED_CUES), help="the cues fused, by name")
    parser.add_argument(
        "--next-cues",
        nargs="*",
        default=list(FUSED_CUES),
        help="the next word's cues fused, by name (none: the word's own alone)",
    )
    parser.add_argument(
        "--hidden-units",
        type=int,
        default=0,
        help="a hidden layer of this many units beside the log-linear weights (0: log-linear only; "
        "it pays on one speaker's own recordings, not across voices: docs/experiments)",
    )
    parser.add_argument(
        "--write", type=Path, default=None, help="a new folder: the model with the fitted fusion"
    )
    parser.add_argument(
        "--recognizer", default=None, choices=KIND_NAMES, help="whose words they are (default: Whisper's)"
    )
    args = parser.parse_args(argv)
    log = lambda msg: print(f"fit_cue_fusion: {msg}", file=sys.stderr, flush=True)  # noqa: E731
    unknown = [n for n in args.cues + args.next_cues if n not in FUSED_CUES]
    if unknown:
        print(
            f"fit_cue_fusion: no such cue {unknown}; the cues it can fuse: {' '.join(FUSED_CUES)}",
            file=sys.stderr,
        )
        return 2
    if args.hidden_units < 0:
        print(f"fit_cue_fusion: --hidden-units {args.hidden_units}: give 0 or more", file=sys.stderr)
        return 2
    if args.write is not None and args.write.exists():
        print(
            f"fit_cue_fusion: {args.write} exists; give a new folder (nothing is overwritten)",
            file=sys.stderr,
        )
        return 2
    from training.piper_speech import load_readings, recognizer_of
    from training.speech_windows import load_speech

    heard = sorted({recognizer_of(data) for folder in args.speech for data, _ in load_readings(folder)})
    if heard and heard != [args.recognizer or "whisper"]:
        print(
            f"fit_cue_fusion: the readings are {' and '.join(heard)}'s words, not "
            f"{args.recognizer or 'whisper'}'s; give --recognizer {heard[0]}"
            + (" with one recognizer's folders" if len(heard) > 1 else ""),
            file=sys.stderr,
        )
        return 2
    model = PunctuationModel(args.model_dir)
    if model.uses_cues:
        print(
            "fit_cue_fusion: this model reads the cues itself; fuse them into a text model", file=sys.stderr
        )
        return 2
    readings = [r for folder in args.speech for r in load_speech(folder, model.tokenizer)]
    if not readings:
        print(f"fit_cue_fusion: no readings in {[str(s) for s in args.speech]} "
              "(python -m training.piper_speech --out FOLDER makes them)", file=sys.stderr)  # fmt: skip
        return 2
    decoder = model.config.decoder
    log(f"scoring {sum(len(r.words) for r in readings)} words of {len(readings)} readings ...")
    probs, rows, after_rows, truth, groups, ahead = stacked_examples(
        readings, ModelScorer(model), decoder.l_max, decoder.silence_gap, model.config.pause_threshold
    )
    x = np.hstack(
        [rows[:, [cue_index(n) for n in args.cues]], after_rows[:, [cue_index(n) for n in args.next_cues]]]
    )
    report = {
        "readings": len(readings),
        "examples": len(truth),
        "labels": {m: int(np.sum(truth == k)) for k, m in enumerate(PUNCT_LABELS)},
        "cues": args.cues,
        "next_cues": args.next_cues,
        "l2": args.l2,
        "cross_validated": cross_validated(probs, x, truth, groups, ahead, args.l2),
        "fusions_carried": fusions_carried(model.config, probs, rows, after_rows, truth, ahead),
    }
    offsets = np.log(np.clip(probs, 1e-12, 1.0))
    own = len(args.cues)
    if args.hidden_units > 0:
        units = args.hidden_units
        marks = len(PUNCT_LABELS)
        probe = CueFusion(
            tuple(args.cues), np.zeros((own, marks)), tuple(args.next_cues),
            np.zeros((len(args.next_cues), marks)),
            np.zeros((own + len(args.next_cues) + marks, units)), np.zeros((units, marks)),
        )  # fmt: skip
        hidden_x = probe.hidden_inputs(rows, after_rows, offsets)
        log(f"fitting a hidden layer of {units} units, five folds and then all ...")
        report["hidden_units"] = units
        report["cross_validated"]["fused_hidden"] = cross_validated_hidden(
            probs, x, hidden_x, truth, groups, ahead, args.l2, units
        )
        weights, hidden_in, hidden_out = fit_hidden(offsets, x, hidden_x, truth, units, args.l2)
    else:
        weights, hidden_in, hidden_out = fit_weights(offsets, x, truth, args.l2), None, None
    fusion = CueFusion(
        tuple(args.cues), weights[:own], tuple(args.next_cues), weights[own:], hidden_in, hidden_out
    )
    report["cue_fusion"] = fusion.to_config()
    if args.write is not None:
        shutil.copytree(model_folder(args.model_dir), args.write)
        config = ModelConfig.load(args.write)
        if args.recognizer is None:
            config = replace(config, cue_fusion=fusion)
        else:
            by_recognizer = {**config.cue_fusion_by_recognizer, args.recognizer: fusion}
            config = replace(config, cue_fusion_by_recognizer=by_recognizer)
        config.save(args.write)
        report["written"] = str(args.write)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
