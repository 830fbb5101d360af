"""The training recipe: every choice a run makes, as plain values (``Recipe``), the small recipe
that checks the path (``TINY``), and the help text that shows each default where it is set.

Plain values so a run's recipe is saved in each checkpoint and printed as it is; no torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.evaluation.corpus import modern_corpus, train_corpus
from training.dataset import Noise
from training.speech_cues import DEFAULT_STATS

__all__ = ["SOURCE_WEIGHTS", "TINY", "Recipe", "recipe_help"]

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
