"""The live captions as a session's events fold them: one fold for every front end that shows them.

The app's caption feed (``app.caption_feed``, which the window's caption view and the overlay
subscribe to) and the terminal's captions (``engine.cli.terminal_captions``) keep their state
here, so a session's events make the same words, marks, speakers and unstable words in both;
each front end only draws it. The fold holds:

- the committed words (a ``TranscriptBuilder``): each word's text, mark, capital and speaker, and
  whether it settled. The builder keeps the rule that a settled mark and a settled speaker label
  never change (only a ``Withdrawn`` word loses its settled mark, as the recognizer replaced it);
- each side's unstable words (the recognizer's ``PartialWords``, each side's replacing only its
  own), less those that words just committed replaced (``UnstableWords``).

Each batch answers with a ``CaptionChange``: where the drawing may differ from, so a view redraws
only its tail. ``lines`` gives the captions as a subscriber reads them whole (a late one, a page).

No Qt: the app's feed is a thin signal wrapper around this fold, on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from engine.events import (
    Appended,
    PartialWords,
    Provisional,
    Retracted,
    Settled,
    SpeakersLabelled,
    Withdrawn,
)
from engine.speakers.labels import SpeakerNames
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.unstable_words import UnstableWords
from engine.words import Word

__all__ = [
    "SETTLED",
    "PROVISIONAL",
    "UNSTABLE",
    "CaptionChange",
    "CaptionFold",
    "CaptionLine",
    "CaptionWord",
    "by_speaker",
    "first_changed",
    "side_words",
]

SETTLED, PROVISIONAL, UNSTABLE = "settled", "provisional", "unstable"  # a caption word's state


@dataclass(frozen=True)
class CaptionChange:
    """What one batch changed. ``first``: the first word position whose drawing may differ (None:
    no committed word changed); ``unstable``: whether the unstable words shown changed;
    ``retracted``: the first position a ``Retracted`` removed (None: none), where a front end that
    printed words for good goes on from; ``events``: the batch. ``EVERYTHING``: draw it all again
    (a subscriber come late, new names for the speakers)."""

    first: int | None = None
    unstable: bool = False
    retracted: int | None = None
    events: tuple = ()
    restarted: bool = False  # a new session or a cleared text: what was drawn before is gone

    @property
    def changed(self) -> bool:
        """Whether anything the captions show changed."""
        return self.first is not None or self.unstable


EVERYTHING = CaptionChange(first=0, unstable=True)


# Where each committed-word event changes the drawing from (None: nowhere), defined once.
_FIRST_CHANGED: dict[type, Callable] = {
    Appended: lambda e: e.position,
    Provisional: lambda e: e.position,
    Settled: lambda e: e.position,
    Withdrawn: lambda e: e.position,
    Retracted: lambda e: e.from_position,
    # A label starts its line and may move the next one's: from the first position it names.
    SpeakersLabelled: lambda e: min((p for p, _ in e.labels), default=None),
}


def first_changed(events: Iterable) -> int | None:
    """The first position ``events`` change the drawing from (None: no committed word changed)."""
    found = None
    for event in events:
        where = _FIRST_CHANGED.get(type(event))
        p = where(event) if where is not None else None
        if p is not None:
            found = p if found is None else min(found, p)
    return found


def _retracted(events: Iterable) -> int | None:
    return min((e.from_position for e in events if type(e) is Retracted), default=None)


def by_speaker(words: Iterable[Word], first: str | None) -> list[tuple[str, list[Word]]]:
    """``words`` grouped by speaker, in the order speakers first appear, the group of ``first``
    (the speaker whose line the text ends on) first, so it continues that line."""
    groups: dict[str, list] = {}
    for word in words:
        groups.setdefault(word.speaker, []).append(word)
    return sorted(groups.items(), key=lambda group: group[0] != first)


@dataclass(frozen=True)
class CaptionWord:
    text: str  # as shown: a committed word with its mark and capital, an unstable one as heard
    state: str  # SETTLED, PROVISIONAL or UNSTABLE


@dataclass(frozen=True)
class CaptionLine:
    """A run of one speaker's words: a new line starts wherever the speaker changes."""

    speaker: str  # "" in a one-source session
    words: tuple[CaptionWord, ...]

    def text(self, names: SpeakerNames) -> str:
        """The line as the captions show it: "Me: Hello there." (a one-source line: no label)."""
        return names.line_label(self.speaker) + " ".join(w.text for w in self.words)


