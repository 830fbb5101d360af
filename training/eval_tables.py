"""The evaluation's cache of tagger answers, and the engine's decoders run over it.

The tagger reads every word of a window that ends at word e, word j at lookahead e - j.
So ONE pass of windows, one ending at each word of a document, answers every question the
streaming decoder (and a fixed-lookahead reading) can ask: an h sweep then costs decoder
time, not model time. ``CachedScorer`` answers ``tag`` requests from that pass only when the
window's context (the words and ``[PAUSE]`` flags it can reach) is exactly the one cached;
anything else goes to the real model and is counted as a miss.

The newest word's following gap is unknown live, so a cached window never has a pause after
its own last word, exactly as the streaming decoder builds it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from engine.events import Settled
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.model_inputs import build_window
from engine.punctuation.scoring import ModelScorer, Tagged, score_from_tags
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.words import CASE_LABELS, PUNCT_LABELS, Word
from training.dataset import Noise


def _key(words: Sequence[str], pauses: Sequence[bool], end: int, window: int):
    lo = max(0, end - window)  # a window of w tokens reaches at most w words back
    return tuple(words[lo : end + 1]), tuple(pauses[lo:end])


class CachedScorer:
    """A ``Scorer`` over one document whose windows (one per right edge) were tagged up front."""

    uses_cues = False  # text documents: windows of words and [PAUSE] alone

    def __init__(self, model, words: Sequence[str], pauses: Sequence[bool], batch: int = 256):
        self.model = model
        self.window = model.config.window
        self._model_scorer = ModelScorer(model)
        self.misses = 0
        # set by reweighted(): they apply to misses too
        self.punct_factor: np.ndarray | None = None
        self.case_factor: np.ndarray | None = None
        self.cache: dict = {}
        self.by_end: list[Tagged] = []
        ids = model.tokenizer.encode_words(list(words))
        w = self.window
        for k in range(0, len(words), batch):
            windows = []
            for end in range(k, min(len(words), k + batch)):
                lo = max(0, end - w)
                flags = [*pauses[lo:end], False]  # live, the gap after the newest word is unknown
                built = build_window(ids[lo : end + 1], end - lo, model.special, flags, w)
                windows.append((lo, built))
            for (lo, built), (punct, case) in zip(windows, model.tag([b for _, b in windows])):
                t = Tagged(lo + built.first, punct, case)
                self.by_end.append(t)
                self.cache[_key(words, pauses, t.first + len(punct) - 1, w)] = (len(punct) - 1, punct, case)

    def tag(self, words, pauses, ends, window=None, cues=None) -> list[Tagged]:
        window = window or self.window
        out: list[Tagged | None] = []
        missing = []
        for k, end in enumerate(ends):
            hit = self.cache.get(_key(words, pauses, end, window)) if window == self.window else None
            if hit is None:
                missing.append(k)
                out.append(None)
            else:
                back, punct, case = hit
                out.append(Tagged(end - back, punct, case))
        if missing:
            self.misses += len(missing)
            for k, t in zip(
                missing, self._model_scorer.tag(words, pauses, [ends[k] for k in missing], window)
            ):
                out[k] = Tagged(t.first, *self._reweigh(t.punct, t.case))
        return out  # type: ignore[return-value]

    def reweighted(self, delta: np.ndarray, case_delta: np.ndarray | None = None) -> CachedScorer:
        """A copy whose punctuation (and case) answers carry ``delta`` (``case_delta``) more logit
        bias than the model's own: softmax(logits + b + delta) is softmax(logits + b) reweighted by
        exp(delta), so a bias sweep needs no new inference."""
        out = copy.copy(self)
        out.misses = 0
        factor = np.exp(np.asarray(delta, dtype=np.float64))
        out.punct_factor = factor if self.punct_factor is None else self.punct_factor * factor
        shift_punct, shift_case = self._reweigh_by(factor), lambda c: c
        if case_delta is not None:
            case_factor = np.exp(np.asarray(case_delta, dtype=np.float64))
            out.case_factor = case_factor if self.case_factor is None else self.case_factor * case_factor
            shift_case = self._reweigh_by(case_factor)
        out.cache = {
            k: (back, shift_punct(punct), shift_case(case)) for k, (back, punct, case) in self.cache.items()
        }
        out.by_end = [Tagged(t.first, shift_punct(t.punct), shift_case(t.case)) for t in self.by_end]
        return out

    def _reweigh(self, punct: np.ndarray, case: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.punct_factor is not None:
            punct = self._reweigh_by(self.punct_factor)(punct)
        if self.case_factor is not None:
            case = self._reweigh_by(self.case_factor)(case)
        return punct, case

    @staticmethod
    def _reweigh_by(factor: np.ndarray):
        def shift(p: np.ndarray) -> np.ndarray:
            q = p * factor
            return q / q.sum(axis=-1, keepdims=True)

        return shift

    def score(self, words, pauses, requests, window=None, cues=None):
        return score_from_tags(self, words, pauses, requests, window)

    def fixed(self, lookahead: int) -> tuple[np.ndarray, np.ndarray]:
        """(punct, case) probabilities of every word read at ``lookahead`` (less near the end)."""
        n = len(self.by_end)
        punct, case = [], []
        for j in range(n):
            t = self.by_end[min(n - 1, j + lookahead)]
            row = max(0, j - t.first)  # a word crowded out of its window: its nearest answer
            punct.append(t.punct[row])
            case.append(t.case[row])
        return np.array(punct), np.array(case)


def timed_words(texts: Sequence[str], pauses: Sequence[bool] | None, threshold: float | None) -> list[Word]:
    """Words for the decoders; with pauses, synthetic times whose gaps reproduce them under ``threshold``."""
    if pauses is None or threshold is None:
        return [Word(t) for t in texts]
    out, t = [], 0.0
    for text, pause in zip(texts, pauses):
        out.append(Word(text, t, t + 0.25))
        t += 0.25 + (threshold + 0.1 if pause else 0.0)
    return out


def run_streaming(
    scorer: CachedScorer, words: list[Word], settings: DecoderSettings, casing: CaseRenderer
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The engine's StreamingDecoder over one document: (marks, cases, lookahead used) per word."""
    decoder = StreamingDecoder(scorer, settings, casing=casing)
    n = len(words)
    marks, cases, used = np.full(n, -1), np.full(n, -1), np.full(n, -1)
    events = [e for w in words for e in decoder.push(w)] + decoder.flush()
    for e in events:
        if isinstance(e, Settled):
            if marks[e.position] != -1:
                raise AssertionError(f"position {e.position} settled twice")
            marks[e.position] = PUNCT_LABELS.index(e.mark)
            cases[e.position] = CASE_LABELS.index(e.case)
            used[e.position] = e.lookahead_used
    if (marks < 0).any():
        raise AssertionError(f"{int((marks < 0).sum())} positions never settled")
    return marks, cases, used


def synthesize_pauses(marks: np.ndarray, rng: np.random.Generator, given_mark=None) -> list[bool]:
    """The training rule: a pause after word j with probability pause_given_mark[mark_j]."""
    p = np.asarray(given_mark if given_mark is not None else Noise().pause_given_mark)[np.asarray(marks, int)]
    return [bool(f) for f in rng.random(len(marks)) < p]
