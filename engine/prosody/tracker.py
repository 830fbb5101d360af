"""A session side's recent audio, and the prosody of each word it commits.

The side's thread hears every chunk (``hear``) and, when the recognizer commits words,
``annotate`` measures each timed word on the audio under its times. The audio is kept in a
fixed ring (``KEEP_SECONDS``): a recognizer commits a word within seconds of hearing it, and
a word older than the ring gets no prosody rather than a wrong one. Nothing here blocks: it
runs on the side's thread, after the recognizer, and costs a fraction of a millisecond a word.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.prosody.features import silence_span, word_prosody
from engine.words import Word

KEEP_SECONDS = 60.0
# A recognizer's word times are approximate: take a little either side so that a word's end
# (where its final fall or rise is) is not cut off.
MARGIN_BEFORE = 0.02
MARGIN_AFTER = 0.06
# Words whose times are kept, so that a word's pause is measured from the word before it, a
# newer writing of a committed word included (it comes after later words were measured).
RECENT_WORDS = 64


def _as_float(chunk: np.ndarray) -> np.ndarray:
    if chunk.dtype == np.int16:
        return chunk.astype(np.float32) / 32768.0
    return np.asarray(chunk, dtype=np.float32)


class ProsodyTracker:
    def __init__(self, keep_seconds: float = KEEP_SECONDS):
        self._ring = np.zeros(int(keep_seconds * SAMPLE_RATE), dtype=np.float32)
        self._heard = 0  # samples heard since the stream began
        self._recent: list[tuple[float, float]] = []  # (start, end) of the words measured, by start

    def hear(self, chunk: np.ndarray) -> None:
        """Keep ``chunk`` (int16 or float32 mono 16 kHz), the stream's next samples."""
        samples = _as_float(chunk)[-len(self._ring) :]  # a chunk longer than the ring: its end
        at = (self._heard + len(chunk) - len(samples)) % len(self._ring)
        first = min(len(samples), len(self._ring) - at)
        self._ring[at : at + first] = samples[:first]
        self._ring[: len(samples) - first] = samples[first:]
        self._heard += len(chunk)

    def audio(self, start: float, end: float) -> np.ndarray | None:
        """The stream's samples from ``start`` to ``end`` seconds, or None where they are not
        all held (not heard yet, or older than the ring)."""
        a, b = int(start * SAMPLE_RATE), int(end * SAMPLE_RATE)
        b = min(b, self._heard)
        if a < 0 or b <= a or a < self._heard - len(self._ring):
            return None
        size = len(self._ring)
        index = np.arange(a, b) % size
        return self._ring[index]

    def annotate(self, words: Sequence[Word]) -> list[Word]:
        """``words`` with ``prosody`` measured where they have times and their audio is held."""
        out = []
        for w in words:
            if w.has_times and not w.prosody:
                samples = self.audio(max(0.0, w.start - MARGIN_BEFORE), w.end + MARGIN_AFTER)
                if samples is not None:
                    at = bisect.bisect_left(self._recent, (w.start, -1.0))
                    before = self.audio(*silence_span(self._recent[at - 1], (w.start, w.end))) if at else None
                    w = dataclasses.replace(w, prosody=word_prosody(samples, before))
                    if at == len(self._recent) or self._recent[at][0] != w.start:
                        self._recent.insert(at, (w.start, w.end))
                        del self._recent[:-RECENT_WORDS]
            out.append(w)
        return out


def annotate_recording(audio: np.ndarray, words: Sequence[Word], previous: Word | None = None) -> list[Word]:
    """``words`` of a whole recording (int16 or float32, 16 kHz, from time 0) with their prosody,
    measured as a live session measures it: the evaluations and training replay saved readings
    through this. ``previous``: the word before the first of ``words``, where they are a later
    batch of the same recording (the first word's pause is measured from it)."""
    out = []
    last = (previous.start, previous.end) if previous is not None and previous.has_times else None
    for w in words:
        if w.has_times and not w.prosody:
            a = max(0, int((w.start - MARGIN_BEFORE) * SAMPLE_RATE))
            b = min(len(audio), int((w.end + MARGIN_AFTER) * SAMPLE_RATE))
            if b > a:
                before = None
                if last is not None:
                    lo, hi = silence_span(last, (w.start, w.end))
                    before = _as_float(audio[max(0, int(lo * SAMPLE_RATE)) : int(hi * SAMPLE_RATE)])
                w = dataclasses.replace(w, prosody=word_prosody(_as_float(audio[a:b]), before))
        if w.has_times:
            last = (w.start, w.end)
        out.append(w)
    return out
