"""Offline punctuation for whole transcripts, where all right context is known.

The classifier analogue of mask-combine ("Mask-combine decoding and classification approach
for punctuation prediction with real-time inference constraints", §3): each position is scored
in several *views* (a lookahead and a window size, so the word sits at a
different place in each window) and the probability distributions are averaged.
Exports use this, so an exported transcript is better than the live captions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.punctuation.casing import CaseRenderer
from engine.punctuation.model_inputs import pauses_from_times
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import ModelScorer, Scorer, Settled
from engine.words import CASE_LABELS, PUNCT_LABELS, Word

ProgressCallback = Callable[[int, int], None]


class OfflineDecoder:
    # Positions per model call (one batch): also the progress step, the unit of parallel work,
    # and how soon a cancel lands.
    CHUNK = 64

    def __init__(
        self,
        scorer: Scorer,
        views: Sequence[tuple[int, int]] = ((4, 32), (3, 32)),
        pause_threshold: float | None = 0.28,
        casing: CaseRenderer | None = None,
        workers: int = 1,
    ):
        """``workers`` > 1 scores that many chunks at once: ONNX Runtime lets go of the GIL while it
        runs, so a single-threaded model session still uses that many cores (exports after a
        session, when the live engine is idle)."""
        if not views:
            raise ValueError("the offline decoder needs at least one (lookahead, window) view")
        self.scorer = scorer
        self.views = tuple(views)
        self.pause_threshold = pause_threshold
        self.casing = casing or CaseRenderer()
        self.workers = max(1, int(workers))

    @classmethod
    def from_model(cls, model, settings: DecoderSettings | None = None, workers: int = 1) -> OfflineDecoder:
        """A decoder on ``settings`` (default: the model's recommended ones): their offline views,
        pause threshold and casing."""
        settings = settings or model.config.decoder
        return cls(
            ModelScorer(model),
            views=settings.offline_views,
            pause_threshold=settings.pause_threshold,
            casing=CaseRenderer(model.config.lexicon, enabled=settings.casing),
            workers=workers,
        )

    def probabilities(self, words: Sequence[Word], progress: ProgressCallback | None = None):
        """Averaged punctuation [N, 4] and case [N, 3] probabilities for every word."""
        n = len(words)
        texts = [w.text for w in words]
        pauses = pauses_from_times(words, self.pause_threshold)
        if n and self.pause_threshold is not None and words[-1].end is not None:
            pauses[-1] = True  # the end of the recording is a pause
        punct = np.zeros((n, len(PUNCT_LABELS)))
        case = np.zeros((n, len(CASE_LABELS)))
        total, done = n * len(self.views), 0
        chunks = [
            (lookahead, window, range(lo, min(n, lo + self.CHUNK)))
            for lookahead, window in self.views
            for lo in range(0, n, self.CHUNK)
        ]

        def score(chunk):
            lookahead, window, positions = chunk
            return self.scorer.score(texts, pauses, [(i, lookahead) for i in positions], window=window)

        # Results are summed in chunk order, so any number of workers gives the same answer.
        # A progress callback may raise to cancel: the chunks not yet started are dropped.
        pool = (
            ThreadPoolExecutor(self.workers, thread_name_prefix="offline-punctuation")
            if self.workers > 1
            else None
        )
        try:
            for (_, _, positions), (p, c) in zip(
                chunks, pool.map(score, chunks) if pool else map(score, chunks)
            ):
                punct[positions.start : positions.stop] += p
                case[positions.start : positions.stop] += c
                done += len(positions)
                if progress:
                    progress(done, total)
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        k = len(self.views)
        return punct / k, case / k

    def decode(self, words: Sequence[Word], progress: ProgressCallback | None = None) -> list[Settled]:
        punct, case = self.probabilities(words, progress)
        results: list[Settled] = []
        previous: str | None = None
        max_lookahead = max(l for l, _ in self.views)
        for i, word in enumerate(words):
            mark = PUNCT_LABELS[int(np.argmax(punct[i]))]
            case_label, form = self.casing.render(word.text, CASE_LABELS[int(np.argmax(case[i]))], previous)
            lookahead = min(max_lookahead, len(words) - 1 - i)
            results.append(Settled(i, mark, case_label, lookahead, form, float(punct[i].max())))
            previous = mark
        return results
