"""The recognizer's unstable words as the captions show them: each side's latest, less those that
words just committed have replaced (part of ``engine.transcript.caption_fold``).

A side's committed words and its unstable words reach the window by different roads: the words go
through the punctuation engine (``Appended``, from the engine thread), the unstable words come
straight from the recognizer's thread (``PartialWords``), and the bridge hands over whatever
arrived in a frame as one batch. When a side commits, its shorter ``PartialWords`` may come a
frame after the ``Appended`` words (the others' side labels their voices in between): drawn as
they stand, the stale unstable words would repeat the words just committed, after them
("O1› website last week. Others› website last week").

So a batch that appends a side's words and brings no new unstable words for that side drops the
side's unstable words that the appended ones replace: those heard before the last appended word
ended (by their middle; a word without times is kept, there being no telling). They stay dropped
until the side's unstable words change. Words heard later (the side's next words, already shown
when its new partial came first) stay.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.events import Appended
from engine.speakers.labels import OTHERS, is_others

__all__ = ["UnstableWords", "side_of"]


def side_of(speaker: str) -> str:
    """The side a speaker's words come from: the others' voices ("others:N") share one."""
    return OTHERS if is_others(speaker) else speaker


def _by_side(words: Iterable) -> dict[str, tuple]:
    sides: dict[str, list] = {}
    for word in words:
        sides.setdefault(side_of(word.speaker), []).append(word)
    return {side: tuple(group) for side, group in sides.items()}


def _heard_at(word) -> float | None:
    if word.start is None:
        return None
    return word.start if word.end is None else (word.start + word.end) / 2


class UnstableWords:
    """Keeps the unstable words received and those to show; ``update`` with each batch."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._received: dict[str, tuple] = {}  # side -> its latest unstable words
        self._dropped: dict[str, tuple[tuple, tuple]] = {}  # side -> (words received, words shown)

    def update(self, events: list, partial=None) -> tuple:
        """The unstable words to show after a batch: ``events`` (the engine's) and ``partial``
        (every side's latest unstable words, or None: none changed)."""
        before = self._received
        if partial is not None:
            self._received = _by_side(partial)
        # A side's new unstable words are shown whole.
        self._dropped = {s: d for s, d in self._dropped.items() if self._received.get(s) == d[0]}
        ends: dict[str, float] = {}  # side -> when its last word appended in this batch ended
        for event in events:
            if isinstance(event, Appended):
                word = event.word
                at = word.end if word.end is not None else word.start
                if at is not None:
                    side = side_of(word.speaker)
                    ends[side] = max(at, ends.get(side, at))
        for side, end in ends.items():
            words = self._received.get(side, ())
            if not words or before.get(side) != words:  # none, or new in this batch: not stale
                continue
            shown = self._dropped.get(side, (words, words))[1]
            kept = tuple(w for w in shown if _heard_at(w) is None or _heard_at(w) >= end)
            if kept != shown:
                self._dropped[side] = (words, kept)
        return tuple(
            word
            for side, words in self._received.items()
            for word in (self._dropped[side][1] if side in self._dropped else words)
        )