class CaptionFold:
    """The captions of one session; ``apply`` each batch of its events (or ``caught_up`` where
    the builder's owner applied them), ``restart`` for the next session."""

    EVERYTHING = EVERYTHING

    def __init__(self, builder: TranscriptBuilder | None = None) -> None:
        self.restart(builder)

    def restart(self, builder: TranscriptBuilder | None = None) -> CaptionChange:
        """Fold from ``builder`` on (a new one: a new session, a cleared text)."""
        self.builder = builder if builder is not None else TranscriptBuilder()
        self._sides: dict[str, tuple[Word, ...]] = {}  # each side's latest unstable words
        self._unstable_words = UnstableWords()
        self.unstable: tuple[Word, ...] = ()  # the unstable words shown, each carrying its speaker
        return replace(EVERYTHING, restarted=True)

    @property
    def words(self) -> list:
        return self.builder.words

    @property
    def settled(self) -> list[bool]:
        return self.builder.settled

    def apply(self, events: list) -> CaptionChange:
        """A batch of the session's events as a subscriber gets them (``PartialWords`` among
        them); events that are not captions' (levels, notices) are passed over."""
        self.builder.apply(events)
        partial = None
        for event in events:
            if type(event) is PartialWords:
                # Each side's words replace only that side's, each word carrying the side's speaker.
                self._sides[event.speaker] = side_words(event)
                partial = tuple(word for words in self._sides.values() for word in words)
        return self.caught_up(events, partial)

    def caught_up(self, events: list, partial: tuple | None = None) -> CaptionChange:
        """A batch the builder already holds (its owner applied ``events``) and, unless None,
        every side's latest unstable words."""
        before = self.unstable
        self.unstable = self._unstable_words.update(events, partial)
        changed = self.unstable != before
        return CaptionChange(first_changed(events), changed, _retracted(events), tuple(events))

    def lines(self, first: int = 0) -> list[CaptionLine]:
        """The captions from word ``first`` on as lines (a new one wherever the speaker changes),
        then each side's unstable words, the side that spoke last going on where the text ends."""
        words, settled = self.builder.words, self.builder.settled
        runs: list[tuple[str, list[CaptionWord]]] = []
        for p in range(max(0, first), len(words)):
            word = CaptionWord(words[p].display, SETTLED if settled[p] else PROVISIONAL)
            _add(runs, words[p].heard.speaker, word)
        last = runs[-1][0] if runs else None
        for speaker, group in by_speaker(self.unstable, last):
            for w in group:
                _add(runs, speaker, CaptionWord(w.text, UNSTABLE))
        return [CaptionLine(speaker, tuple(run)) for speaker, run in runs]

    def text(self, names: SpeakerNames | None = None) -> str:
        """The captions as plain text, one line per speaker's turn, with their labels."""
        names = names or SpeakerNames()
        return "\n".join(line.text(names) for line in self.lines())


def side_words(event: PartialWords) -> tuple[Word, ...]:
    """A side's unstable words, each carrying the side's speaker (a meeting's sides each have
    their own)."""
    return tuple(w if w.speaker == event.speaker else replace(w, speaker=event.speaker) for w in event.words)


def _add(runs: list, speaker: str, word: CaptionWord) -> None:
    if runs and runs[-1][0] == speaker:
        runs[-1][1].append(word)
    else:
        runs.append((speaker, [word]))
