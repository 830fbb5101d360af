"""Marks and capitals as the recognizer wrote them, in place of the punctuation model's.

Two cases need it:
- Whisper writes its own marks and capitals. On long, formal sentences they beat the engine's
  (it hears the audio); the session can keep them (``SessionSpec.marks``), docs/QUALITY.md
  gives the comparison the default was chosen from.
- A recognizer whose language is not English (a Korean Vosk model): livecap's punctuation model
  is English, so its marks would be noise. The words pass through as recognized, unmarked.

``RecognizerMarksDecoder`` honours the ``Decoder`` interface (``engine.punctuation.decoder``), as
the streaming decoder does, so the engine thread, the journal and every view take it unchanged.

When a word's mark settles depends on the recognizer. A writing that is final with its word
settles on arrival. Live Whisper keeps rewriting a committed word's mark and capital while later
decodes hear more after it (``RecognizerUpdate.rewritten``): the mark is shown at once as
provisional, follows each newer writing, and settles when the recognizer says its writing has
(``revise_writings``), or at the end of input.

One mark and one case per seam: a word's case follows the mark shown before it, whichever
decode wrote each. A sentence starts after an end mark (and at the first word), and nowhere
else: Whisper's sentence-initial capitals are taken off its writings at the source
(``without_initial_capitals``), so a capital left on a word after a comma is one Whisper wrote
inside a sentence (a name, "I") and stays.

A change of speaker side ends a sentence too (``speaker_turns``): the last word before it, while
its mark has not settled, shows and settles a sentence end, and the first word after it starts a
sentence, where the recognizer writes marks at all.
"""

from __future__ import annotations

from collections import deque

from engine.events import Appended, Event, Provisional, Retracted, Settled, Withdrawn
from engine.punctuation.labelled_text import MARK_CLASS
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.speaker_turns import starts_turn, turn_end_mark
from engine.words import PUNCT_LABELS, SENTENCE_END_MARKS, Word, is_abbreviation

_AROUND = "\"'“”‘’()[]{}¿¡"
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i've", "i'd"})


