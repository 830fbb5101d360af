"""Marks and capitals as the recognizer wrote them, in place of the punctuation model's.

Two cases need it:
- Whisper writes its own marks and capitals. On long, formal sentences they beat the engine's
  (it hears the audio); the session can keep them (``SessionSpec.marks``), docs/QUALITY.md
  gives the comparison the default was chosen from.
- A recognizer whose language is not English (a Korean Vosk model): livecap's punctuation model
  is English, so its marks would be noise. The words pass through as recognized, unmarked.

``RecognizerMarksDecoder`` honours the streaming decoder's interface (``push_many``,
``retract``, ``flush``…) so the engine thread, the journal and every view take it unchanged.
A word's mark is known when the word arrives, so it settles at once, with no lookahead.
"""

from __future__ import annotations

from collections import deque

from engine.punctuation.events import Appended, Event, Provisional, Retracted, Settled, Withdrawn
from engine.punctuation.labelled_text import MARK_CLASS
from engine.punctuation.settings import DecoderSettings
from engine.words import PUNCT_LABELS, SENTENCE_END_MARKS, Word

_AROUND = "\"'“”‘’()[]{}¿¡"
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i've", "i'd"})


def written_marks(word: Word) -> tuple[str, str, str]:
    """(mark, case class, displayed form) of ``word`` as its recognizer wrote it; a word without
    a writing of its own (``Word.written`` is "") passes through unmarked, as recognized."""
    if not word.written.strip():
        return "none", "lower", word.text
    core = word.written.strip().strip(_AROUND)
    mark = "none"
    while core and core[-1] in MARK_CLASS:
        # The mark nearest the end decides ("word?!" ends as "!" does: a period).
        if mark == "none":
            mark = PUNCT_LABELS[MARK_CLASS[core[-1]]]
        core = core[:-1].rstrip(_AROUND)
    core = core or word.text
    if len(core) > 1 and core.isupper():
        case = "upper"
    elif core[:1].isupper():
        case = "capitalized"
    else:
        case = "lower"
    return mark, case, core


class RecognizerMarksDecoder:
    """The streaming decoder's interface, with each word's mark and case taken from ``written_marks``."""

    KEEP = 128  # marks remembered, for a retraction's "previous mark"

    def __init__(self, settings: DecoderSettings):
        self.settings = settings  # kept for the views that show them; nothing here reads them
        self._marks: deque[str] = deque(maxlen=self.KEEP)
        self.word_count = 0
        self.first_unsettled = 0
        self.pending = 0

    @property
    def threshold(self) -> float:
        return self.settings.threshold

    @property
    def l_max(self) -> int:
        return self.settings.l_max

    @property
    def pause_threshold(self) -> float | None:
        return self.settings.pause_threshold

    def set_threshold(self, threshold: float, l_max: int | None = None) -> None:
        self.settings = self.settings.override(threshold=threshold, l_max=l_max)

    def push(self, word: Word) -> list[Event]:
        return self.push_many([word])

    def push_many(self, words: list[Word]) -> list[Event]:
        events: list[Event] = []
        for word in words:
            p = self.word_count
            mark, case, form = written_marks(word)
            sentence_start = not self._marks or self._marks[-1] in SENTENCE_END_MARKS
            inner = ""
            if sentence_start and word.written and case == "lower":
                # A sentence's capital follows from the mark before it, as in ``CaseRenderer``;
                # Whisper sometimes forgets it on a buffer's first word.
                case, inner, form = "capitalized", form, form[:1].upper() + form[1:]
            elif sentence_start and case == "capitalized" and form.lower() not in _FIRST_PERSON:
                inner = form[:1].lower() + form[1:]  # the capital only starts the sentence
            events += [
                Appended(p, word),
                Provisional(p, mark, case, 1.0, form),
                Settled(p, mark, case, 0, form, 1.0, inner),
            ]
            self._marks.append(mark)
            self.word_count += 1
            self.first_unsettled = self.word_count
        return events

    def retract(self, count: int) -> list[Event]:
        count = min(count, self.word_count)
        if count <= 0:
            return []
        cut = self.word_count - count
        events: list[Event] = [Withdrawn(p) for p in range(cut, self.word_count)]
        for _ in range(min(count, len(self._marks))):
            self._marks.pop()
        self.word_count = self.first_unsettled = cut
        return [*events, Retracted(cut)]

    # Every mark settles on arrival: time, the end of speech and the end of input change nothing.
    def advance_time(self, now: float) -> list[Event]:
        return []

    def flush(self) -> list[Event]:
        return []

    def finish(self) -> list[Event]:
        return []
