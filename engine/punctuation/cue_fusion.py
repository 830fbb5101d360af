"""The word's timing and its audio, folded into the tagger's mark probabilities after it answers.

The tagger reads text and ``[PAUSE]``; a live word also carries how long the gap after it is,
how the speaker's pace changed, and how its pitch and energy moved (``word_cues``). Fine-tuning
the tagger to read those cues as inputs needs far more recognized speech than a CPU makes in a
day (docs/experiments), while a log-linear correction on its answer has a few dozen weights:

    log P(mark | text, cues) = log P(mark | text) + cues · W[:, mark] + next · V[:, mark]
                               + tanh(x · A) · B[:, mark] + const

where the optional hidden layer (``A``, ``B``; a dozen or two units) reads ``x``: the same two
rows and the tagger's own log-probabilities, the latter only for a timed word. A pause means more
after a word the tagger already half expects a mark at; the hidden layer can say so, where the
log-linear part only adds. Fitted on Piper it gains on Piper; on other voices it gained on bare
words and lost beside Whisper's marks (docs/experiments), so the shipped fusions are log-linear
and the hidden layer is for a fusion fitted on one speaker's own recordings. All of it is fitted
on recognized speech by ``training.fit_cue_fusion`` against the answers the model really gives there
(stacking), and stored in the model's ``config.json`` (``"cue_fusion"``), since the
weights answer to that model's calibration. ``next`` is the row of the word after it, once that
word has come (zeros before): how the next word starts and runs tells a comma from a sentence
end where the word's own row leaves it open. A word with no cues (typed text, ``punctuate``, an
untimed word) has an all-zero row and keeps the tagger's answer exactly: text loses nothing.
Both decoders apply it to every answer before deciding, as they apply ``hint_fusion``, so the
number of inferences per word does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.punctuation.word_cues import CUE_NAMES, cue_index
from engine.words import PUNCT_LABELS

__all__ = ["CueFusion", "FUSED_CUES"]

# The cues it reads: timing and audio. A recognizer's own marks enter through ``hint_fusion``;
# "prosody_known" is left out because in recognized speech it is "timed" again, and the bias
# the pair would share must stay whole for a word whose audio could not be measured.
FUSED_CUES = tuple(n for n in CUE_NAMES if not n.startswith("hint") and n != "prosody_known")
_TIMED = cue_index("timed")


@dataclass(frozen=True)
class CueFusion:
    """Attributes:
    cues: the ``word_cues`` columns read from the word's own row, by name.
    weights: [len(cues), len(PUNCT_LABELS)], added to the log-probabilities of the marks.
    next_cues, next_weights: the same for the next word's row ([len(next_cues), marks]); none by
        default.
    hidden_in, hidden_out: the hidden layer, [len(cues) + len(next_cues) + marks, units] and
        [units, marks]; its inputs are ``hidden_inputs(...)``. None: log-linear only.
    """

    cues: tuple[str, ...]
    weights: np.ndarray
    next_cues: tuple[str, ...] = ()
    next_weights: np.ndarray | None = None
    hidden_in: np.ndarray | None = None
    hidden_out: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.next_weights is None:
            object.__setattr__(self, "next_weights", np.zeros((0, len(PUNCT_LABELS))))
        for key, names, table in (
            ("cue_fusion", self.cues, self.weights),
            ("cue_fusion next_word", self.next_cues, self.next_weights),
        ):
            unknown = [n for n in names if n not in CUE_NAMES]
            if unknown:
                raise ValueError(f"{key} names unknown cues {unknown}; known: {list(CUE_NAMES)}")
            weights = np.asarray(table, dtype=np.float64)
            if weights.shape != (len(names), len(PUNCT_LABELS)) or not np.all(np.isfinite(weights)):
                raise ValueError(
                    f"{key} needs {len(names)}x{len(PUNCT_LABELS)} finite weights, got {weights.shape}"
                )
        if (self.hidden_in is None) != (self.hidden_out is None):
            raise ValueError("cue_fusion hidden layer needs both its input and its output weights")
        if self.hidden_in is not None:
            units = np.shape(self.hidden_out)[0]
            want_in = len(self.cues) + len(self.next_cues) + len(PUNCT_LABELS)
            if (
                np.shape(self.hidden_in) != (want_in, units)
                or np.shape(self.hidden_out) != (units, len(PUNCT_LABELS))
                or not (np.all(np.isfinite(self.hidden_in)) and np.all(np.isfinite(self.hidden_out)))
            ):
                raise ValueError(
                    f"cue_fusion hidden layer needs finite {want_in}xU and Ux{len(PUNCT_LABELS)} weights, "
                    f"got {np.shape(self.hidden_in)} and {np.shape(self.hidden_out)}"
                )
            object.__setattr__(self, "hidden_in", np.asarray(self.hidden_in, dtype=np.float64))
            object.__setattr__(self, "hidden_out", np.asarray(self.hidden_out, dtype=np.float64))
        object.__setattr__(self, "weights", np.asarray(self.weights, dtype=np.float64))
        object.__setattr__(self, "next_weights", np.asarray(self.next_weights, dtype=np.float64))
        object.__setattr__(self, "_columns", np.array([cue_index(n) for n in self.cues], dtype=np.int64))
        object.__setattr__(
            self, "_next_columns", np.array([cue_index(n) for n in self.next_cues], dtype=np.int64)
        )

    # -- config.json --------------------------------------------------------------
    def to_config(self) -> dict:
        out = {"weights": _table(self.cues, self.weights)}
        if self.next_cues:
            out["next_word_weights"] = _table(self.next_cues, self.next_weights)
        if self.hidden_in is not None:
            out["hidden_layer"] = {
                "inputs": list(self.hidden_names()),
                "in": [[round(float(v), 5) for v in row] for row in self.hidden_in],
                "out": {
                    m: [round(float(v), 5) for v in self.hidden_out[:, j]] for j, m in enumerate(PUNCT_LABELS)
                },
            }
        return out

    @classmethod
    def from_config(cls, data: dict) -> CueFusion:
        names, weights = _untable(data["weights"])
        next_names, next_weights = _untable(data.get("next_word_weights", {}))
        hidden = data.get("hidden_layer")
        if hidden is None:
            return cls(names, weights, next_names, next_weights)
        fusion_inputs = (*names, *(f"next:{n}" for n in next_names), *(f"log_p:{m}" for m in PUNCT_LABELS))
        if tuple(hidden.get("inputs", ())) != fusion_inputs:
            raise ValueError("cue_fusion hidden_layer inputs do not match its cues; fit the fusion again")
        hidden_out = np.array([hidden["out"][m] for m in PUNCT_LABELS], dtype=np.float64).T
        hidden_in = np.array(hidden["in"], dtype=np.float64)
        return cls(names, weights, next_names, next_weights, hidden_in, hidden_out)

    def hidden_names(self) -> tuple[str, ...]:
        """The hidden layer's inputs, by name: the word's cues, the next word's, and the tagger's
        log-probabilities (zero for a word without timing)."""
        return (*self.cues, *(f"next:{n}" for n in self.next_cues), *(f"log_p:{m}" for m in PUNCT_LABELS))

    # -- fusion -------------------------------------------------------------------
    def shift(
        self, cue_rows: np.ndarray, next_rows: np.ndarray | None = None, log_p: np.ndarray | None = None
    ) -> np.ndarray:
        """The log-probability shift [N, marks] for ``word_cues`` rows [N, CUE_COUNT], the rows
        of the words after them (``next_rows``; None: not come yet) and the tagger's
        log-probabilities [N, marks] (read by the hidden layer only; needed when there is one)."""
        cue_rows = np.asarray(cue_rows, dtype=np.float64)
        out = cue_rows[:, self._columns] @ self.weights
        if self.next_cues and next_rows is not None:
            out += np.asarray(next_rows, dtype=np.float64)[:, self._next_columns] @ self.next_weights
        if self.hidden_in is not None:
            if log_p is None:
                raise ValueError("a cue fusion with a hidden layer reads the tagger's log-probabilities")
            out += np.tanh(self.hidden_inputs(cue_rows, next_rows, log_p) @ self.hidden_in) @ self.hidden_out
        return out

    def hidden_inputs(
        self, cue_rows: np.ndarray, next_rows: np.ndarray | None, log_p: np.ndarray
    ) -> np.ndarray:
        """The hidden layer's inputs [N, len(hidden_names())]. They are all zero for a word with no
        cues, so that, with no biases, text keeps the tagger's answer exactly."""
        after = (
            np.zeros((len(cue_rows), len(self.next_cues)))
            if next_rows is None
            else np.asarray(next_rows, dtype=np.float64)[:, self._next_columns]
        )
        timed = cue_rows[:, _TIMED : _TIMED + 1]
        return np.hstack([cue_rows[:, self._columns], after, np.asarray(log_p, dtype=np.float64) * timed])

    def fuse(self, punct: np.ndarray, cue_rows: np.ndarray, at: Sequence[int] | None = None) -> np.ndarray:
        """The tagger's mark probabilities [N, marks] for the words ``at`` (indices into
        ``cue_rows``, the rows of consecutive words; None: all of them) with their cues and their
        next words' folded in."""
        at = np.arange(len(cue_rows)) if at is None else np.asarray(at, dtype=np.int64)
        log_p = np.log(np.clip(punct, 1e-12, 1.0))
        shift = self.shift(cue_rows[at], next_rows(cue_rows, at) if self.next_cues else None, log_p)
        if not shift.any():
            return punct
        logits = log_p + shift
        logits -= logits.max(axis=-1, keepdims=True)
        out = np.exp(logits)
        return out / out.sum(axis=-1, keepdims=True)


def next_rows(cue_rows: np.ndarray, at: Sequence[int]) -> np.ndarray:
    """For each index ``at`` into consecutive words' rows, the next word's row; zeros after the
    last (the word after it has not come, or there is none)."""
    at = np.asarray(at, dtype=np.int64)
    out = np.zeros((len(at), cue_rows.shape[1]), dtype=cue_rows.dtype)
    has_next = at + 1 < len(cue_rows)
    out[has_next] = cue_rows[at[has_next] + 1]
    return out


def _table(names: Sequence[str], weights: np.ndarray) -> dict:
    return {
        name: {mark: round(float(weights[i, j]), 4) for j, mark in enumerate(PUNCT_LABELS)}
        for i, name in enumerate(names)
    }


def _untable(table: dict) -> tuple[tuple[str, ...], np.ndarray]:
    names = tuple(table)
    weights = np.array([[float(table[n][m]) for m in PUNCT_LABELS] for n in names])
    return names, weights.reshape(len(names), len(PUNCT_LABELS))
