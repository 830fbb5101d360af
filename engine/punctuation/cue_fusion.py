"""The word's timing and its audio, folded into the tagger's mark probabilities after it answers.

The tagger reads text and ``[PAUSE]``; a live word also carries how long the gap after it is,
how the speaker's pace changed, and how its pitch and energy moved (``word_cues``). Fine-tuning
the tagger to read those cues as inputs needs far more recognized speech than a CPU makes in a
day (docs/experiments), while a log-linear correction on its answer has a few dozen weights:

    log P(mark | text, cues) = log P(mark | text) + cues · W[:, mark] + const

fitted on recognized speech by ``training.fit_cue_fusion`` against the answers the model really
gives there (stacking), and stored in the model's ``config.json`` (``"cue_fusion"``), since the
weights answer to that model's calibration. A word with no cues (typed text, ``punctuate``, an
untimed word) has an all-zero row and keeps the tagger's answer exactly: text loses nothing.
Both decoders apply it to every answer before deciding, as they apply ``hint_fusion``, so the
number of inferences per word does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.punctuation.word_cues import CUE_NAMES, cue_index
from engine.words import PUNCT_LABELS

__all__ = ["CueFusion", "FUSED_CUES"]

# The cues it reads: timing and audio. A recognizer's own marks enter through ``hint_fusion``;
# "prosody_known" is left out because in recognized speech it is "timed" again, and the bias
# the pair would share must stay whole for a word whose audio could not be measured.
FUSED_CUES = tuple(n for n in CUE_NAMES if not n.startswith("hint") and n != "prosody_known")


@dataclass(frozen=True)
class CueFusion:
    """Attributes:
    cues: the ``word_cues`` columns read, by name.
    weights: [len(cues), len(PUNCT_LABELS)], added to the log-probabilities of the marks.
    """

    cues: tuple[str, ...]
    weights: np.ndarray

    def __post_init__(self) -> None:
        unknown = [n for n in self.cues if n not in CUE_NAMES]
        if unknown:
            raise ValueError(f"cue_fusion names unknown cues {unknown}; known: {list(CUE_NAMES)}")
        weights = np.asarray(self.weights, dtype=np.float64)
        if weights.shape != (len(self.cues), len(PUNCT_LABELS)) or not np.all(np.isfinite(weights)):
            raise ValueError(
                f"cue_fusion needs {len(self.cues)}x{len(PUNCT_LABELS)} finite weights, got {weights.shape}"
            )
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "_columns", np.array([cue_index(n) for n in self.cues], dtype=np.int64))

    # -- config.json --------------------------------------------------------------
    def to_config(self) -> dict:
        return {
            "weights": {
                name: {mark: round(float(self.weights[i, j]), 4) for j, mark in enumerate(PUNCT_LABELS)}
                for i, name in enumerate(self.cues)
            }
        }

    @classmethod
    def from_config(cls, data: dict) -> CueFusion:
        table = data["weights"]
        names = tuple(table)
        return cls(names, np.array([[float(table[n][m]) for m in PUNCT_LABELS] for n in names]))

    # -- fusion -------------------------------------------------------------------
    def shift(self, cue_rows: np.ndarray) -> np.ndarray:
        """The log-probability shift [N, marks] for ``word_cues`` rows [N, CUE_COUNT]."""
        return np.asarray(cue_rows, dtype=np.float64)[:, self._columns] @ self.weights

    def fuse(self, punct: np.ndarray, cue_rows: np.ndarray) -> np.ndarray:
        """The tagger's mark probabilities [N, marks] with each word's cues folded in."""
        shift = self.shift(cue_rows)
        if not shift.any():
            return punct
        logits = np.log(np.clip(punct, 1e-12, 1.0)) + shift
        logits -= logits.max(axis=-1, keepdims=True)
        out = np.exp(logits)
        return out / out.sum(axis=-1, keepdims=True)
