"""Judging ``python -m engine.evaluation.rooms``: loops in a transcript, the targets per voice, and the
table of its figures.

A *loop* is Whisper's known failure on audio it cannot read: it says one phrase again and again.
Checked here independently of the recognizer's own guard (``decode_guard.DecodeGuard``, which
cuts a word's fifth round back to back, a longer phrase's third): any phrase of 1–10 words said
three times or more back to back, or any phrase of 4–10 words said four times or more in the
transcript, where the reference does not say it as often.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

__all__ = ["TARGETS", "judge_targets", "loops", "markdown_table", "percent", "table_rows"]

# The targets per voice, live WER in percent against the same voice's clean live WER: (factor, points)
TARGETS = {
    "room": (1.5, 3.0),
    "call": (1.5, 5.0),
    "babble10": (1.3, 2.0),
    "pink5": (1.3, 2.0),
}
LIVE_OVER_FILE = 1.15  # every condition: live WER at most this many times the file's
BACK_TO_BACK = 3  # a phrase of 1..10 words this many times in a row
REPEATED = 4  # a phrase of 4..10 words this many times anywhere, more than the reference says it


def percent(wer: float | None) -> float | None:
    return None if wer is None else round(100 * wer, 1)


def _grams(words: Sequence[str], n: int) -> Counter:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def _back_to_back(words: Sequence[str], n: int, times: int) -> list[tuple[str, ...]]:
    found = []
    for i in range(len(words) - times * n + 1):
        gram = tuple(words[i : i + n])
        if all(tuple(words[i + k * n : i + (k + 1) * n]) == gram for k in range(1, times)):
            found.append(gram)
    return found


def loops(words: Sequence[str], reference: Sequence[str]) -> list[str]:
    """The phrases ``words`` loops on (lower-case bare words), each once; [] where there is none."""
    hyp, ref = [w.lower() for w in words], [w.lower() for w in reference]
    found: dict[tuple[str, ...], None] = {}
    for n in range(1, 11):
        ref_runs = set(_back_to_back(ref, n, BACK_TO_BACK))
        for gram in _back_to_back(hyp, n, BACK_TO_BACK):
            if gram not in ref_runs:  # "no, no, no" read aloud is no loop
                found.setdefault(gram)
    for n in range(4, 11):
        ref_counts = _grams(ref, n)
        for gram, count in _grams(hyp, n).items():
            if count >= REPEATED and count > ref_counts[gram]:
                found.setdefault(gram)
    # A phrase inside a longer one found looping, or a rotation of one ("for watching thank you"
    # in "thank you for watching" said over and over), is the same loop: the longest is kept.
    kept: list[str] = []
    for phrase in sorted((" ".join(g) for g in found), key=lambda p: -len(p.split())):
        if not any(f" {phrase} " in f" {q} {q} " for q in kept):
            kept.append(phrase)
    return kept


def _met(measured, limit) -> dict:
    return {
        "measured": measured,
        "target": limit,
        "met": None if measured is None or limit is None else measured <= limit,
    }


def judge_targets(conditions: dict[str, dict], nonspeech_words: int | None) -> dict:
    """One voice's targets from its figures per condition (``rooms.one_condition``'s): each target's
    measured value, its limit and whether it is met (None where its condition was not run)."""
    out: dict[str, dict] = {}
    clean = conditions.get("clean", {}).get("live_wer_pct")
    for name, (factor, points) in TARGETS.items():
        if name in conditions and clean is not None:
            out[f"{name}_live_wer_pct"] = _met(
                conditions[name]["live_wer_pct"], round(factor * clean + points, 1)
            )
    if "hard" in conditions:
        hard = conditions["hard"]
        worst = max(w for w in (hard["live_wer_pct"], hard["file_wer_pct"]) if w is not None)
        out["hard_wer_pct_below_100"] = {"measured": worst, "target": 100, "met": worst < 100}
        looped = bool(hard["live_loops"] or hard["file_loops"])
        out["hard_no_loop"] = {"measured": looped, "target": False, "met": not looped}
    if nonspeech_words is not None:
        out["nonspeech_words"] = _met(nonspeech_words, 0)
    ratios = {name: c["live_over_file"] for name, c in conditions.items()}
    worst = [r for r in ratios.values() if r is not None]
    out["live_over_file_every_condition"] = {
        "measured": max(worst) if worst else None,
        "target": LIVE_OVER_FILE,
        "met": all(r <= LIVE_OVER_FILE for r in worst) if worst else None,
        "over": sorted(n for n, r in ratios.items() if r is not None and r > LIVE_OVER_FILE),
    }
    return out


COLUMNS = (
    ("voice", "voice"),
    ("condition", "condition"),
    ("file WER %", "file_wer_pct"),
    ("live WER %", "live_wer_pct"),
    ("live/file", "live_over_file"),
    ("file marks F1", "file_marks_f1"),
    ("live marks F1", "live_marks_f1"),
    ("loops", "loops"),
    ("tiny.en batch WER %", "anchor_tiny_wer_pct"),
    ("base batch WER %", "anchor_base_wer_pct"),
    ("committed p90 s", "committed_p90_s"),
    ("first display p90 s", "first_display_p90_s"),
    ("CPU of one core", "cpu_share_of_one_core"),
)


def table_rows(voices: dict[str, dict]) -> list[dict]:
    """One row per (voice, condition) measured, the columns that hold a figure somewhere."""
    rows = []
    for voice, result in voices.items():
        for name, c in result.get("conditions", {}).items():
            anchors = c.get("anchors", {})
            looped = [side for side in ("file", "live") if c[f"{side}_loops"]]
            rows.append(
                {
                    "voice": voice,
                    "condition": name,
                    **{key: c.get(key) for _, key in COLUMNS[2:7]},
                    "loops": "+".join(looped) or "no",
                    "anchor_tiny_wer_pct": anchors.get("tiny.en", {}).get("wer_pct"),
                    "anchor_base_wer_pct": anchors.get("base", {}).get("wer_pct"),
                    **{key: c.get(key) for _, key in COLUMNS[10:]},
                }
            )
    used = [key for _, key in COLUMNS if any(row.get(key) is not None for row in rows)]
    return [{key: row[key] for key in used} for row in rows]


def markdown_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    titles = {key: title for title, key in COLUMNS}
    keys = list(rows[0])
    cell = lambda v: "–" if v is None else str(v)
    lines = ["| " + " | ".join(titles[k] for k in keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines)