def written_marks(word: Word) -> tuple[str, str, str]:
    """(mark, case class, displayed form) of ``word`` as its recognizer wrote it; a word without
    a writing of its own (``Word.written`` is "") passes through unmarked, as recognized."""
    if not word.written.strip():
        return "none", "lower", word.text
    core = word.written.strip().strip(_AROUND)
    mark = "none"
    # Only a mark at the end of the written word is one: "42,000" and "3.5" hold none, and an
    # abbreviation's last period is its own ("U.S." ends no sentence; "U.S.," has a comma).
    while core and core[-1] in MARK_CLASS and not is_abbreviation(core):
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
    """The ``Decoder`` interface, with each word's mark and case taken from ``written_marks``."""

    marks_by = "recognizer"
    KEEP = 128  # marks remembered, for a retraction's "previous mark"

    def __init__(self, settings: DecoderSettings, settles_on_arrival: bool = True):
        """``settles_on_arrival``: False for a recognizer that revises its writings
        (``revises_writing``): marks then wait for ``revise_writings`` to settle them."""
        self.settings = settings  # kept for the views that show them; nothing here reads them
        self.settles_on_arrival = settles_on_arrival
        self._marks: deque[str] = deque(maxlen=self.KEEP)  # settled marks, newest last
        self._speakers: deque[str] = deque(maxlen=self.KEEP)  # their words' speakers, the same way
        # Pending positions where another side's turn starts, and where the turn before it ends.
        self._turn_starts: set[int] = set()
        self._turn_ends: set[int] = set()
        self._pending: list[Word] = []  # words from first_unsettled on, with their newest writing
        self._shown: list[tuple] = []  # the (mark, case, form, inner) last shown for each pending word
        self.word_count = 0
        self.first_unsettled = 0

    @property
    def pending(self) -> int:
        return len(self._pending)

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
            if starts_turn(self._last_speaker(), word.speaker):
                self._turn_starts.add(p)
                if p - 1 >= self.first_unsettled:  # its mark may still change: it ends a sentence
                    self._turn_ends.add(p - 1)
                    events += self._show(p - 1)
            self._pending.append(word)
            self._shown.append(())
            self.word_count += 1
            events.append(Appended(p, word))
            events += self._show(p)
        if self.settles_on_arrival:
            events += self._settle(self.word_count)
        return events

    def revise_writings(self, rewritten: dict[int, Word], settled: int) -> list[Event]:
        """Newer writings of pending words (by position; settled ones never change), then every
        word before position ``settled`` settles."""
        events: list[Event] = []
        changed = sorted(p for p in rewritten if self.first_unsettled <= p < self.word_count)
        for p in changed:
            self._pending[p - self.first_unsettled] = rewritten[p]
        for q in sorted({q for p in changed for q in (p, p + 1) if q < self.word_count}):
            events += self._show(q)  # the word's own mark and case, and the case after its mark
        return events + self._settle(settled)

    def retract(self, count: int) -> list[Event]:
        count = min(count, self.word_count)
        if count <= 0:
            return []
        cut = self.word_count - count
        events: list[Event] = [Withdrawn(p) for p in range(cut, min(self.first_unsettled, self.word_count))]
        for _ in range(min(max(0, self.first_unsettled - cut), len(self._marks))):
            self._marks.pop()
            self._speakers.pop()
        keep = max(0, cut - self.first_unsettled)
        del self._pending[keep:], self._shown[keep:]
        self.word_count = cut
        self.first_unsettled = min(self.first_unsettled, cut)
        events.append(Retracted(cut))
        turn_taken_back = cut in self._turn_starts
        self._turn_starts = {p for p in self._turn_starts if p < cut}
        self._turn_ends = {p for p in self._turn_ends if p < cut}
        if turn_taken_back and cut - 1 in self._turn_ends:  # the other side did not speak after all
            self._turn_ends.discard(cut - 1)
            events += self._show(cut - 1)
        return events

    # Time changes nothing: a mark settles on arrival, or when its recognizer says so.
    def advance_time(self, now: float) -> list[Event]:
        return []

    def learn_forms(self, forms: dict[str, str]) -> None:
        """Nothing to learn: the recognizer's own case is kept, and a term comes already written
        its way in the word (``engine.session.terms``)."""

    def flush(self) -> list[Event]:
        """End of input: nothing will rewrite the pending words, so their marks settle as shown."""
        return self._settle(self.word_count)

    def finish(self) -> list[Event]:
        return self.flush()

    # -- internals ---------------------------------------------------------------------------
    def _last_speaker(self) -> str | None:
        """The speaker of the stream's last word, as appended (None: no word, or forgotten)."""
        if self._pending:
            return self._pending[-1].speaker
        return self._speakers[-1] if self._speakers else None

    def _rendered(self, p: int) -> tuple[str, str, str, str]:
        """(mark, case, form, inner form) of pending position ``p``, its case following the mark
        shown before it."""
        word = self._pending[p - self.first_unsettled]
        mark, case, form = written_marks(word)
        if p in self._turn_ends and word.written.strip():  # a word without a writing stays unmarked
            mark = turn_end_mark(mark)
        if p == self.first_unsettled:
            before = self._marks[-1] if self._marks else None
        else:
            before = self._shown[p - 1 - self.first_unsettled][0]
        sentence_start = before is None or before in SENTENCE_END_MARKS or p in self._turn_starts
        inner = ""
        if sentence_start and word.written and case == "lower":
            case, inner, form = "capitalized", form, form[:1].upper() + form[1:]
        elif sentence_start and case == "capitalized" and form.lower() not in _FIRST_PERSON:
            inner = form[:1].lower() + form[1:]  # the capital only starts the sentence
        return mark, case, form, inner

    def _show(self, p: int) -> list[Event]:
        rendered = self._rendered(p)
        i = p - self.first_unsettled
        if rendered == self._shown[i]:
            return []
        self._shown[i] = rendered
        mark, case, form, _ = rendered
        return [Provisional(p, mark, case, 1.0, form)]

    def _settle(self, upto: int) -> list[Event]:
        events: list[Event] = []
        while self.first_unsettled < min(upto, self.word_count):
            p = self.first_unsettled
            mark, case, form, inner = self._shown[0]
            # words seen after it when it settled; a writing final with its word waits for none
            lookahead = 0 if self.settles_on_arrival else self.word_count - 1 - p
            events.append(Settled(p, mark, case, lookahead, form, 1.0, inner))
            self._marks.append(mark)
            self._speakers.append(self._pending[0].speaker)
            self._turn_starts.discard(p)
            self._turn_ends.discard(p)
            del self._pending[0], self._shown[0]
            self.first_unsettled += 1
        return events
