"""The training loop: a recipe's data, model, optimizer and steps, with validation scores and
resumable checkpoints (``train``), and the pieces it is made of: the loss, the class weights, the
clean-text validation and the batches built in worker processes.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model_inputs import WordTokenizer
from engine.punctuation.word_cues import CUE_COUNT
from engine.words import PUNCT_LABELS
from training.base_model import fetch_base_model
from training.batches import BatchPlan, mix_shares
from training.dataset import IGNORE, WindowMaker, build_stream, collate
from training.metrics import punctuation_scores
from training.model import load_pretrained
from training.prepare import load_corpus, save_corpus, split_documents
from training.recipe import Recipe
from training.speech_cues import SpeechCues

__all__ = [
    "StepBatches",
    "autocast_dtype",
    "class_weights",
    "evaluate",
    "save_checkpoint",
    "token_losses",
    "train",
]


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
