"""Keeps a Transcript in step with the decoder's events.

Subscribers that want the whole text (CLI, journal, app) apply events here
instead of re-implementing the bookkeeping of provisional, settled and
withdrawn positions.
"""

from __future__ import annotations

from engine.events import Appended, Provisional, Retracted, Settled, Withdrawn
from engine.transcript.transcript import Transcript, TranscriptWord


class TranscriptBuilder:
    def __init__(self) -> None:
        self.transcript = Transcript(words=[])
        self.settled: list[bool] = []
        self.lookahead: list[int | None] = []

    @property
    def words(self) -> list[TranscriptWord]:
        return self.transcript.words

    def apply(self, events) -> None:
        words = self.transcript.words
        for event in events:
            if isinstance(event, Appended):
                if event.position != len(words):
                    raise ValueError(f"word appended at {event.position}, transcript has {len(words)}")
                words.append(TranscriptWord(heard=event.word))
                self.settled.append(False)
                self.lookahead.append(None)
            elif isinstance(event, (Provisional, Settled)):
                word = words[event.position]
                word.mark, word.case, word.form = event.mark, event.case, event.form
                if isinstance(event, Settled):
                    self.settled[event.position] = True
                    self.lookahead[event.position] = event.lookahead_used
                word.settled = self.settled[event.position]
            elif isinstance(event, Withdrawn):
                self.settled[event.position] = False
                words[event.position].settled = False
            elif isinstance(event, Retracted):
                del words[event.from_position :]
                del self.settled[event.from_position :]
                del self.lookahead[event.from_position :]

    @property
    def all_settled(self) -> bool:
        return all(self.settled)
