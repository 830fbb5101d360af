"""Whisper's marks and capitals, combined with the tagger's probabilities as noisy evidence.

Whisper writes its own marks and capitals; they come from the audio, which the tagger never
hears, and they are wrong in measured ways (a comma where a period belongs, a sentence end
missed). Treating what Whisper wrote as an observation of the true mark with a known
confusion, the posterior is

    P(mark | text, written) ∝ P(mark | text) · P(written | mark) ^ weight

and the same for a capital written inside Whisper's sentence (a capital after its own sentence
end says nothing about a name), where the tagger too takes the word for a name: a capital alone
makes no name (``evidence``), and a word written all in capitals is an acronym.
``P(written | mark)`` is measured on speech the training text was read as
(``training.speech_cues``); ``weight`` (1 for independent evidence) is chosen on a
tuning reading (``training.tune_hints``), never on the held-out one. Both live in the model's
``config.json`` (``"hint_fusion"``) because the weight answers to that model's calibration.

Words a recognizer did not write (``Word.written`` empty: Vosk, PocketSphinx, typed text) keep
the tagger's probabilities unchanged. Both decoders apply it to every answer before deciding,
so a hint moves the provisional mark at once and a sure pair settles sooner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.punctuation.casing import CALENDAR_NAMES
from engine.punctuation.recognizer_marks import written_marks
from engine.punctuation.word_cues import written_hint
from engine.words import CASE_LABELS, PUNCT_LABELS, SENTENCE_END_MARKS, Word

# A measured probability of 0 (never seen in the readings) would veto a mark outright.
FLOOR = 0.005
_LOWER = CASE_LABELS.index("lower")
_ACRONYM = np.array([FLOOR if c != "upper" else 1.0 for c in CASE_LABELS])  # written all in capitals


@dataclass(frozen=True)
class HintFusion:
    """Attributes:
    mark_given_mark: [true mark, written mark] probabilities, rows in ``PUNCT_LABELS`` order.
    capital_given_case: per true case class (``CASE_LABELS``), the probability that the
        recognizer writes the word capitalised inside its own sentence.
    mark_weight, case_weight: exponents on the evidence (0: ignore it; 1: trust the measured
        confusion as it is).
    none_shift: added to the log-probability of "none" for a written word. The model's
        ``punct_logit_bias`` was chosen on bare text, where marks need a push towards recall;
        beside the recognizer's own marks the balance lies elsewhere.
    """

    mark_given_mark: np.ndarray
    capital_given_case: np.ndarray
    mark_weight: float = 1.0
    case_weight: float = 1.0
    none_shift: float = 0.0

    def __post_init__(self) -> None:
        marks = np.asarray(self.mark_given_mark, dtype=np.float64)
        caps = np.asarray(self.capital_given_case, dtype=np.float64)
        if marks.shape != (len(PUNCT_LABELS), len(PUNCT_LABELS)) or caps.shape != (len(CASE_LABELS),):
            raise ValueError(
                f"hint_fusion needs a {len(PUNCT_LABELS)}x{len(PUNCT_LABELS)} mark confusion and "
                f"{len(CASE_LABELS)} capital rates, got {marks.shape} and {caps.shape}"
            )
        if not (np.all(marks >= 0) and np.all((caps >= 0) & (caps <= 1))):
            raise ValueError("hint_fusion probabilities must lie in [0, 1]")
        if self.mark_weight < 0 or self.case_weight < 0:
            raise ValueError("hint_fusion weights must be ≥ 0")
        object.__setattr__(self, "mark_given_mark", np.clip(marks, FLOOR, 1.0))
        object.__setattr__(self, "capital_given_case", np.clip(caps, FLOOR, 1.0 - FLOOR))

    # -- config.json --------------------------------------------------------------
    def to_config(self) -> dict:
        return {
            "mark_given_true_mark": {
                t: {w: round(float(self.mark_given_mark[i, j]), 4) for j, w in enumerate(PUNCT_LABELS)}
                for i, t in enumerate(PUNCT_LABELS)
            },
            "capital_given_true_case": {
                c: round(float(self.capital_given_case[i]), 4) for i, c in enumerate(CASE_LABELS)
            },
            "mark_weight": self.mark_weight,
            "case_weight": self.case_weight,
            "none_shift": self.none_shift,
        }

    @classmethod
    def from_config(cls, data: dict) -> HintFusion:
        marks = data["mark_given_true_mark"]
        caps = data["capital_given_true_case"]
        return cls(
            np.array([[float(marks[t][w]) for w in PUNCT_LABELS] for t in PUNCT_LABELS]),
            np.array([float(caps[c]) for c in CASE_LABELS]),
            float(data.get("mark_weight", 1.0)),
            float(data.get("case_weight", 1.0)),
            float(data.get("none_shift", 0.0)),
        )

    # -- fusion -------------------------------------------------------------------
    def evidence(self, words: Sequence[Word], before: Sequence[str], tagger_case: np.ndarray | None = None):
        """Per word, the likelihood rows to multiply in: punct [N, 4] and case [N, 3], all ones
        for a word the recognizer did not write. ``before[i]`` is the recognizer's writing of
        the word before ``words[i]`` ("" where unknown): its sentence end frees the capital.

        ``tagger_case`` (the tagger's own case rows, one per word) lets a capital written inside
        a sentence count only where the tagger too takes the word for a name: the recognizer
        capitalises common words ("the Mergers", "over Plan"), and a capital the tagger does not
        see says too little to make one; a month or a day of the week ("May", "March") it
        capitalised is one. A lower-case writing still counts against a capital, and a word
        written all in capitals ("NASA", "U.S.") is an acronym wherever it stands."""
        punct = np.ones((len(words), len(PUNCT_LABELS)))
        case = np.ones((len(words), len(CASE_LABELS)))
        for i, (word, previous) in enumerate(zip(words, before)):
            hint = written_hint(word.written) if word.written else None
            if hint is None:
                continue
            mark, capital = hint
            punct[i] = self.mark_given_mark[:, PUNCT_LABELS.index(mark)] ** self.mark_weight
            punct[i, 0] *= np.exp(self.none_shift)
            if capital and written_marks(word)[1] == "upper":
                case[i] = _ACRONYM
            elif inside_written_sentence(previous):
                unseen = tagger_case is not None and int(np.argmax(tagger_case[i])) == _LOWER
                if capital and unseen and word.text.lower() not in CALENDAR_NAMES:
                    continue
                rate = self.capital_given_case if capital else 1.0 - self.capital_given_case
                case[i] = rate**self.case_weight
        return punct, case

    def fuse(
        self, punct: np.ndarray, case: np.ndarray, words: Sequence[Word], before: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The tagger's probabilities for ``words`` (one row each) with their writing folded in."""
        if not any(w.written for w in words):
            return punct, case
        p_ev, c_ev = self.evidence(words, before, case)
        return _normalised(punct * p_ev), _normalised(case * c_ev)


def inside_written_sentence(previous_written: str) -> bool:
    """Whether a word stands inside the recognizer's own sentence: the word before it was written
    ("" where unknown) without a sentence end. There a capital is the word's own (a name)."""
    hint = written_hint(previous_written) if previous_written else None
    return hint is not None and hint[0] not in SENTENCE_END_MARKS


def _normalised(rows: np.ndarray) -> np.ndarray:
    return rows / rows.sum(axis=-1, keepdims=True)
