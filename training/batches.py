"""Which windows training step k sees: a pure function of (seed, k).

Built that way for two reasons:
- a resumed run continues with exactly the batches it would have seen;
- any number of DataLoader worker processes can build batches side by side
  without changing what the model is trained on.

Each window's right edge is a word drawn with its source's weight (the data mix, below),
and each step draws one window length from ``windows``, so the model serves any streaming
window w and any offline window W in that range.

The phases of the recipe (docs/TRAINING.md, "Training"):
1. steps [0, pause_from): text only;
2. steps [pause_from, steps): the same, with timings (``[PAUSE]`` and, for a model that reads
   them, word cues and recognizer hints) in most windows, and with recognized speech (real times
   and prosody, ``training.speech_windows``) as a share of every batch where the recipe has it;
3. steps [steps, steps + prior_steps): the loss without class weights, restoring the priors
   (the trainer switches the weights; the windows are drawn the same way).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

import numpy as np

from engine.punctuation.model_inputs import SpecialIds
from training.dataset import Noise, WindowMaker, WordStream, collate, collate_cues


def source_weights(stream: WordStream, weights: dict[str, float]) -> np.ndarray:
    """Weight of each source in ``stream.sources``: the first matching glob in ``weights``, else 1."""
    out = np.ones(len(stream.sources))
    for k, name in enumerate(stream.sources):
        for pattern, weight in weights.items():
            if fnmatch.fnmatch(name, pattern):
                out[k] = weight
                break
    return out


def mix_shares(stream: WordStream, weights: dict[str, float]) -> dict[str, float]:
    """Each source's share of the windows drawn, in %: what the recipe's mix really is."""
    per_source = np.bincount(stream.source, minlength=len(stream.sources)) * source_weights(stream, weights)
    return {s: round(100 * float(w / per_source.sum()), 2) for s, w in zip(stream.sources, per_source)}


@dataclass
class BatchPlan:
    stream: WordStream
    special: SpecialIds
    noise: Noise
    batch: int
    steps: int  # main phase; later steps are the prior-restoring pass
    pause_from: int
    windows: tuple[int, ...]  # the recipe's (Recipe.windows); one is drawn per step
    weights: dict[str, float] = field(default_factory=dict)
    seed: int = 1234
    cues: object = None  # training.speech_cues.SpeechCues for a model that reads word cues
    cue_count: int = 0
    # training.speech_windows.SpeechWindows: recognized speech, this share of every timed step's
    # windows (the rest are text)
    speech: object = None
    speech_share: float = 0.0

    def __post_init__(self):
        self.maker = WindowMaker(self.stream, self.special, self.noise, self.cues)
        per_word = source_weights(self.stream, self.weights)[self.stream.source]
        self._cumulative = np.cumsum(per_word)

    def ends(self, rng: np.random.Generator) -> np.ndarray:
        """``batch`` right edges, each word drawn with its source's weight."""
        draws = rng.random(self.batch) * self._cumulative[-1]
        return np.minimum(np.searchsorted(self._cumulative, draws, side="right"), len(self.stream) - 1)

    def __call__(self, step: int):
        """(input_ids, attention_mask, punct labels, case labels, lookaheads) [B, T] numpy arrays,
        and the word cues [B, T, cue_count]."""
        rng = np.random.default_rng([self.seed, 1, step])
        window = int(rng.choice(self.windows))
        pauses = None if step >= self.pause_from else False
        ends = self.ends(rng)
        spoken = 0
        if self.speech is not None and step >= self.pause_from:
            spoken = int(round(self.batch * self.speech_share))
        made = [self.maker.make(int(e), window, rng, pauses) for e in ends[: self.batch - spoken]]
        made += [self.speech.make(window, rng) for _ in range(spoken)]
        return (*collate(made, self.special.pad), collate_cues(made, self.cue_count))
