"""The answer tables behind ``training.evaluate``: ask the model once per (position, lookahead, window),
then let the engine's own decoders run on the answers (see ``training/evaluate.py`` for why this is exact).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from engine.punctuation.casing import CaseRenderer
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import ModelScorer, Settled, StreamingDecoder
from engine.words import CASE_LABELS, PUNCT_LABELS, Word
from training.dataset import Noise


# ---- the table ----------------------------------------------------------------
class Table:
    """Model probabilities for every position of one word stream, per (window, lookahead).

    ``pauses`` are the ``[PAUSE]`` flags the samples were built with. With
    ``last_gap_unknown`` the sample for (i, l) was built with NO pause after its
    last word i+l, as a live decoder sees it: that gap is not over yet.
    """

    def __init__(self, words: Sequence[str], pauses: Sequence[bool], last_gap_unknown: bool = False):
        self.words = list(words)
        self.pauses = [bool(p) for p in pauses]
        self.last_gap_unknown = last_gap_unknown
        self.punct: dict[tuple[int, int], np.ndarray] = {}  # (window, lookahead) -> [n, 4]
        self.case: dict[tuple[int, int], np.ndarray] = {}  # (window, lookahead) -> [n, 3]
        self.samples = 0  # model samples it took

    def __len__(self) -> int:
        return len(self.words)

    def expected_pauses(self, lo: int, last: int) -> list[bool]:
        """The pause flags of words lo..last as the sample whose last word is ``last`` saw them."""
        flags = self.pauses[lo : last + 1]
        if self.last_gap_unknown and flags:
            flags[-1] = False
        return flags


def build_table(
    scorer: ModelScorer,
    words: Sequence[str],
    pauses: Sequence[bool],
    views: Iterable[tuple[int, int]],
    batch: int = 256,
    last_gap_unknown: bool = False,
) -> Table:
    """Score every position at every (lookahead, window) view with the real model.

    ``batch`` requests go into one call."""
    table = Table(words, pauses, last_gap_unknown)
    n = len(table)
    for lookahead, window in sorted(set(views)):
        punct, case = np.zeros((n, len(PUNCT_LABELS))), np.zeros((n, len(CASE_LABELS)))
        if not last_gap_unknown:
            groups = [range(lo, min(n, lo + batch)) for lo in range(0, n, batch)]
        else:
            # Each sample needs its OWN last gap hidden, and a call shares one pause list. Positions
            # at least window + lookahead + 1 apart never see each other's last word (every word is
            # at least one token), so one call can hide all their last gaps at once.
            stride = window + lookahead + 1
            groups = [
                range(r + k * stride * batch, min(n, r + (k + 1) * stride * batch), stride)
                for r in range(min(stride, n))
                for k in range((n - r + stride * batch - 1) // (stride * batch))
            ]
        for positions in groups:
            if not len(positions):
                continue
            flags = list(table.pauses)
            if last_gap_unknown:
                for i in positions:
                    flags[min(i + lookahead, n - 1)] = False
            p, c = scorer.score(table.words, flags, [(i, lookahead) for i in positions], window=window)
            punct[list(positions)] = p
            case[list(positions)] = c
            table.samples += len(positions)
        table.punct[(window, lookahead)] = punct
        table.case[(window, lookahead)] = case
    return table


class TableScorer:
    """The engine's ``Scorer`` protocol, answered from a ``Table``.

    Decoders pass positions relative to the word list they pass. The offline
    decoder passes the whole document (offset 0). The streaming decoder passes
    its slot list, which always ends with its newest word, so setting ``end`` to
    ``lambda: decoder.word_count`` (public API) gives the absolute position of
    ``words[0]`` as ``end() - len(words)``. Each answer is checked against the
    table (the word itself, the last word in reach, and every pause flag the
    sample can reach); a request that does not match goes to ``fallback``, the
    real model, and is counted in ``misses``.
    """

    def __init__(self, table: Table, window: int, fallback=None, end: Callable[[], int] | None = None):
        self.table, self.window, self.fallback, self.end = table, window, fallback, end
        self.misses = 0
        self.hits = 0

    def _lookup(self, words, pauses, rel: int, lookahead: int, window: int):
        t = self.table
        offset = 0 if self.end is None else self.end() - len(words)
        i = offset + rel
        eff = min(lookahead, len(words) - 1 - rel)  # build_sample clips the lookahead the same way
        if not 0 <= i < len(t) or i + eff >= len(t):
            return None
        key = (window, eff)
        if key not in t.punct and i + eff == len(t) - 1:
            # At the end of the document any longer lookahead was clipped to this very sample.
            key = next(((w, l) for w, l in sorted(t.punct) if w == window and l > eff), key)
        if key not in t.punct:
            return None
        if words[rel] != t.words[i] or words[rel + eff] != t.words[i + eff]:
            return None
        lo = max(0, rel - window)  # a sample reaches at most window - 2 words to the left
        if list(pauses[lo : rel + eff + 1]) != t.expected_pauses(i - rel + lo, i + eff):
            return None
        return t.punct[key][i], t.case[key][i]

    def score(self, words, pauses, requests, window=None):
        window = window or self.window
        punct = np.zeros((len(requests), len(PUNCT_LABELS)))
        case = np.zeros((len(requests), len(CASE_LABELS)))
        missing = []
        for k, (rel, lookahead) in enumerate(requests):
            found = self._lookup(words, pauses, rel, lookahead, window)
            if found is None:
                missing.append(k)
            else:
                punct[k], case[k] = found
        if missing:
            if self.fallback is None:
                raise KeyError(
                    f"{len(missing)} requests are not in the table, and there is no fallback scorer"
                )
            p, c = self.fallback.score(words, pauses, [requests[k] for k in missing], window=window)
            punct[missing], case[missing] = p, c
        self.misses += len(missing)
        self.hits += len(requests) - len(missing)
        return punct, case


# ---- decoders over a table --------------------------------------------------------
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
    table: Table, words: list[Word], window: int, fallback, settings: dict, casing: CaseRenderer
) -> tuple[np.ndarray, np.ndarray, np.ndarray, TableScorer]:
    """The engine's StreamingDecoder over one document: (marks, cases, lookahead used) per word."""
    scorer = TableScorer(table, window, fallback)
    decoder = StreamingDecoder(scorer, casing=casing, **settings)
    scorer.end = lambda: decoder.word_count
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
    return marks, cases, used, scorer


def run_offline(
    table: Table, words: list[Word], window: int, fallback, views, pause_threshold, casing: CaseRenderer
):
    """The engine's OfflineDecoder: (marks, rendered cases, case-head argmax) per word."""
    scorer = TableScorer(table, window, fallback)
    decoder = OfflineDecoder(scorer, views=views, pause_threshold=pause_threshold, casing=casing)
    settled = decoder.decode(words)
    marks = np.array([PUNCT_LABELS.index(s.mark) for s in settled], dtype=int)
    cases = np.array([CASE_LABELS.index(s.case) for s in settled], dtype=int)
    _, case_probs = decoder.probabilities(words)  # for the case head alone; answered from the table
    return marks, cases, case_probs.argmax(axis=1), scorer


def synthesize_pauses(marks: np.ndarray, rng: np.random.Generator, given_mark=None) -> list[bool]:
    """The training rule: a pause after word j with probability pause_given_mark[mark_j];
    the end of the stream is a pause (as the offline decoder treats the end of a recording)."""
    p = np.asarray(given_mark if given_mark is not None else Noise().pause_given_mark)[np.asarray(marks, int)]
    flags = list(rng.random(len(marks)) < p)
    if flags:
        flags[-1] = True
    return [bool(f) for f in flags]
