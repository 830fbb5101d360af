"""Offline punctuation for whole transcripts, where all right context is known: mask-combine.

After *Mask-combine decoding and classification approach for punctuation prediction with
real-time inference constraints* (§3): the tagger reads overlapping windows of W tokens whose
right edges are s words apart; in each window the answers for words with too little context
(fewer than m_l words to their left or m_r to their right, except at the start and the end of
the text) are masked, and the remaining distributions are averaged per word, optionally
weighted by the word's distance from the window's nearer edge (Yap 2021, *Punctuation
restoration in speech-to-text transcripts*). Exports use this, so an exported transcript is
better than the live captions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.events import Settled
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.cue_fusion import CueFusion
from engine.punctuation.hint_fusion import HintFusion
from engine.punctuation.model_inputs import pauses_from_times
from engine.punctuation.scoring import ModelScorer, Scorer, sentence_final_mark
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.word_cues import word_cues
from engine.words import CASE_LABELS, PUNCT_LABELS, Word

ProgressCallback = Callable[[int, int], None]


def window_ends(n: int, stride: int) -> list[int]:
    """Right edges of the offline windows: every ``stride``-th word, and always the last word."""
    ends = list(range(min(stride, n) - 1, n, stride))
    if n and ends[-1] != n - 1:
        ends.append(n - 1)
    return ends


class OfflineDecoder:
    # Windows per model call: also the progress step, the unit of parallel work, and how soon
    # a cancel lands.
    WINDOWS_PER_CHUNK = 16

    def __init__(
        self,
        scorer: Scorer,
        settings: DecoderSettings,
        casing: CaseRenderer | None = None,
        workers: int = 1,
        hint_fusion: HintFusion | None = None,
        cue_fusion: CueFusion | None = None,
    ):
        """Decodes with ``settings``' offline window, stride, edge masks and weighting, and pause
        threshold. ``workers`` > 1 scores that many chunks at once: ONNX Runtime lets go of the
        GIL while it runs, so a single-threaded model session still uses that many cores (exports
        after a session, when the live engine is idle)."""
        self.settings = settings
        self.scorer = scorer
        self.window, self.stride = settings.offline_window, settings.offline_stride
        self.min_left, self.min_right = settings.offline_min_left, settings.offline_min_right
        self.edge_weighting = settings.offline_edge_weighting
        self.pause_threshold = settings.pause_threshold
        self.casing = casing or CaseRenderer(enabled=settings.casing)
        self.workers = max(1, int(workers))
        self.hint_fusion = hint_fusion  # folds what a recognizer wrote into the answers (None: ignored)
        self.cue_fusion = cue_fusion  # folds each word's timing and audio into them (None: ignored)

    @classmethod
    def from_model(
        cls,
        model,
        settings: DecoderSettings | None = None,
        workers: int = 1,
        recognizer: str | None = None,
        known_forms: Mapping[str, str] | None = None,
    ) -> OfflineDecoder:
        """A decoder on ``settings`` (default: the model's recommended ones): their offline window,
        stride, edge masks and weighting, pause threshold and casing; for the words of the
        recognizer kind ``recognizer`` (its cue fusion; None: the model's default one);
        ``known_forms``: written forms of words the user declared (``CaseRenderer``)."""
        settings = settings or model.config.decoder
        casing = CaseRenderer(model.config.lexicon, enabled=settings.casing, known_forms=known_forms)
        return cls(
            ModelScorer(model),
            settings,
            casing=casing,
            workers=workers,
            hint_fusion=model.config.hint_fusion,
            cue_fusion=model.config.cue_fusion_for(recognizer),
        )

    def probabilities(self, words: Sequence[Word], progress: ProgressCallback | None = None):
        """Combined punctuation [N, 4] and case [N, 3] probabilities for every word."""
        n = len(words)
        punct = np.zeros((n, len(PUNCT_LABELS)))
        case = np.zeros((n, len(CASE_LABELS)))
        for positions, p, c, _ in self._scored_runs(words, progress):
            punct[positions.start : positions.stop] = p
            case[positions.start : positions.stop] = c
        return punct, case

    def _weights(self, first: int, end: int, last: int) -> np.ndarray:
        """Each word's weight in the window ``first..end`` of a text whose last word is ``last``:
        0 where masked for too little context, else 1 (or the linear edge weight)."""
        k = np.arange(end - first + 1)
        left, right = k.astype(float), (end - first - k).astype(float)
        if first == 0:  # the start of the text is as good as full left context
            left[:] = np.inf
        if end == last:
            right[:] = np.inf
        keep = (left >= self.min_left) & (right >= self.min_right)
        if not self.edge_weighting:
            return keep.astype(float)
        half = max(1.0, (end - first) / 2)
        return keep * (0.5 + 0.5 * np.minimum(1.0, np.minimum(left, right) / half))

    def _scored_runs(self, words: Sequence[Word], progress: ProgressCallback | None):
        """(positions, combined punct, combined case, right context) for runs of words, in order,
        each as soon as no later window can reach it: a caller can use the first words' marks
        while the rest are still being scored."""
        n = len(words)
        if not n:
            return
        texts = [w.text for w in words]
        pauses = pauses_from_times(words, self.pause_threshold)
        if self.pause_threshold is not None and words[-1].end is not None:
            pauses[-1] = True  # the end of the recording is a pause
        cues = None
        if self.scorer.uses_cues or self.cue_fusion is not None:
            cues = word_cues(  # a recognizer's marks enter once: through hint fusion where the model has it
                words, pause_after_last=words[-1].end is not None, hints=self.hint_fusion is None
            )
        ends = window_ends(n, self.stride)
        chunks = [ends[k : k + self.WINDOWS_PER_CHUNK] for k in range(0, len(ends), self.WINDOWS_PER_CHUNK)]
        punct = np.zeros((n, len(PUNCT_LABELS)))
        case = np.zeros((n, len(CASE_LABELS)))
        weight = np.zeros(n)
        context = np.zeros(n, dtype=int)  # the most right context any counted answer had
        reach = self.window - 2  # a window of W tokens holds at most W - 2 words
        last = n - 1

        def tag(chunk):
            return self.scorer.tag(texts, pauses, chunk, self.window, cues=cues)

        # Windows are added in the same order whatever the workers, so any number gives the same
        # answer. A progress callback may raise to cancel: chunks not yet started are dropped.
        pool = (
            ThreadPoolExecutor(self.workers, thread_name_prefix="offline-punctuation")
            if self.workers > 1
            else None
        )
        done = 0
        try:
            results = zip(chunks, pool.map(tag, chunks) if pool else map(tag, chunks))
            for index, (chunk, tagged) in enumerate(results):
                for end, t in zip(chunk, tagged):
                    w = self._weights(t.first, end, last)
                    span = slice(t.first, end + 1)
                    punct[span] += w[:, None] * t.punct
                    case[span] += w[:, None] * t.case
                    weight[span] += w
                    counted = w > 0
                    here = context[span]
                    here[counted] = np.maximum(here[counted], (end - np.arange(t.first, end + 1))[counted])
                following = chunks[index + 1][0] if index + 1 < len(chunks) else None
                ready = n if following is None else max(done, following - reach)
                if ready > done:
                    run = self._finish(texts, pauses, cues, range(done, ready), punct, case, weight, context)
                    yield self._folded(words, cues, *run)
                    done = ready
                    if progress:
                        progress(done, n)
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)

    def _finish(self, texts, pauses, cues, positions: range, punct, case, weight, context):
        """Normalise a run's sums. A word no window counted (long words crowded it out, or masks
        left nothing) is read from a window that ends ``min_right`` words after it, unmasked."""
        span = slice(positions.start, positions.stop)
        bare = [i for i in positions if weight[i] <= 0]
        if bare:
            last = len(texts) - 1
            edges = [min(last, i + self.min_right) for i in bare]
            tagged = self.scorer.tag(texts, pauses, edges, self.window, cues=cues)
            for i, end, t in zip(bare, edges, tagged):
                row = max(0, i - t.first)
                punct[i], case[i], weight[i], context[i] = t.punct[row], t.case[row], 1.0, end - i
        return positions, punct[span] / weight[span, None], case[span] / weight[span, None], context[span]

    def _folded(self, words: Sequence[Word], cues, positions: range, punct, case, context):
        """A run's combined answers with each word's timing and audio (``cue_fusion``), then what
        the recognizer wrote (``hint_fusion``), folded in."""
        if self.cue_fusion is not None:
            punct = self.cue_fusion.fuse(punct, cues, positions)
        if self.hint_fusion is not None:
            punct, case = self.hint_fusion.fuse(
                punct,
                case,
                words[positions.start : positions.stop],
                [words[i - 1].written if i else "" for i in positions],
            )
        return positions, punct, case, context

    def decode(
        self, words: Sequence[Word], progress: ProgressCallback | None = None, end_of_input: bool = False
    ) -> list[Settled]:
        """Marks and case for every word. ``end_of_input``: the last word ends the input, so it ends
        a sentence too (``sentence_final_mark``); off for a piece of a longer text."""
        return [s for run in self.iter_decode(words, progress, end_of_input) for s in run]

    def iter_decode(
        self, words: Sequence[Word], progress: ProgressCallback | None = None, end_of_input: bool = False
    ):
        """``decode`` a run of words at a time, each run as soon as it is scored: a long text
        shows (and keeps) its first sentences long before the end."""
        previous: str | None = None
        last = len(words) - 1
        for positions, punct, case, context in self._scored_runs(words, progress):
            run: list[Settled] = []
            for i, pp, cc, right in zip(positions, punct, case, context):
                mark = PUNCT_LABELS[int(np.argmax(pp))]
                if end_of_input and i == last:
                    mark = sentence_final_mark(pp)
                case_label, form = self.casing.render(
                    words[i].text,
                    CASE_LABELS[int(np.argmax(cc))],
                    previous,
                    words[i - 1].text if i > 0 else None,
                    words[i + 1].text if i < last else None,
                )
                run.append(
                    Settled(i, mark, case_label, int(right), form, float(pp[PUNCT_LABELS.index(mark)]))
                )
                previous = mark
            yield run
