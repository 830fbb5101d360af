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
from engine.punctuation.streaming import ModelScorer, Scorer, Settled, sentence_final_mark
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
        punct = np.zeros((n, len(PUNCT_LABELS)))
        case = np.zeros((n, len(CASE_LABELS)))
        for positions, p, c in self._scored_chunks(words, progress):
            punct[positions.start : positions.stop] = p
            case[positions.start : positions.stop] = c
        return punct, case

    def _scored_chunks(self, words: Sequence[Word], progress: ProgressCallback | None):
        """(positions, averaged punct, averaged case) for each run of CHUNK positions, in order:
        a caller can use the first words' marks while the rest are still being scored."""
        n = len(words)
        texts = [w.text for w in words]
        pauses = pauses_from_times(words, self.pause_threshold)
        if n and self.pause_threshold is not None and words[-1].end is not None:
            pauses[-1] = True  # the end of the recording is a pause
        total, done = n * len(self.views), 0
        # Position-major: every view of a run of positions, then the next run.
        chunks = [
            (lookahead, window, range(lo, min(n, lo + self.CHUNK)))
            for lo in range(0, n, self.CHUNK)
            for lookahead, window in self.views
        ]

        def score(chunk):
            lookahead, window, positions = chunk
            return self.scorer.score(texts, pauses, [(i, lookahead) for i in positions], window=window)

        # Views are summed in the same order for every position, so any number of workers gives
        # the same answer. A progress callback may raise to cancel: chunks not yet started are dropped.
        pool = (
            ThreadPoolExecutor(self.workers, thread_name_prefix="offline-punctuation")
            if self.workers > 1
            else None
        )
        k = len(self.views)
        try:
            results = zip(chunks, pool.map(score, chunks) if pool else map(score, chunks))
            for index, ((_, _, positions), (p, c)) in enumerate(results):
                if index % k == 0:
                    punct, case = np.zeros_like(p, dtype=float), np.zeros_like(c, dtype=float)
                punct += p
                case += c
                done += len(positions)
                if progress:
                    progress(done, total)
                if index % k == k - 1:
                    yield positions, punct / k, case / k
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)

    def decode(
        self, words: Sequence[Word], progress: ProgressCallback | None = None, end_of_input: bool = False
    ) -> list[Settled]:
        """Marks and case for every word. ``end_of_input``: the last word ends the input, so it ends
        a sentence too (``sentence_final_mark``); off for a piece of a longer text."""
        return [s for run in self.iter_decode(words, progress, end_of_input) for s in run]

    def iter_decode(
        self, words: Sequence[Word], progress: ProgressCallback | None = None, end_of_input: bool = False
    ):
        """``decode`` a run of CHUNK words at a time, each run as soon as it is scored: a long text
        shows (and keeps) its first sentences long before the end."""
        previous: str | None = None
        max_lookahead = max(l for l, _ in self.views)
        last = len(words) - 1
        for positions, punct, case in self._scored_chunks(words, progress):
            run: list[Settled] = []
            for i, pp, cc in zip(positions, punct, case):
                mark = PUNCT_LABELS[int(np.argmax(pp))]
                if end_of_input and i == last:
                    mark = sentence_final_mark(pp)
                case_label, form = self.casing.render(
                    words[i].text, CASE_LABELS[int(np.argmax(cc))], previous
                )
                lookahead = min(max_lookahead, last - i)
                run.append(Settled(i, mark, case_label, lookahead, form, float(pp[PUNCT_LABELS.index(mark)])))
                previous = mark
            yield run
