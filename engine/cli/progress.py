"""A small progress bar for the terminal: ``[#####-----]  45% 0:12 label``.

On a terminal it redraws one line in place, at most ten times a second. When
stderr is a file or a pipe (a log, CI), carriage returns would make a mess, so
it writes an ordinary line at most every ``line_interval`` seconds and at each
tenth of the way instead.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from engine.elapsed import format_elapsed

WIDTH = 20
REDRAW_INTERVAL = 0.1


def render(fraction: float | None, elapsed: float, label: str = "", rate: str = "") -> str:
    """One line of the bar; ``fraction`` None when the total is unknown; ``rate``: e.g. "1,200
    words/s, 0:41 left"."""
    if fraction is None:
        bar, percent = "?" * WIDTH, "  ?%"
    else:
        fraction = min(1.0, max(0.0, fraction))
        filled = int(fraction * WIDTH)
        bar, percent = "#" * filled + "-" * (WIDTH - filled), f"{fraction * 100:3.0f}%"
    line = f"[{bar}] {percent} {format_elapsed(elapsed)}"
    return line + (f" ({rate})" if rate else "") + (f" {label}" if label else "")


def format_rate(done: float, total: float | None, elapsed: float, unit: str) -> str:
    """How fast, and how long is left at that speed ("" until there is a speed to tell)."""
    if not unit or done <= 0 or elapsed <= 0:
        return ""
    per_second = done / elapsed
    text = f"{per_second:,.0f} {unit}/s"
    if total and done < total:
        text += f", {format_elapsed((total - done) / per_second)} left"
    return text


class ProgressBar:
    def __init__(
        self,
        label: str = "",
        stream: TextIO | None = None,
        line_interval: float = 5.0,
        clock=time.monotonic,
        unit: str = "",
    ):
        """``unit``: what ``done`` counts ("words"): the bar then shows the speed and the time left."""
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.unit = unit
        self.line_interval = line_interval
        self._clock = clock
        self._t0 = clock()
        self._last_draw = float("-inf")
        self._last_tenth = -1
        self._drawn = False
        try:
            self.interactive = self.stream.isatty()
        except (AttributeError, ValueError):
            self.interactive = False

    def update(self, done: float, total: float | None, label: str | None = None) -> None:
        if label is not None:
            self.label = label
        fraction = done / total if total else None
        now = self._clock()
        if self.interactive:
            if now - self._last_draw < REDRAW_INTERVAL and (fraction or 0) < 1:
                return
            self.stream.write("\r\x1b[K" + self._line(done, total, fraction, now))
        else:
            tenth = -1 if fraction is None else int(fraction * 10)
            if tenth == self._last_tenth and now - self._last_draw < self.line_interval:
                return
            self._last_tenth = tenth
            self.stream.write(self._line(done, total, fraction, now) + "\n")
        self._last_draw = now
        self._drawn = True
        self.stream.flush()

    def _line(self, done, total, fraction, now) -> str:
        elapsed = now - self._t0
        return render(fraction, elapsed, self.label, format_rate(done, total, elapsed, self.unit))

    def finish(self) -> None:
        """End the bar's line, so what is printed next starts on a fresh one."""
        if self.interactive and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False
