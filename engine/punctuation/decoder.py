"""What a streaming decoder is: the interface the engine thread drives and every view reads.

Two decoders honour it: ``StreamingDecoder`` (livecap's punctuation model decides each mark) and
``RecognizerMarksDecoder`` (the recognizer's own marks, or none for a language the model does not
know). ``choose_decoder`` (``engine.session.build``) picks one for a session; the engine thread,
the journal and the views take either unchanged.

Every call returns the events it caused (``engine.events``), in order: each word pushed is
``Appended`` at the next position, and its mark is ``Provisional`` until ``Settled``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from engine.events import Event
from engine.punctuation.settings import DecoderSettings
from engine.words import Word


@runtime_checkable
class Decoder(Protocol):
    settings: DecoderSettings  # the settings it runs on; views show them
    marks_by: str  # whose marks it gives: "engine" (the punctuation model's) or "recognizer"
    word_count: int  # words pushed so far, retractions taken off
    first_unsettled: int  # the first position whose mark has not settled

    @property
    def pending(self) -> int:
        """Words pushed whose marks have not settled."""

    @property
    def threshold(self) -> float: ...

    @property
    def l_max(self) -> int: ...

    @property
    def pause_threshold(self) -> float | None: ...

    def set_threshold(self, threshold: float, l_max: int | None = None) -> None:
        """Change the latency/accuracy trade-off live, from the next word on."""

    def push(self, word: Word) -> list[Event]: ...

    def push_many(self, words: list[Word]) -> list[Event]:
        """Words that arrived together."""

    def revise_writings(self, rewritten: dict[int, Word], settled: int) -> list[Event]:
        """The recognizer's newer writings of words already pushed (by position), and how many of
        the stream's words' writings will not change again (``RecognizerUpdate``)."""

    def retract(self, count: int) -> list[Event]:
        """Remove the last ``count`` words (the recognizer replaced them)."""

    def advance_time(self, now: float) -> list[Event]:
        """How far the audio has got: a long enough silence may settle marks."""

    def learn_forms(self, forms: dict[str, str]) -> None:
        """Write these words (lowercase keys) in these forms from now on: the user's vocabulary
        learned a term while captioning. Words already settled keep their form."""

    def flush(self) -> list[Event]:
        """Settle every pending mark with the context there is."""

    def finish(self) -> list[Event]:
        """The input has ended: settle everything, and end the last sentence."""
