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

WIDTH = 20
REDRAW_INTERVAL = 0.1


def format_elapsed(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def render(fraction: float | None, elapsed: float, label: str = "") -> str:
    """One line of the bar; ``fraction`` None when the total is unknown."""
    if fraction is None:
        bar, percent = "?" * WIDTH, "  ?%"
    else:
        fraction = min(1.0, max(0.0, fraction))
        filled = int(fraction * WIDTH)
        bar, percent = "#" * filled + "-" * (WIDTH - filled), f"{fraction * 100:3.0f}%"
    return f"[{bar}] {percent} {format_elapsed(elapsed)}" + (f" {label}" if label else "")


class ProgressBar:
    def __init__(
        self, label: str = "", stream: TextIO | None = None, line_interval: float = 5.0, clock=time.monotonic
    ):
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
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
            self.stream.write("\r\x1b[K" + render(fraction, now - self._t0, self.label))
        else:
            tenth = -1 if fraction is None else int(fraction * 10)
            if tenth == self._last_tenth and now - self._last_draw < self.line_interval:
                return
            self._last_tenth = tenth
            self.stream.write(render(fraction, now - self._t0, self.label) + "\n")
        self._last_draw = now
        self._drawn = True
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line, so what is printed next starts on a fresh one."""
        if self.interactive and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False
