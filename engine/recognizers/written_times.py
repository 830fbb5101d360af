"""Clock times for a recognizer that writes written forms its own way (Whisper).

Whisper writes numbers in digits, and most of them as a person does; clock times it writes
"at 10.30", "at 745", "at 1030". A person writes "at 10:30", "at 7:45". Such a number is a time
only where the words around it say so, as for the written-form step of the recognizers that
write spoken forms (``written_forms``): after a word that announces a time ("at", "by", "until",
"from"; "to" and "and" after a time: "from 9:30 to 10.45"), or before "a.m.", "p.m." or
"o'clock". Elsewhere it stays as written ("3.5 percent", "version 10.30", "at 12.50 dollars").

A word is rewritten in place, one for one, with its times, its confidence and its writing's
marks: a live session's word positions and the recognizer's newer writings of committed words
(``RecognizerUpdate.rewritten``, by position) stay aligned. Live, the words before a hypothesis
or a final are in earlier finals, so the step remembers the last ones it passed
(``ClockTimes``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from engine.recognizers.base import RecognizerUpdate
from engine.words import Word, bare_word, word_core

__all__ = ["ClockTimes", "clock_time", "clock_times"]

TIME_CUES = frozenset("at by until till from before after around since between".split())
# After a time, these lead to the next one ("from 9:30 to 10.45", "between 9 and 10.30").
TIME_JOINS = frozenset({"to", "and", "till", "until", "-", "–"})
RANGE_STARTS = frozenset({"from", "between"})
MERIDIEM = frozenset({"a.m.", "p.m.", "a.m", "p.m", "am", "pm", "o'clock"})
# Words after which a number counts something: never a clock time ("at 120 miles").
UNITS = frozenset(
    "% percent per dollars dollar euros euro pounds pound bucks cents people persons times "
    "meters metres feet foot miles mile km kilometers kilometres mph degrees points units copies "
    "items pages words years days hours minutes seconds thousand million billion kg grams".split()
)
_WITH_POINT = re.compile(r"(\d{1,2})[.:](\d{2})(a\.?m\.?|p\.?m\.?)?$")  # "10.30", "10.30pm"
_RUN_OF_DIGITS = re.compile(r"(\d{1,2})(\d{2})(a\.?m\.?|p\.?m\.?)?$")  # "745", "1030"
_HOUR = re.compile(r"\d{1,2}$")
_CLOCK = re.compile(r"\d{1,2}:\d{2}")
_MEMORY = 3  # words before a time that decide it


def _announced(before: Sequence[str]) -> bool:
    """Whether the words ``before`` a number (bare, oldest first) announce a time."""
    if not before:
        return False
    if before[-1] in TIME_CUES:
        return True
    if before[-1] not in TIME_JOINS or len(before) < 2:
        return False
    previous = before[-2]
    return bool(_CLOCK.match(previous)) or (
        bool(_HOUR.match(previous)) and len(before) >= 3 and before[-3] in RANGE_STARTS
    )


def clock_time(text: str, before: Sequence[str], after: str | None) -> str | None:
    """The clock time ("10:30") that a number written ``text`` ("10.30", "1030", "745") is where
    it stands, between the words ``before`` it (bare, oldest first) and the word ``after`` it
    (bare; None where unknown); None where it is no time, or already written as one."""
    if after in UNITS:
        return None
    point = _WITH_POINT.match(text)
    run = None if point else _RUN_OF_DIGITS.match(text)
    found = point or run
    if not found or (run and (len(text) < 3 or text.startswith("0"))):
        return None
    hour, minutes, suffix = int(found[1]), found[2], found[3] or ""
    if ":" in text or int(minutes) > 59:
        return None
    if run and (not 1 <= hour <= 12 or minutes == "00"):  # "at 1500", "at 100": counts
        return None
    if point and hour > 23:
        return None
    if not (suffix or after in MERIDIEM or _announced(before)):
        return None
    return f"{hour}:{minutes}{suffix}"


def _rewritten(word: Word, time: str) -> Word:
    """``word`` written as the clock time ``time``, the marks and quotes of its writing kept."""
    written = word.written
    if written:
        core = word_core(written)
        at = written.find(core)
        written = written[:at] + time + written[at + len(core) :] if core and at >= 0 else time
    return replace(word, text=time, written=written)


def clock_times(words: Sequence[Word], before: Sequence[str] = ()) -> tuple[list[Word], list[int]]:
    """(``words`` with Whisper's clock times written as a person writes them, the indices of the
    words rewritten); ``before``: the bare words said before them (oldest first), which may
    announce the first one's time."""
    out, changed = list(words), []
    said = list(before[-_MEMORY:])
    for i, word in enumerate(words):
        after = bare_word(words[i + 1].text) if i + 1 < len(words) else None
        time = clock_time(bare_word(word.text), said, after)
        if time is not None:
            out[i] = _rewritten(word, time)
            changed.append(i)
        said = [*said[-(_MEMORY - 1) :], bare_word(out[i].text)]
    return out, changed


class ClockTimes:
    """A recognizer's updates with its clock times written as a person writes them (``clock_times``),
    the words said before each hypothesis and final remembered from the finals before it."""

    def __init__(self):
        self._said: list[str] = []  # the last bare words of the finals so far
        self._finals = 0  # final words so far: ``rewritten``'s positions count them
        self._times: dict[int, tuple[str, str]] = {}  # position: (as written, as a time)

    def __call__(self, update: RecognizerUpdate) -> RecognizerUpdate:
        final = update.final
        said = self._said
        if final:
            final, changed = clock_times(final, said)
            for i in changed:
                self._times[self._finals + i] = (bare_word(update.final[i].text), final[i].text)
            said = [*said, *(bare_word(w.text) for w in final)][-_MEMORY:]
            self._said, self._finals = said, self._finals + len(final)
        partial = clock_times(update.partial, said)[0] if update.partial else update.partial
        if update.writings_settled is not None:  # a settled writing is never rewritten again
            self._times = {p: t for p, t in self._times.items() if p >= update.writings_settled}
        rewritten = dict(update.rewritten)
        for position, word in rewritten.items():
            known = self._times.get(position)
            if known is not None and bare_word(word.text) == known[0]:
                rewritten[position] = _rewritten(word, known[1])
        return replace(update, partial=partial, final=final, rewritten=rewritten)
