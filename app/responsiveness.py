"""Measure whether the UI thread blocks: how late a 10 ms timer fires while the app runs.

A timer that should fire every 10 ms fires late by as long as the UI thread was
busy or waiting (a long redraw, a lock, another thread holding the GIL). The
lateness of every tick is kept; ``report()`` gives its median, p99 and worst
case, and how many ticks were later than a frame (50 ms: a visible hitch) or
100 ms. ``livecap app --play FILE --ui-report PATH`` writes it, with the
start-up timings, as JSON.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer

TICK_MS = 10
HITCH_MS = 50  # later than this is a visible stutter


class EventLoopMonitor(QObject):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._timer = QTimer(self, interval=TICK_MS, timerType=Qt.PreciseTimer, timeout=self._tick)
        self._last: float | None = None
        self._origin = 0.0
        self.lateness_ms: list[float] = []
        self.at_s: list[float] = []  # when each tick fired, seconds after start()

    def start(self) -> None:
        self._last = self._origin = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.lateness_ms.append(max(0.0, (now - self._last) * 1000 - TICK_MS))
            self.at_s.append(now - self._origin)
        self._last = now

    def report(self) -> dict:
        late = np.asarray(self.lateness_ms)
        if late.size == 0:
            return {"ticks": 0}
        return {
            "ticks": int(late.size),
            "tick_ms": TICK_MS,
            "lateness_ms": {
                "p50": round(float(np.median(late)), 2),
                "p99": round(float(np.percentile(late, 99)), 1),
                "max": round(float(late.max()), 1),
            },
            f"ticks_later_than_{HITCH_MS}_ms": int((late > HITCH_MS).sum()),
            "ticks_later_than_100_ms": int((late > 100).sum()),
            # where to look: the five latest ticks, as [seconds after the window showed, ms late]
            "worst": [[round(self.at_s[i], 2), round(float(late[i]), 1)] for i in np.argsort(late)[::-1][:5]],
        }
