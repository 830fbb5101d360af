"""Local agreement: turn Whisper's re-decoded hypotheses into words that never change.

Whisper has no streaming mode: it decodes a whole buffer of audio at once, and the next decode
of the grown buffer may write the last words differently. Macháček, Dabre and Bojar, *Turning
Whisper into Real-Time Transcription System* (2023), commit the longest prefix on which two
consecutive hypotheses agree ("local agreement"); whisper_streaming is their reference
implementation. ``LocalAgreement`` is that rule as one small synchronous class: feed it each
hypothesis (words with times on the stream's clock), get back the words it commits (final,
never retracted) and the unconfirmed tail (shown provisional).

The newest hypothesis's last word is never committed before the utterance ends: it is the word
the speaker may still be saying, and Whisper ends every buffer with a sentence mark.

Words are compared by their bare text (``engine.words.bare_word``: lower case, no marks), so that a word
Whisper wrote "budget." at the end of one buffer and "budget," in the next still agrees.

**A word's writing settles later than the word.** The hypothesis that commits a word has often
heard only a word or two past it, and Whisper writes few marks inside a short buffer: the mark
after a word is only as good as the context after it. So a committed word's text never changes,
but its writing (its mark and capital) stays open: each later hypothesis that hears the word
again writes it anew, and the newest writing is kept until a hypothesis has heard
``settle_after`` words past the word, or the word has left the buffer, or the utterance ended.
``take_writings`` hands out what changed and how many words' writings are settled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.words import STRIPPED as _STRIPPED
from engine.words import Word, bare_word, is_abbreviation, word_core

# A hypothesis word whose middle lies before the last committed word's end belongs to audio
# already committed.
OVERLAP_TOLERANCE = 0.05
_SENTENCE_ENDS = (".", "?", "!")
_CLOSING = "\"'”’)]}"
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i've", "i'd"})
# The committed words are looked for among the last this many; a longer repeat is real speech.
MAX_REPEATED = 5
# How far one word's end time moves between two decodes of the same audio (seconds).
SAME_WORD_DRIFT = 0.6
# Words a hypothesis must have heard past a committed word before that word's writing settles.
SETTLE_AFTER = 3


@dataclass
class _OpenWriting:
    """A committed word whose writing may still change."""

    index: int  # the word's place among the words committed since the reset
    word: Word  # with its newest writing
    heard_after: int  # words the hypothesis that wrote it had heard past it


@dataclass(frozen=True)
class Writings:
    """What changed in the committed words' writings: ``rewritten`` maps a committed word's index
    (counted from the reset) to the word with its new writing; the first ``settled`` committed
    words' writings will never change again."""

    rewritten: dict[int, Word]
    settled: int


def without_initial_capitals(hypothesis: list[Word]) -> list[Word]:
    """``hypothesis`` with the capital that only starts a sentence taken off each writing.

    Whisper capitalises the first word of every buffer and of every sentence it writes; whether a
    sentence starts there is the mark before the word, which may come from another decode. So
    such a capital says nothing, and the marks decoder puts it back after an end mark
    (``RecognizerMarksDecoder``); a capital left in a writing is one Whisper gave a word inside
    its own sentence (a name), which stays wherever it lands. "I" and its forms, and words
    written all in capitals, keep theirs."""
    out, starts = [], True
    for word in hypothesis:
        written = word.written
        lead = len(written) - len(written.lstrip(_STRIPPED))
        core = bare_word(written)
        letters = written[lead:]
        if (
            starts
            and letters[:1].isupper()
            and not (len(core) > 1 and core.upper() == word_core(letters))
            and core not in _FIRST_PERSON
        ):
            written = written[:lead] + letters[:1].lower() + letters[1:]
            word = replace(word, written=written)
        out.append(word)
        if written.strip():
            end = written.rstrip(_CLOSING)  # an abbreviation's period ends no sentence ("U.S.")
            starts = end.endswith(_SENTENCE_ENDS) and not is_abbreviation(end.lstrip(_STRIPPED))
    return out


