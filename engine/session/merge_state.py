"""What the session's merger (``engine.session.merge``) keeps of each side: where its words went
in the stream, the committed words not in it yet (held for the echo guard, or waiting for their
turn), and the runs its words form, by which two sides read faster than real time are ordered.

A run is a side's words with no pause of ``RUN_GAP`` seconds between them, at most ``MAX_RUN``
seconds long: about a sentence or a turn, which another side's words must not cut (a change of
side ends a sentence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.words import Word

__all__ = ["HIDDEN", "MAX_RUN", "RUN_GAP", "Entry", "SideState"]

HIDDEN = -1  # the stream position of a word the echo guard hid
RUN_GAP = 0.7  # seconds of pause that end a side's run of words (``by_time``)
MAX_RUN = 8.0  # seconds a run may last before its next word starts another


@dataclass
class Entry:
    """A committed word not in the stream yet: its index on its side, the start of its run
    (``by_time``'s order), and whether the guard hid it."""

    local: int
    word: Word
    run_start: float
    hidden: bool = False


@dataclass
class SideState:
    speaker: str
    positions: list[int] = field(default_factory=list)  # local index → stream position (or HIDDEN)
    held: list[Entry] = field(default_factory=list)  # awaiting the guard
    waiting: list[Entry] = field(default_factory=list)  # judged, awaiting their turn (``by_time``)
    horizon: int = 0  # local words that can no longer change
    writings_settled: int = 0
    unstable: tuple[str, ...] = ()
    heard_until: float = 0.0  # the side's stream time
    committed_through: float = 0.0  # the side's words are all committed before this stream time
    ended: bool = False
    run_start: float = 0.0  # the start of the run its last committed word belongs to
    last_end: float | None = None  # the end of its last committed word

    def not_in_stream(self) -> list[Entry]:
        """Committed words not in the stream yet, in order."""
        return self.waiting + self.held

    def run_of(self, word: Word) -> float:
        """The start of the run a newly committed ``word`` belongs to (and it is then the last)."""
        start = word.start
        if start is None:
            return self.run_start
        if self.last_end is None or start - self.last_end >= RUN_GAP or start - self.run_start >= MAX_RUN:
            self.run_start = start
        self.last_end = max(self.last_end if self.last_end is not None else start, word.end or start)
        return self.run_start

    def earliest_run(self) -> float:
        """The earliest run start of a word this side may still put in the stream: its first word
        not in it yet, else the run its next committed word may continue, else that word's start
        (no earlier than how far it has committed); infinity once it has ended with none left."""
        pending = self.not_in_stream()
        if pending:
            return pending[0].run_start
        if self.ended:
            return float("inf")
        through = self.committed_through
        continues = self.last_end is not None and through - self.last_end < RUN_GAP
        return self.run_start if continues and through - self.run_start < MAX_RUN else through

    def clock(self) -> float:
        """How far the side's words are all in the stream, for the engine's clock (infinity once
        it has ended with none left out)."""
        through = float("inf") if self.ended else self.committed_through
        starts = [e.word.start for e in self.not_in_stream()[:1] if e.word.start is not None]
        return min([through, *starts])
