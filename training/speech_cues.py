"""Timings and recognizer hints for text that was never spoken, drawn from speech that was.

Our training text has no audio. ``training.speech_timing`` reads a slice of it aloud
(espeak-ng, several voices and speeds), runs the readings through the recognizers and aligns
their words to the text. From that, this module keeps, per recognizer:

- the gap after a word, per reference mark (none, comma, period, question);
- the word's lengthening (its time per letter against the speaker's recent pace), per mark;
- the speaker's pace;
- for a recognizer that writes marks (Whisper), how its marks and capitals relate to the
  reference: P(written mark | true mark), P(capital | true case), and how often a true mark is
  written one word late.

as quantiles (``speech_cue_stats.json``, a few kilobytes, shipped beside this file so that any
checkout can train without synthesising speech). ``SpeechCues.draw`` then gives any window of
text a timeline and hints drawn from those distributions, and the cue rows the engine's own
``word_cues`` computes from it: training and inference read cues built the same way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.punctuation.hint_fusion import inside_written_sentence
from engine.punctuation.word_cues import (
    cue_index,
    recent_pace,
    seconds_per_letter,
    set_hint,
    word_cues,
    written_hint,
)
from engine.punctuation.word_cues import (
    letters as letters_of,
)
from engine.words import CASE_LABELS, PUNCT_LABELS, SENTENCE_END_MARKS, Word

DEFAULT_STATS = Path(__file__).with_name("speech_cue_stats.json")
QUANTILES = np.linspace(0.0, 1.0, 41)
HINTS_FROM = "whisper"  # the recognizer whose written marks become hints


def _quantiles(values) -> list[float]:
    values = np.asarray(values, dtype=float)
    if not len(values):
        return []
    return [round(float(v), 4) for v in np.quantile(values, QUANTILES)]


def stats_from_readings(readings: list[dict]) -> dict:
    """The distributions above, from ``training.speech_timing``'s aligned readings."""
    by_rec: dict[str, dict] = {}
    confusion = np.zeros((len(PUNCT_LABELS), len(PUNCT_LABELS)))
    capital = np.zeros((len(CASE_LABELS), 2))
    capital_inside = np.zeros((len(CASE_LABELS), 2))
    late = marked = 0
    for reading in readings:
        rows = reading["words"]
        words = [Word(r["text"], r["start"], r["end"], written=r.get("written") or "") for r in rows]
        if len(words) < 2:
            continue
        rec = by_rec.setdefault(
            reading["recognizer"],
            {
                "gap": [[] for _ in PUNCT_LABELS],
                "lengthening": [[] for _ in PUNCT_LABELS],
                "pace": [],
                "words": 0,
            },
        )
        cues = word_cues(words, hints=False)
        lengthening = cues[:, cue_index("lengthening")]
        pace = recent_pace(seconds_per_letter(words))
        rec["pace"] += [float(p) for p in pace if not np.isnan(p)]
        rec["words"] += len(words)
        for j, r in enumerate(rows):
            if r.get("ref_mark") is None:
                continue
            m = PUNCT_LABELS.index(r["ref_mark"])
            rec["lengthening"][m].append(float(lengthening[j]))
            # the silence between two excerpts is the synthesis's, not the reader's
            if j + 1 < len(rows) and rows[j + 1].get("excerpt") == r.get("excerpt"):
                rec["gap"][m].append(max(0.0, rows[j + 1]["start"] - r["end"]))
            if reading["recognizer"] != HINTS_FROM:
                continue
            hint = written_hint(r.get("written") or "")
            if hint is None:
                continue
            confusion[m, PUNCT_LABELS.index(hint[0])] += 1
            if r.get("ref_case") is not None:
                capital[CASE_LABELS.index(r["ref_case"]), int(hint[1])] += 1
                # Inside a sentence, by the reference and by Whisper's own writing, a capital is
                # the word's own (a name), which is what the tagger's case head predicts.
                before = rows[j - 1] if j else None
                if (
                    before is not None
                    and inside_written_sentence(before.get("written") or "")
                    and before.get("ref_mark") not in (None, *SENTENCE_END_MARKS)
                ):
                    capital_inside[CASE_LABELS.index(r["ref_case"]), int(hint[1])] += 1
            if m:
                marked += 1
                after = written_hint(rows[j + 1].get("written") or "") if j + 1 < len(rows) else None
                if hint[0] == "none" and after is not None and after[0] == r["ref_mark"]:
                    late += 1
    out = {"quantiles": len(QUANTILES), "recognizers": {}}
    for name, rec in sorted(by_rec.items()):
        out["recognizers"][name] = {
            "words": rec["words"],
            "gap": {PUNCT_LABELS[m]: _quantiles(v) for m, v in enumerate(rec["gap"])},
            "lengthening": {PUNCT_LABELS[m]: _quantiles(v) for m, v in enumerate(rec["lengthening"])},
            "pace": _quantiles(rec["pace"]),
        }
    if confusion.sum():
        rows = confusion / np.maximum(confusion.sum(1, keepdims=True), 1)
        out["hints"] = {
            "recognizer": HINTS_FROM,
            "mark_given_true_mark": {
                PUNCT_LABELS[m]: {
                    PUNCT_LABELS[h]: round(float(rows[m, h]), 4) for h in range(len(PUNCT_LABELS))
                }
                for m in range(len(PUNCT_LABELS))
            },
            "capital_given_true_case": {
                CASE_LABELS[c]: round(float(capital[c, 1] / max(capital[c].sum(), 1)), 4)
                for c in range(len(CASE_LABELS))
            },
            "late": round(late / max(marked, 1), 4),
            "counts": confusion.astype(int).tolist(),
            # [case][written lowercase, written capitalised], inside a sentence (above)
            "capital_inside_sentence_counts": capital_inside.astype(int).tolist(),
        }
    return out