class LocalAgreement:
    """Commit the prefix two consecutive hypotheses agree on; committed words never change, their
    writings settle ``settle_after`` words later.

    ``two_of_three``: the newest hypothesis may agree with either of the two before it. A model
    whose decodes of the same audio waver (A, B, A) then commits on the third decode rather than
    waiting for two identical ones in a row."""

    def __init__(self, settle_after: int = SETTLE_AFTER, two_of_three: bool = False) -> None:
        if settle_after < 0:
            raise ValueError(f"settle_after must be 0 or more, got {settle_after}")
        self.settle_after = settle_after
        self.two_of_three = two_of_three
        self._older: list[Word] = []  # the hypothesis before the last, whole (``two_of_three``)
        self._last: list[Word] = []  # the last hypothesis, whole
        self.committed_end = 0.0  # end time of the last committed word
        self.committed_count = 0  # words committed since the reset
        self._committed_tail: list[str] = []  # the last committed words' bare text
        self._previous: list[Word] = []  # the last hypothesis, less what it repeated of committed words
        self._open: list[_OpenWriting] = []  # committed words whose writing may change, in order
        self._rewritten: dict[int, Word] = {}  # writings changed since the last take_writings
        self._settled = 0  # committed words whose writing is settled

    @property
    def unconfirmed(self) -> list[Word]:
        """The newest hypothesis's words that are not committed yet."""
        return list(self._previous)

    def agree(self, hypothesis: list[Word]) -> tuple[list[Word], list[Word]]:
        """(newly committed words, the unconfirmed tail) after one more hypothesis."""
        new = self._beyond_committed(hypothesis)
        self._rewrite(hypothesis, len(hypothesis) - len(new))
        n = _agreeing(new, self._previous)
        if self.two_of_three and self._older:
            n = max(n, _agreeing(new, self._beyond_committed(self._older)))
        self._older, self._last = self._last, list(hypothesis)
        if n and n == len(new):
            # The newest hypothesis's last word is the one Whisper is still hearing: it ends the
            # buffer, where Whisper writes a sentence mark whatever comes next. It waits for the
            # next decode, or for the end of the utterance (``finish``).
            n -= 1
        committed = new[:n]
        self._remember(committed, heard_after=len(new) - 1)
        self._previous = new[n:]
        self._settle_heard()
        return committed, list(self._previous)

    def finish(self, hypothesis: list[Word] | None = None) -> list[Word]:
        """The utterance has ended: nothing more will be heard that could change ``hypothesis``, so
        all of it is committed (with no ``hypothesis``: the pending tail as it is), and every
        committed word's writing settles."""
        if hypothesis is None:
            committed = self._previous
        else:
            committed = self._beyond_committed(hypothesis)
            self._rewrite(hypothesis, len(hypothesis) - len(committed))
        self._previous = self._older = self._last = []  # the next utterance is heard anew
        self._remember(committed, heard_after=len(committed) - 1)
        self._settle_through(len(self._open))
        return list(committed)

    def forget_before(self, time: float) -> None:
        """The audio before ``time`` left the buffer: the pending words there are gone with it, and
        the committed words there will not be heard again (their writings settle)."""
        kept = lambda words: [w for w in words if w.start is None or w.start >= time]
        self._previous, self._older, self._last = kept(self._previous), kept(self._older), kept(self._last)
        gone = [i for i, o in enumerate(self._open) if o.word.end is not None and o.word.end <= time + 1e-6]
        if gone:
            self._settle_through(gone[-1] + 1)

    def take_writings(self) -> Writings:
        """The writings changed since the last call, and how many committed words' writings are
        settled (committed words are counted from the reset)."""
        out = Writings(self._rewritten, self._settled)
        self._rewritten = {}
        return out

    def reset(self) -> None:
        self.__init__(self.settle_after, self.two_of_three)

    # -- internals ---------------------------------------------------------------------------
    def _beyond_committed(self, hypothesis: list[Word]) -> list[Word]:
        """The words of ``hypothesis`` after what is committed. Each decode re-hears the committed
        words still in the buffer, and their times move by a word's length from one decode to
        the next, so the committed words' last few are found by text first (ending near the
        committed end); only when they are not there does time alone decide."""
        tail = self._committed_tail
        for n in range(min(MAX_REPEATED, len(tail)), 0, -1):
            found = [
                i + n
                for i in range(len(hypothesis) - n + 1)
                if [w.text for w in hypothesis[i : i + n]] == tail[-n:]
                and hypothesis[i + n - 1].end is not None
                and abs(hypothesis[i + n - 1].end - self.committed_end) <= SAME_WORD_DRIFT
            ]
            if found:
                return hypothesis[found[-1] :]
        return [
            w for w in hypothesis if w.start is None or _middle(w) > self.committed_end - OVERLAP_TOLERANCE
        ]

    def _remember(self, committed: list[Word], heard_after: int) -> None:
        """Keep ``committed``; ``heard_after``: words the hypothesis heard past its first word."""
        if not committed:
            return
        ends = [w.end for w in committed if w.end is not None]
        if ends:
            self.committed_end = max(self.committed_end, ends[-1])
        self._committed_tail = (self._committed_tail + [w.text for w in committed])[-MAX_REPEATED:]
        for i, word in enumerate(committed):
            self._open.append(_OpenWriting(self.committed_count, word, heard_after - i))
            self.committed_count += 1

    def _rewrite(self, hypothesis: list[Word], repeated: int) -> None:
        """The hypothesis's first ``repeated`` words re-hear committed words: those still open take
        its writing, which heard more after them. They are matched from the end, by text."""
        i, j = repeated - 1, len(self._open) - 1
        while i >= 0 and j >= 0 and hypothesis[i].text == self._open[j].word.text:
            writing, heard = hypothesis[i].written, len(hypothesis) - 1 - i
            held = self._open[j]
            if heard >= held.heard_after:
                if writing != held.word.written:
                    held.word = replace(held.word, written=writing)
                    self._rewritten[held.index] = held.word
                held.heard_after = heard
            i, j = i - 1, j - 1

    def _settle_heard(self) -> None:
        """Settle the open writings up to the last one heard ``settle_after`` words past."""
        heard = [i for i, o in enumerate(self._open) if o.heard_after >= self.settle_after]
        if heard:
            self._settle_through(heard[-1] + 1)

    def _settle_through(self, count: int) -> None:
        if count <= 0:
            return
        self._settled = self._open[count - 1].index + 1
        del self._open[:count]


def _agreeing(new: list[Word], earlier: list[Word]) -> int:
    """How many words ``new`` begins with that ``earlier`` begins with too, by bare text."""
    n = 0
    while n < min(len(new), len(earlier)) and new[n].text == earlier[n].text:
        n += 1
    return n


def _middle(word: Word) -> float:
    return word.start if word.end is None else (word.start + word.end) / 2
