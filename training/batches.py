"""Which samples training step k sees: a pure function of (seed, k).

Built that way for two reasons:
- a resumed run continues with exactly the batches it would have seen;
- any number of DataLoader worker processes can build batches side by side
  (on a GPU the model is ~10x faster than one Python process can make samples)
  without changing what the model is trained on.

The phases of the recipe (docs/METHOD.md, "Training"):
1. steps [0, pause_from): text only, on the balanced stream ("none" downsampled);
2. steps [pause_from, steps): the same, with synthetic ``[PAUSE]`` tokens;
3. steps [steps, steps + prior_steps): unaltered class balance, restoring the priors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.punctuation.model_inputs import SpecialIds, pad_batch
from training.dataset import Noise, SampleMaker, WordStream, balanced_positions


@dataclass
class BatchPlan:
    stream: WordStream
    special: SpecialIds
    noise: Noise
    batch: int
    steps: int  # main (balanced) phase; later steps are the prior-restoring pass
    pause_from: int
    window: int = 32
    l_min: int = 0
    l_max: int = 4
    none_ratio: float = 2.0
    seed: int = 1234

    def __post_init__(self):
        args = (self.stream, self.special, self.window, self.l_min, self.l_max)
        self.with_pauses = SampleMaker(*args, self.noise)
        self.text_only = SampleMaker(*args, replace(self.noise, pause_dropout=1.0))
        counts = np.bincount(self.stream.marks, minlength=4)
        epoch_len = int((counts[1:].sum()) + min(counts[0], self.none_ratio * counts[1:].max()))
        self.batches_per_epoch = max(1, epoch_len // self.batch)
        self._epoch: tuple[int, np.ndarray] | None = None  # cached: ~1 M positions per epoch

    def positions(self, step: int) -> np.ndarray:
        if step >= self.steps:  # prior-restoring pass: positions drawn from the unaltered stream
            return np.random.default_rng([self.seed, 2, step]).integers(0, len(self.stream), self.batch)
        epoch, k = divmod(step, self.batches_per_epoch)
        if self._epoch is None or self._epoch[0] != epoch:  # each epoch downsamples "none" afresh
            self._epoch = (
                epoch,
                balanced_positions(
                    self.stream, self.none_ratio, np.random.default_rng([self.seed, 0, epoch])
                ),
            )
        return self._epoch[1][k * self.batch : (k + 1) * self.batch]

    def __call__(self, step: int):
        """(input_ids, attention_mask, punct labels, case labels) for this step, as numpy arrays."""
        rng = np.random.default_rng([self.seed, 1, step])
        maker = self.text_only if step < self.pause_from else self.with_pauses
        samples, marks, cases = maker.batch(self.positions(step), rng)
        ids, mask = pad_batch(samples, self.special.pad)
        return ids, mask, marks, cases
