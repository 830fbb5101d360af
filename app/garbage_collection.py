"""Python's cyclic garbage collector, run on the UI thread only, between events.

A Qt widget whose Python wrapper sits in a reference cycle (a slot that captures the object
owning the widget tree is enough) is freed by the cyclic collector, not by reference counting.
CPython runs that collector wherever an allocation crosses its threshold: on the recognizer
or engine thread, or inside Qt's dispatch of an event to the very widget being freed, or
halfway through another widget's constructor. Qt then touches freed memory and the process
dies (SIGSEGV) at a place unrelated to the cause, now and then, more often under load.

So livecap turns automatic collection off while the window runs and collects from a timer
on the UI thread, where no Qt call is in progress: the same generations as CPython would
collect, once their counts pass the same thresholds, a little later.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["MainThreadCollector", "collect_on_ui_thread"]

INTERVAL_MS = 500  # how late a collection may come; each check costs a call to gc.get_count()


class MainThreadCollector(QObject):
    """Disables automatic collection and collects on its own thread's event loop instead.

    ``stop()`` (also run when the object is destroyed with its parent) turns automatic
    collection back on, as it was."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        gc.disable()
        self.collections = [0, 0, 0]  # per generation, for tests and --debug
        self._timer = QTimer(self, interval=interval_ms, timeout=self.check)
        self._timer.start()
        self.destroyed.connect(_enable_if(self._was_enabled))

    def check(self) -> int | None:
        """Collect the oldest generation whose count passed its threshold; returns which, or None."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        for generation in (2, 1, 0):
            # CPython's own rule: an older generation is collected once the younger one has
            # been collected more times than its threshold.
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                gc.collect(generation)
                self.collections[generation] += 1
                return generation
        return None

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def _enable_if(was_enabled: bool):
    # Not a bound method: the collector's wrapper is gone by the time ``destroyed`` fires.
    return lambda *_: gc.enable() if was_enabled else None


def collect_on_ui_thread(app: QObject) -> MainThreadCollector:
    """Collect cyclic garbage on ``app``'s thread only, from now until ``app`` quits."""
    collector = MainThreadCollector(app)
    app.aboutToQuit.connect(collector.stop)
    return collector