def save_stats(stats: dict, path: Path) -> None:
    tmp = Path(path).with_suffix(".tmp")
    tmp.write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class _Timing:
    gap: list[np.ndarray]  # quantiles per mark
    lengthening: list[np.ndarray]
    pace: np.ndarray


class SpeechCues:
    """Draws timelines and hints for windows of text (``draw``) from ``stats_from_readings``'s output."""

    def __init__(self, stats: dict):
        self.recognizers: dict[str, _Timing] = {}
        for name, rec in stats["recognizers"].items():
            gap = [np.asarray(rec["gap"][m] or [0.0]) for m in PUNCT_LABELS]
            lengthening = [np.asarray(rec["lengthening"][m] or [0.0]) for m in PUNCT_LABELS]
            self.recognizers[name] = _Timing(gap, lengthening, np.asarray(rec["pace"] or [0.055]))
        if not self.recognizers:
            raise ValueError("speech cue statistics hold no recognizer")
        self.names = sorted(self.recognizers)
        hints = stats.get("hints")
        self.hint_marks = None
        if hints:
            table = hints["mark_given_true_mark"]
            self.hint_marks = np.array([[table[m][h] for h in PUNCT_LABELS] for m in PUNCT_LABELS])
            unseen = self.hint_marks.sum(1) <= 0  # a mark the readings never had: written as it is
            self.hint_marks[unseen] = np.eye(len(PUNCT_LABELS))[unseen]
            self.hint_marks /= self.hint_marks.sum(1, keepdims=True)
            self.hint_capital = np.array([hints["capital_given_true_case"][c] for c in CASE_LABELS])
            self.hint_late = float(hints["late"])

    @classmethod
    def load(cls, path: str | Path = DEFAULT_STATS) -> SpeechCues:
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    @staticmethod
    def _draw(quantiles: np.ndarray, rng: np.random.Generator, n: int | None = None):
        """Inverse-CDF draws from an empirical distribution kept as evenly spaced quantiles."""
        u = rng.random(n) * (len(quantiles) - 1)
        return np.interp(u, np.arange(len(quantiles)), quantiles)

    def draw(
        self,
        letters: np.ndarray,
        marks: np.ndarray,
        displayed_cases: np.ndarray,
        rng: np.random.Generator,
        hints: bool,
        last_gap_known: bool,
        gap_scale: float = 1.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Cue rows [n, CUE_COUNT] and the gap after each word (NaN: not yet known) for a window
        of n words with these reference marks (-100 for a word without one: a dropped or
        inserted word) and cases: one recognizer's timing, drawn
        word by word given each mark, and, with ``hints``, marks and capitals written as that
        recognizer writes them. The gap after the last word is known only if ``last_gap_known``;
        ``gap_scale`` multiplies every drawn gap (a speaker who pauses longer or shorter)."""
        if hints and self.hint_marks is not None and HINTS_FROM in self.recognizers:
            name = HINTS_FROM  # hints come with that recognizer's words and timing
        else:
            name = self.names[int(rng.integers(len(self.names)))]
        timing = self.recognizers[name]
        n = len(marks)
        m = np.where(marks < 0, 0, marks)
        pace = float(self._draw(timing.pace, rng))
        stretch = np.empty(n)
        gaps = np.empty(n)
        for k in range(len(PUNCT_LABELS)):
            at = np.flatnonzero(m == k)
            if len(at):
                stretch[at] = self._draw(timing.lengthening[k], rng, len(at))
                gaps[at] = self._draw(timing.gap[k], rng, len(at)) * gap_scale
        durations = letters * pace * np.exp(stretch)
        words, t = [], 0.0
        for j in range(n):
            words.append(Word("", t, t + durations[j]))
            t += durations[j] + gaps[j]
        if last_gap_known:
            words.append(Word("", t, t + 0.3))  # the word after the window: its gap is then known
        counts = [int(c) for c in letters] + [letters_of("xxx")] * (len(words) - n)
        cues = word_cues(words, hints=False, letter_counts=counts)[:n]
        known_gaps = gaps.copy()
        if not last_gap_known:
            known_gaps[-1] = np.nan
        if hints and self.hint_marks is not None:
            cumulative = np.cumsum(self.hint_marks[m], axis=1)
            written = np.minimum((rng.random((n, 1)) > cumulative).sum(1), len(PUNCT_LABELS) - 1)
            late = (m > 0) & (written == 0) & (rng.random(n) < self.hint_late)
            for j in np.flatnonzero(late[:-1]):
                written[j + 1] = m[j]  # a mark written one word late
            capital = rng.random(n) < self.hint_capital[np.where(displayed_cases < 0, 0, displayed_cases)]
            for j in range(n):
                set_hint(cues[j], PUNCT_LABELS[int(written[j])], bool(capital[j]))
        return cues, known_gaps


def main(argv=None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m training.speech_cues",
        description="Turn training.speech_timing's aligned readings into the statistics training draws from.",
    )
    parser.add_argument(
        "readings",
        type=Path,
        help="the JSON python -m training.speech_timing wrote, or a folder of Piper readings heard by "
        "Whisper (python -m training.piper_speech)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_STATS)
    args = parser.parse_args(argv)
    try:
        if args.readings.is_dir():
            from training.piper_speech import load_readings

            readings = [{**data, "recognizer": HINTS_FROM} for data, _ in load_readings(args.readings)]
        else:
            readings = json.loads(args.readings.read_text(encoding="utf-8"))["readings"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"speech_cues: cannot read {args.readings}: {exc}", file=sys.stderr)
        return 2
    stats = stats_from_readings(readings)
    if not stats["recognizers"]:
        print(f"speech_cues: {args.readings} holds no recognized words", file=sys.stderr)
        return 2
    save_stats(stats, args.out)
    summary = {
        name: {
            "words": rec["words"],
            "median_gap": {m: q[len(q) // 2] if q else None for m, q in rec["gap"].items()},
        }
        for name, rec in stats["recognizers"].items()
    }
    print(
        json.dumps(
            {"out": str(args.out), "recognizers": summary, "hints": stats.get("hints", {}).get("late")},
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
