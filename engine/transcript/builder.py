"""Keeps a Transcript in step with the decoder's events.

Subscribers that want the whole text (CLI, journal, app) apply events here
instead of re-implementing the bookkeeping of provisional, settled and
withdrawn positions, and of who spoke each word (``SpeakersLabelled``: a label may be corrected
until its turn settles, never after; ``LabelSettling``).
"""

from __future__ import annotations

from engine.events import Appended, Provisional, Retracted, Settled, SpeakersLabelled, Withdrawn
from engine.transcript.speaker_labels import LabelSettling
from engine.transcript.transcript import Transcript, TranscriptWord


class TranscriptBuilder:
    def __init__(self) -> None:
        self.transcript = Transcript(words=[])
        self.settled: list[bool] = []
        self.lookahead: list[int | None] = []
        self.labels = LabelSettling("transcript")

    @property
    def words(self) -> list[TranscriptWord]:
        return self.transcript.words

    def apply(self, events) -> None:
        """Each of ``events`` in turn; events that change no word (levels, notices) pass by."""
        for event in events:
            step = self._STEPS.get(type(event))
            if step is not None:
                step(self, event)

    def _appended(self, event: Appended) -> None:
        words = self.transcript.words
        if event.position != len(words):
            raise ValueError(f"word appended at {event.position}, transcript has {len(words)}")
        words.append(TranscriptWord(heard=event.word))
        self.settled.append(False)
        self.lookahead.append(None)

    def _marked(self, event: Provisional | Settled) -> None:
        word = self.transcript.words[event.position]
        word.mark, word.case, word.form = event.mark, event.case, event.form
        word.settled = self.settled[event.position]

    def _settled(self, event: Settled) -> None:
        self.settled[event.position] = True
        self.lookahead[event.position] = event.lookahead_used
        self._marked(event)

    def _withdrawn(self, event: Withdrawn) -> None:
        self.settled[event.position] = False
        self.transcript.words[event.position].settled = False

    def _retracted(self, event: Retracted) -> None:
        del self.transcript.words[event.from_position :]
        del self.settled[event.from_position :]
        del self.lookahead[event.from_position :]
        self.labels.retracted(event.from_position)

    def _labelled(self, event: SpeakersLabelled) -> None:
        words = self.transcript.words
        for position, speaker in self.labels.accepted(event, self._label_of):
            words[position].speaker = speaker

    # What each event type does to the transcript, defined once.
    _STEPS = {
        Appended: _appended,
        Provisional: _marked,
        Settled: _settled,
        Withdrawn: _withdrawn,
        Retracted: _retracted,
        SpeakersLabelled: _labelled,
    }

    def _label_of(self, position: int) -> str | None:
        words = self.transcript.words
        return words[position].speaker if 0 <= position < len(words) else None

    @property
    def all_settled(self) -> bool:
        return all(self.settled)
