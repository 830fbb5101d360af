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

Words are compared by their bare text (``bare_word``: lower case, no marks), so that a word
Whisper wrote "budget." at the end of one buffer and "budget," in the next still agrees; the
committed word keeps the newest hypothesis's writing, the one that heard more after it.
"""

from __future__ import annotations

from engine.words import Word

# Characters Whisper attaches to a word that are not part of it: marks, quotes, brackets.
_STRIPPED = "\"'“”‘’.,?!:;…()[]{}¿¡-–—"
# A hypothesis word whose middle lies before the last committed word's end belongs to audio
# already committed.
OVERLAP_TOLERANCE = 0.05
# The committed words are looked for among the last this many; a longer repeat is real speech.
MAX_REPEATED = 5
# How far one word's end time moves between two decodes of the same audio (seconds).
SAME_WORD_DRIFT = 0.6


def bare_word(written: str) -> str:
    """The word as livecap's punctuation engine reads it: lower case, without the marks, quotes
    and brackets around it ("Budget," → "budget"; "don't" and "3.5" keep their inner marks)."""
    return written.strip().strip(_STRIPPED).lower()


class LocalAgreement:
    """Commit the prefix two consecutive hypotheses agree on; committed words never change."""

    def __init__(self) -> None:
        self.committed_end = 0.0  # end time of the last committed word
        self._committed_tail: list[str] = []  # the last committed words' bare text
        self._previous: list[Word] = []  # the last hypothesis, less what it repeated of committed words

    @property
    def unconfirmed(self) -> list[Word]:
        """The newest hypothesis's words that are not committed yet."""
        return list(self._previous)

    def agree(self, hypothesis: list[Word]) -> tuple[list[Word], list[Word]]:
        """(newly committed words, the unconfirmed tail) after one more hypothesis."""
        new = self._beyond_committed(hypothesis)
        n = 0
        while n < min(len(new), len(self._previous)) and new[n].text == self._previous[n].text:
            n += 1
        if n and n == len(new):
            # The newest hypothesis's last word is the one Whisper is still hearing: it ends the
            # buffer, where Whisper writes a sentence mark whatever comes next. It waits for the
            # next decode, or for the end of the utterance (``finish``).
            n -= 1
        committed = new[:n]
        self._remember(committed)
        self._previous = new[n:]
        return committed, list(self._previous)

    def finish(self, hypothesis: list[Word] | None = None) -> list[Word]:
        """The utterance has ended: nothing more will be heard that could change ``hypothesis``, so
        all of it is committed (with no ``hypothesis``: the pending tail as it is)."""
        committed = self._previous if hypothesis is None else self._beyond_committed(hypothesis)
        self._previous = []
        self._remember(committed)
        return list(committed)

    def forget_before(self, time: float) -> None:
        """The audio before ``time`` left the buffer: the pending words there are gone with it."""
        self._previous = [w for w in self._previous if w.start is None or w.start >= time]

    def reset(self) -> None:
        self.__init__()

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

    def _remember(self, committed: list[Word]) -> None:
        if not committed:
            return
        ends = [w.end for w in committed if w.end is not None]
        if ends:
            self.committed_end = max(self.committed_end, ends[-1])
        self._committed_tail = (self._committed_tail + [w.text for w in committed])[-MAX_REPEATED:]


def _middle(word: Word) -> float:
    return word.start if word.end is None else (word.start + word.end) / 2
