"""Real-time pacing: hand a file's audio out no faster than a microphone would.

A paced chunk is released once the wall clock reaches the time its last sample "was
spoken", counted from ``started_at``; until then ``release`` keeps it (``take_held`` gives it
back on the next read), so a read never blocks much longer than its timeout. ``resume``
after a pause moves the origin on by the paused time: the paused time is not owed, so
playback does not race ahead to catch up.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from engine.audio import SAMPLE_RATE


class RealtimePacer:
    def __init__(self) -> None:
        self.started_at = 0.0  # time.monotonic() at which stream time 0 was due
        self.released = 0  # samples handed out since start()
        self._held: np.ndarray | None = None
        self._stopped = threading.Event()

    def start(self) -> None:
        self._stopped.clear()
        self._held = None
        self.started_at, self.released = time.monotonic(), 0

    def stop(self) -> None:
        """Wake a ``release`` that is waiting; it keeps its chunk."""
        self._stopped.set()

    def take_held(self) -> np.ndarray | None:
        """The chunk a previous ``release`` kept back, if any (the next one to hand out)."""
        chunk, self._held = self._held, None
        return chunk

    def release(self, chunk: np.ndarray, timeout: float) -> np.ndarray | None:
        """``chunk`` once its last sample is due (waiting up to ``timeout`` seconds), or None:
        then it is held for the next read."""
        due = self.started_at + (self.released + len(chunk)) / SAMPLE_RATE
        wait = due - time.monotonic()
        if wait > timeout:
            self._held = chunk
            self._stopped.wait(max(0.0, timeout))
            return None
        if wait > 0 and self._stopped.wait(wait):
            self._held = chunk
            return None
        self.released += len(chunk)
        return chunk

    def count(self, chunk: np.ndarray) -> np.ndarray:
        """An unpaced chunk handed out: stream time moves on without waiting."""
        self.released += len(chunk)
        return chunk

    def resume(self) -> None:
        """Pace on from now: stream time ``released`` is due at once."""
        self.started_at = time.monotonic() - self.released / SAMPLE_RATE
