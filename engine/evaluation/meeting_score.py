"""Scoring a captioned meeting against who said what (``engine.evaluation.meeting``).

The reference is the meeting's turns: each with its speaker, its words and its span on the
tracks. A shown word is *placed* in the turn whose span (a second either side) holds its time and
whose words hold its text; a word no turn or more than one side's turns could have said is left
out of the attribution figures (it still counts in the WER, against its side's text).

- **WER per side**: the side's turns' words in order against the words shown with its label.
- **Me/Others attribution error**: placed words shown on the other side than the turn's.
- **Echo leakage**: the others' words shown as Me, over the others' words said.
- **Speaker error within Others**: placed Others words whose voice label differs from the turn's
  voice, after the best one-to-one mapping of labels to voices; **turn-change F1**: changes of
  voice between consecutive placed Others words, against the labels' changes (one word's slack).
- **Real speech hidden as echo**: the words the echo guard hid (the run's ``hidden``) placed in a
  Me turn, over Me's words said; and the same **in double talk**, over Me's words said while the
  others spoke (a turn's words are timed by spreading them over its span, by their letters).
  ``DOUBLE_TALK_HIDDEN_BOUND`` is the most of those the guard may hide.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

from engine.evaluation.e2e_score import align, word_errors
from engine.speakers.labels import ME, is_others

__all__ = ["DOUBLE_TALK_HIDDEN_BOUND", "hidden_speech", "score_run"]

SLACK = 1.0  # seconds either side of a turn's span that its words may be timed at
# How late the players may start playing after they were started (pacat fills its buffer
# first): the tracks' clock is found from the words, within this much of the nominal one.
PLAYER_LAG = (-0.5, 5.0)
# The share of Me's words said while the others speak that the echo guard may hide (see
# docs/QUALITY.md for the measured figure).
DOUBLE_TALK_HIDDEN_BOUND = 0.25


def _p90(values: list[float]) -> float | None:
    if not values:
        return None
    return round(statistics.quantiles(values, n=10)[-1], 2) if len(values) > 1 else round(values[0], 2)


def _side(speaker: str) -> str:
    return "me" if speaker == ME else "others" if is_others(speaker) else ""


def _place(word: dict, turns, offset: float, slack: float = SLACK):
    """The turn that said ``word`` (None when no turn or turns of both sides could have)."""
    if word["start"] is None:
        return None
    t = word["start"] - offset  # on the tracks' clock
    fits = [
        turn for turn in turns if turn.start - slack <= t <= turn.end + slack and word["text"] in turn.words
    ]
    if not fits or len({_side(turn.speaker) for turn in fits}) > 1:
        return None
    return min(fits, key=lambda turn: abs((turn.start + turn.end) / 2 - t))


def track_offset(turns, words, nominal: float) -> float:
    """The offset from the tracks' clock to the session's stream time: the nominal one (the
    players' start as asked) moved to where the most shown words fall inside a turn that said
    them. The players start playing a second or two after they are asked to, by a varying delay,
    and a misplaced clock would count words of the right side as said by the wrong one."""
    # By their middles: a turn holds its words' middles symmetrically, so the offsets that fit
    # best lie evenly about the true one.
    words = [{**w, "start": (w["start"] + w["end"]) / 2} if w["end"] is not None else w for w in words]
    steps = int(round((PLAYER_LAG[1] - PLAYER_LAG[0]) / 0.05))
    offsets = [nominal + PLAYER_LAG[0] + k * 0.05 for k in range(steps + 1)]
    fits = [sum(1 for w in words if _place(w, turns, offset, slack=0.3) is not None) for offset in offsets]
    best = [offset for offset, fit in zip(offsets, fits) if fit == max(fits)]
    return best[len(best) // 2]  # the middle of the offsets that fit best: they fit within the slack


def _wer(turns, words, side: str) -> float | None:
    ref = [w for turn in turns if _side(turn.speaker) == side for w in turn.words]
    hyp = [w["text"] for w in words if _side(w["speaker"]) == side]
    if not ref:
        return None
    return word_errors(ref, hyp, align(ref, hyp))["wer"]


def _voices(placed: list[tuple[dict, object]]) -> dict:
    """Speaker error within Others after the best mapping, and turn-change F1."""
    pairs = [
        (w["speaker"], turn.speaker)
        for w, turn in placed
        if is_others(w["speaker"]) and is_others(turn.speaker)
    ]
    if not pairs:
        return {"speaker_error": None, "turn_change_f1": None, "others_words_placed": 0}
    labels = sorted({label for label, _ in pairs})
    voices = sorted({voice for _, voice in pairs})
    counts = Counter(pairs)
    best = 0
    # The best one-to-one mapping of labels to voices (a handful of each: every permutation).
    if len(labels) <= len(voices):
        for chosen in itertools.permutations(voices, len(labels)):
            best = max(best, sum(counts[(label, voice)] for label, voice in zip(labels, chosen)))
    else:
        for chosen in itertools.permutations(labels, len(voices)):
            best = max(best, sum(counts[(label, voice)] for label, voice in zip(chosen, voices)))
    true_changes = {i for i in range(1, len(pairs)) if pairs[i][1] != pairs[i - 1][1]}
    shown_changes = {i for i in range(1, len(pairs)) if pairs[i][0] != pairs[i - 1][0]}
    hits = sum(1 for i in true_changes if {i - 1, i, i + 1} & shown_changes)
    precision = (
        sum(1 for i in shown_changes if {i - 1, i, i + 1} & true_changes) / len(shown_changes)
        if shown_changes
        else 1.0
    )
    recall = hits / len(true_changes) if true_changes else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "speaker_error": round(1 - best / len(pairs), 4),
        "turn_change_f1": round(f1, 3),
        "others_words_placed": len(pairs),
        "others_labels": labels,
    }


def _word_times(turn) -> list[tuple[str, float, float]]:
    """The turn's words, each given a share of its span by its letters (the reference has no
    word times; a synthetic voice's pace is even enough for telling which words overlap)."""
    letters = [len(w) + 1 for w in turn.words]
    scale = (turn.end - turn.start) / max(1, sum(letters))
    out, at = [], turn.start
    for word, size in zip(turn.words, letters):
        out.append((word, at, at + size * scale))
        at += size * scale
    return out


def _talked_over(turn, turns) -> list[tuple[float, float]]:
    """The spans of ``turn`` (Me's) during which one of the others spoke too."""
    return [
        (max(turn.start, o.start), min(turn.end, o.end))
        for o in turns
        if is_others(o.speaker) and o.start < turn.end and turn.start < o.end
    ]


def hidden_speech(turns, hidden: list[dict], offset: float) -> dict:
    """What the echo guard hid of real speech: ``hidden`` (words with their session times) placed
    in Me's turns, overall and in double talk (both sides speaking), against Me's words said."""
    me_turns = [t for t in turns if t.speaker == ME]
    said = sum(len(t.words) for t in me_turns)
    in_double_talk, hidden_mine, hidden_in_double_talk = 0, 0, 0
    for turn in me_turns:
        spans = _talked_over(turn, turns)
        in_double_talk += sum(1 for _, a, b in _word_times(turn) if any(a < e and s < b for s, e in spans))
    for word in hidden:
        turn = _place(word, turns, offset)
        if turn is None or turn.speaker != ME:
            continue  # the others' words heard again: what the guard is for
        hidden_mine += 1
        t = word["start"] - offset
        hidden_in_double_talk += any(s - 0.3 <= t <= e + 0.3 for s, e in _talked_over(turn, turns))
    rate = round(hidden_in_double_talk / in_double_talk, 4) if in_double_talk else None
    return {
        "hidden_words": len(hidden),
        "me_words_hidden": hidden_mine,
        "me_hidden_rate": round(hidden_mine / said, 4) if said else None,
        "double_talk_me_words": in_double_talk,
        "double_talk_me_hidden": hidden_in_double_talk,
        "double_talk_hidden_rate": rate,
        "double_talk_hidden_bound": DOUBLE_TALK_HIDDEN_BOUND,
        "double_talk_within_bound": None if rate is None else rate <= DOUBLE_TALK_HIDDEN_BOUND,
    }


def score_run(meeting, run: dict, alone: str = "", silence: bool = False) -> dict:
    """The figures of one run of ``engine.evaluation.meeting``. ``alone``: the side ("me",
    "others") a one-source run captioned; its words carry no label, and are all that side's."""
    out = {k: run[k] for k in ("wall_s", "cpu_cores", "peak_rss_mb", "echo", "hidden_as_echo") if k in run}
    words = run["words"]
    if silence:
        out["words_shown"] = len(words)
        return out
    if alone:
        words = [{**w, "speaker": ME if alone == "me" else "others"} for w in words]
    turns = meeting.turns
    for side in ("me", "others") if not alone else (alone,):
        out[f"wer_{side}"] = _wer(turns, words, side)
        out[f"text_{side}"] = " ".join(w["text"] for w in words if _side(w["speaker"]) == side)
        # A run read as fast as it decodes (``--files``) has no latency to speak of.
        latencies = [w["latency"] for w in words if _side(w["speaker"]) == side and "latency" in w]
        out[f"committed_p90_{side}"] = _p90(latencies)
    if alone:
        return out
    offset = track_offset(turns, words, run["offset"])
    out["player_lag_s"] = round(offset - run["offset"], 2)
    placed = [(w, turn) for w in words if (turn := _place(w, turns, offset)) is not None]
    sides = [(_side(w["speaker"]), _side(turn.speaker)) for w, turn in placed]
    out["words_placed"] = len(placed)
    out["attribution_error"] = round(sum(a != b for a, b in sides) / len(sides), 4) if sides else None
    others_said = sum(len(t.words) for t in turns if is_others(t.speaker))
    leaked = sum(1 for a, b in sides if a == "me" and b == "others")
    out["echo_leakage"] = round(leaked / others_said, 4) if others_said else None
    out.update(_voices(placed))
    if "hidden" in run:
        out.update(hidden_speech(turns, run["hidden"], offset))
    return out
