"""The latency ↔ accuracy setting: one slider value (0 fastest .. 100 most accurate) to the
streaming decoder's entropy threshold h and lookahead limit l_max.

People think in "how long until the comma appears", not in bits of entropy, so the slider
moves linearly in *average lookahead* (words the decoder waits before settling a mark) and
the threshold that gives that lookahead is read off the model's own ETD sweep
(``eval_report.json`` beside the model, key ``text`` → ``etd_sweep``: rows of threshold,
avg_lookahead, F1 measured on held-out text). The middle of the slider (50, the default) is
anchored at the model's recommended threshold from ``config.json``, so the default behaves
exactly as the model card says; each half of the slider then spreads evenly in lookahead
towards the sweep's fastest and slowest rows.

A model without a report (a custom ``--model-dir``) still gets a usable slider: the
threshold then moves linearly between the usual bounds, and no lookahead is promised.

Headless on purpose: the engine owns decoder settings; the app only shows the slider.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPORT_FILE = "eval_report.json"
DEFAULT_VALUE = 50
# Without a sweep: thresholds (bits) the decoder is sensible between. 0.1 almost always
# waits for l_max; 1.5 settles most marks after one word (see the shipped sweep).
FALLBACK_RANGE = (0.1, 1.5)


@dataclass(frozen=True)
class SweepRow:
    threshold: float
    avg_lookahead: float
    f1: float | None


@dataclass(frozen=True)
class LatencySetting:
    """What one slider value means for the decoder, and what it costs."""

    value: int
    threshold: float
    l_max: int
    avg_lookahead: float | None  # words; None when the model ships no sweep
    f1: float | None  # expected punctuation F1 (percent) on the sweep's text; None without one

    def describe(self) -> str:
        """A short line for the UI, e.g. "marks wait ≈1.4 words"."""
        if self.avg_lookahead is None:
            return f"threshold {self.threshold:.2f} bits"
        return f"marks wait ≈{self.avg_lookahead:.1f} words"

    def detail(self) -> str:
        """The longer story, for a tooltip."""
        text = f"Entropy threshold {self.threshold:.2f} bits, at most {self.l_max} words of lookahead."
        if self.avg_lookahead is not None:
            text += f" On the model's test text a mark waits {self.avg_lookahead:.2f} words on average"
            text += f" and punctuation scores F1 {self.f1:.1f}%." if self.f1 is not None else "."
        return text


class LatencyMap:
    def __init__(self, rows: list[SweepRow], l_max: int, default_threshold: float):
        if l_max < 0:
            raise ValueError(f"l_max must be at least 0, got {l_max}")
        self.l_max = l_max
        self.default_threshold = float(default_threshold)
        # Sorted by lookahead, the x axis every interpolation below runs on.
        self.rows = sorted(rows, key=lambda r: (r.avg_lookahead, -r.threshold))
        if len(self.rows) >= 2:
            xs = np.array([r.avg_lookahead for r in self.rows])
            if np.any(np.diff(xs) < 0):  # cannot happen after sorting; guards edits above
                raise ValueError("sweep rows must be sortable by lookahead")
            self._lookahead = xs
            self._threshold = np.array([r.threshold for r in self.rows])
            have_f1 = all(r.f1 is not None for r in self.rows)
            self._f1 = np.array([r.f1 for r in self.rows], dtype=float) if have_f1 else None
            # The default threshold's lookahead, read off the sweep (threshold falls as lookahead rises).
            by_threshold = sorted(self.rows, key=lambda r: r.threshold)
            self._mid = float(
                np.interp(
                    self.default_threshold,
                    [r.threshold for r in by_threshold],
                    [r.avg_lookahead for r in by_threshold],
                )
            )
        else:
            self._lookahead = None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_report(cls, path: str | os.PathLike[str], default_threshold: float) -> LatencyMap:
        """Read the ETD sweep from an evaluation report; ValueError when it has none."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            sweep = data["text"]["etd_sweep"]
            rows = [
                SweepRow(
                    float(r["threshold"]),
                    float(r["avg_lookahead"]),
                    None if r.get("f1") is None else float(r["f1"]),
                )
                for r in sweep["rows"]
            ]
            l_max = int(sweep.get("l_max", 4))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: no usable ETD sweep ({type(exc).__name__}: {exc})") from exc
        if len(rows) < 2:
            raise ValueError(f"{path}: the ETD sweep needs at least two rows")
        return cls(rows, l_max, default_threshold)

    @classmethod
    def for_model(
        cls, model_dir: str | os.PathLike[str] | None, default_threshold: float, l_max: int
    ) -> LatencyMap:
        """The map for a model folder: its sweep if it ships one, else the linear fallback."""
        if model_dir is not None:
            report = Path(model_dir) / REPORT_FILE
            if report.is_file():
                try:
                    return cls.from_report(report, default_threshold)
                except ValueError:
                    pass  # a damaged report must not stop captions: fall back below
        return cls([], l_max, default_threshold)

    # -- the mapping --------------------------------------------------------------------
    def setting(self, value: int) -> LatencySetting:
        v = int(min(100, max(0, value)))
        if self._lookahead is None:
            lo, hi = FALLBACK_RANGE
            mid = min(hi, max(lo, self.default_threshold))
            # Threshold falls as the slider moves towards accuracy; 50 is the model's default.
            h = mid + (hi - mid) * (50 - v) / 50 if v <= 50 else mid - (mid - lo) * (v - 50) / 50
            return LatencySetting(v, round(h, 4), self.l_max, None, None)
        lo, hi, mid = float(self._lookahead[0]), float(self._lookahead[-1]), self._mid
        target = lo + (mid - lo) * v / 50 if v <= 50 else mid + (hi - mid) * (v - 50) / 50
        h = float(np.interp(target, self._lookahead, self._threshold))
        f1 = float(np.interp(target, self._lookahead, self._f1)) if self._f1 is not None else None
        if v == 50:
            h = self.default_threshold  # exactly the model's recommendation, not an interpolation of it
        return LatencySetting(
            v, round(h, 4), self.l_max, round(target, 3), None if f1 is None else round(f1, 2)
        )
