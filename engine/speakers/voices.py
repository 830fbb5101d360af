"""Who among the others, during a meeting: the others' side's recent audio and the turn labeller
(``clustering.TurnLabeller``) working on it, for the session's merger.

The others' words are labelled "others:N" as they are committed, from the voice of the turn so
far, so a label shows with its word; as the turn goes on, a better-heard turn may change its
label, and the merger publishes the correction (``SpeakersLabelled``), until the turn settles.
Everything here runs on the others' side's thread (its audio arrives there, and its words are
committed there), so it needs no lock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.speakers.clustering import TurnLabeller
from engine.words import Word

__all__ = ["OthersVoices"]

KEEP_SECONDS = 60.0  # audio kept: far more than a word waits for its commit
PAD = 0.05  # seconds of audio either side of a word's times (recognizers' times are approximate)


class OthersVoices:
    def __init__(self, embed: Callable[[np.ndarray], np.ndarray], **labeller_options):
        self.labeller = TurnLabeller(embed, **labeller_options)
        self._chunks: deque[tuple[int, np.ndarray]] = deque()  # (first stream sample, audio)
        self._kept = 0  # samples in self._chunks
        self._positions: list[int] = []  # labeller position -> stream position
        self._shown: list[str] = []  # the label last shown, by labeller position
        self._settled_shown = 0  # labeller positions whose final label was published

    # -- the others' side's audio ---------------------------------------------------------------
    def hear(self, chunk: np.ndarray, first_sample: int) -> None:
        """A chunk of the others' audio (int16), before their recognizer hears it. Chunks are kept
        as they come (no copying of the whole history per chunk), the oldest dropped past KEEP."""
        self._chunks.append((first_sample, chunk.astype(np.float32) / 32768.0))
        self._kept += len(chunk)
        while self._chunks and self._kept - len(self._chunks[0][1]) >= KEEP_SECONDS * SAMPLE_RATE:
            self._kept -= len(self._chunks.popleft()[1])

    def _span(self, word: Word) -> np.ndarray:
        if word.start is None or word.end is None:
            return np.zeros(0, np.float32)
        a = int((word.start - PAD) * SAMPLE_RATE)
        b = int((word.end + PAD) * SAMPLE_RATE)
        parts = [
            audio[max(0, a - first) : max(0, b - first)]
            for first, audio in self._chunks
            if first < b and first + len(audio) > a
        ]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    # -- labels -----------------------------------------------------------------------------------
    def label(self, words: Sequence[Word], now: float) -> list[str]:
        """Committed words of the others, in order: their labels now."""
        for word in words:
            start = word.start if word.start is not None else now
            self.labeller.add_word(start, word.end if word.end is not None else start, self._span(word))
        self.labeller.advance(now)
        new = self.labeller.labels(len(self._shown))
        self._shown += new
        return new

    def placed(self, stream_positions: Sequence[int]) -> None:
        """Where the words ``label`` just labelled went in the session's stream."""
        self._positions += stream_positions

    def corrections(self, now: float, stream_words: int) -> tuple[list[tuple[int, str]], int] | None:
        """(changed labels by stream position, the stream position below which every label is
        final), or None when nothing changed and nothing newly settled."""
        self.labeller.advance(now)
        labels = self.labeller.labels(self._settled_shown)  # from the first label not yet final
        changed = []
        for k in range(self._settled_shown, len(self._shown)):
            label = labels[k - self._settled_shown]
            if label != self._shown[k] and k < len(self._positions):
                self._shown[k] = label
                changed.append((self._positions[k], label))
        settled = min(self.labeller.settled, len(self._positions))
        if not changed and settled == self._settled_shown:
            return None
        self._settled_shown = settled
        open_from = self._positions[settled] if settled < len(self._positions) else stream_words
        return changed, open_from
