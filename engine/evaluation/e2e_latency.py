"""Latency of live captions, per word: when each word was first shown and when it settled.

Part of the end-to-end benchmark (``python -m engine.evaluation.e2e``, whose help says what the
figures mean); ``engine.evaluation.e2e_run`` runs the session this measures. A ``Probe``
subscribes to the session and stamps every event with two clocks, the wall clock and the audio
the session had fed by then; ``latencies`` then matches the final transcript's words to those
stamps. Both clocks are kept because a paced run is judged on wall time (what a reader waits)
and a ``--fast`` one on stream time (the algorithmic latency, without compute time).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["DISPLAY_TOLERANCE", "Probe", "Shown", "first_display", "latencies", "percentile"]

DISPLAY_TOLERANCE = 0.15  # seconds: a displayed word is "the same word" if its span overlaps within this


@dataclass
class Shown:
    wall: float  # time.monotonic() when the subscriber got it
    stream: float  # seconds of audio the session had fed by then
    text: str
    start: float | None
    end: float | None


@dataclass
class Probe:
    """A session subscriber that timestamps every displayed word and every settled position."""

    session: object = None
    shown: list[Shown] = field(default_factory=list)
    settled: dict[int, tuple[float, float]] = field(
        default_factory=dict
    )  # position -> (wall, stream), the last one
    appended: dict[int, tuple[float, float]] = field(
        default_factory=dict
    )  # position -> (wall, stream), the last one
    withdrawn: int = 0  # settled marks taken back because the recognizer replaced their word
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, events: list) -> None:
        from engine.events import Appended, PartialWords, Settled, Withdrawn

        wall = time.monotonic()
        stream = self.session.stream_time if self.session is not None else 0.0
        with self.lock:
            for event in events:
                if isinstance(event, PartialWords):
                    self.shown += [Shown(wall, stream, w.text, w.start, w.end) for w in event.words]
                elif isinstance(event, Appended):
                    w = event.word
                    self.shown.append(Shown(wall, stream, w.text, w.start, w.end))
                    self.appended[event.position] = (wall, stream)
                elif isinstance(event, Settled):
                    self.settled[event.position] = (wall, stream)  # a re-settled position: the last one holds
                elif isinstance(event, Withdrawn):
                    self.withdrawn += 1


def first_display(word, shown: Sequence[Shown], tolerance: float = DISPLAY_TOLERANCE) -> Shown | None:
    """The earliest display of ``word``: same text, time span overlapping (within ``tolerance``)."""
    best = None
    for s in shown:
        if s.text != word.text or s.start is None or s.end is None:
            continue
        if (
            s.start < word.end + tolerance
            and s.end > word.start - tolerance
            and (best is None or s.wall < best.wall)
        ):
            best = s
    return best


def percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if len(values) else None


def latencies(words, probe: Probe, origin: float | None) -> dict:
    """Per-word first-display and settled latencies in seconds: wall clock against ``origin + end``
    when paced (``origin`` = wall time of stream time 0), else stream time fed against ``end``."""
    by_text = defaultdict(list)
    for s in probe.shown:
        by_text[s.text].append(s)
    display, committed, settled = [], [], []
    for p, w in enumerate(words):
        if w.end is None:
            continue
        heard = (origin + w.end) if origin is not None else w.end
        s = first_display(w, by_text[w.text])
        if s is not None:
            display.append((s.wall if origin is not None else s.stream) - heard)
        if p in probe.appended:  # committed: handed to the punctuation engine for good
            wall, stream = probe.appended[p]
            committed.append((wall if origin is not None else stream) - heard)
        if p in probe.settled:
            wall, stream = probe.settled[p]
            settled.append((wall if origin is not None else stream) - heard)
    summary = lambda xs: {
        "p50": percentile(xs, 50),
        "p90": percentile(xs, 90),
        "max": percentile(xs, 100),
        "words": len(xs),
    }
    return {
        "clock": "wall" if origin is not None else "stream",
        "first_display_s": summary(display),
        "committed_s": summary(committed),
        "settled_s": summary(settled),
    }
