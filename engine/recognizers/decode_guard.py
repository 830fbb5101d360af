"""Which words of a Whisper decode to keep: none of a loop, none the audio does not support.

Whisper writes what it hears, but on audio it cannot read (an echoey room, babble, a poor call,
noise after speech) it falls into a loop ("I was in the past, I was in the past, …" to the end of
the window) or writes words nobody said. Nothing is better than a loop: captions that repeat a
phrase twenty times hide the speech around it and fill the transcript. The rules, each from one
of Whisper's own signals or the recognizer's VAD, live and for files alike:

1. **Whisper's silence rule.** A segment whose ``no_speech_prob`` is over ``NO_SPEECH_PROB`` while
   its ``avg_logprob`` is under ``LOG_PROB`` is no speech, as in Whisper's own ``transcribe``.
2. **Compression.** ``compression_ratio`` (the decode's text against its gzip) over
   ``COMPRESSION_RATIO`` is Whisper's threshold for a repetitive decode: the hypothesis is cut
   where it starts repeating, on a hair trigger (``loop_start(strict=True)``); a segment whose own
   text compresses that much and shows no repeat to cut at is dropped. Whisper would decode again
   at a higher temperature; with the single temperature livecap decodes at, faster-whisper keeps
   the failed decode as it is, and live a second decode would cost the CPU the captions need.
3. **Repeats in one hypothesis.** The same one to ``LONGEST_PHRASE`` words back to back, more
   often than people say them (``BACK_TO_BACK``: "no, no, no, no" stays, a five-word phrase three
   times does not), or one phrase of ``PHRASE_WORDS`` words or more ``PHRASE_TIMES`` times with
   other words between: the hypothesis is cut at the loop's second round.
4. **Repeats across decodes.** A loop survives rule 3 when each decode holds a round or two of it
   and the next utterance (or a file's next window) starts it anew. A phrase of ``PHRASE_WORDS``
   words or more that the recognizer has committed twice lately (``history``) and comes back a
   third time is a loop, and so are new words that carry on the back-to-back repeat the committed
   words end with past rule 3's count: the new words are cut there.
5. **The VAD's support.** A word whose time span, widened by ``VAD_PAD`` for Whisper's timing
   error, holds no frame the Silero VAD heard as speech is invented: dropped (``SpeechSpans``).

A cut (rules 2–4) is reported (``Kept.looped``): the recognizer then decodes the audio after the
cut once more on its own at the utterance end, so the speech after a loop is not lost with it.
The guard keeps the text before a loop and its first round: what was most likely said.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.recognizers.base import clamp_confidence
from engine.recognizers.local_agreement import OVERLAP_TOLERANCE
from engine.words import Word, bare_word, join_pieces

__all__ = [
    "BACK_TO_BACK",
    "COMPRESSION_RATIO",
    "LOG_PROB",
    "LONGEST_PHRASE",
    "NO_SPEECH_PROB",
    "PHRASE_TIMES",
    "PHRASE_WORDS",
    "VAD_PAD",
    "DecodeGuard",
    "Kept",
    "Segment",
    "SpeechSpans",
    "compression_ratio",
    "is_silence",
    "loop_start",
    "segments_of",
]

# Whisper's own thresholds (its ``transcribe``'s defaults, faster-whisper's too).
NO_SPEECH_PROB = 0.6
LOG_PROB = -1.0
COMPRESSION_RATIO = 2.4
# The longest phrase looked for repeated back to back; Whisper's loops seen on hard audio ran
# from one word to ten ("or if you can go on the seat of the room").
LONGEST_PHRASE = 10
# Back-to-back repeats that make a loop, by the phrase's length in words: people say a word four
# times ("no, no, no, no"), a pair or a longer phrase twice ("bye bye, bye bye"); a third round is
# Whisper's ("want to be to be to be").
BACK_TO_BACK = {1: 5, 2: 3}
LONGER_BACK_TO_BACK = 3
# A phrase this long that comes ``PHRASE_TIMES`` times in one hypothesis, or a third time after
# the recognizer committed it twice, is a loop: shorter ones ("and I was") come back in speech.
PHRASE_WORDS = 4
PHRASE_TIMES = 3
COMMITTED_TIMES = 3
# Seconds around a word in which a speech frame supports it: Whisper's word times are off by a
# word's length or so, and Silero's hysteresis ends a speech stretch a frame or two early.
VAD_PAD = 0.3


@dataclass(frozen=True)
class Segment:
    """One segment of a decode: its words on the stream's clock and Whisper's signals about it
    (``compression_ratio``, ``avg_logprob`` and ``no_speech_prob`` are the decode's, as
    faster-whisper gives them: every segment of one 30 s window shares them)."""

    words: tuple[Word, ...]
    text: str = ""
    avg_logprob: float = 0.0
    compression_ratio: float = 1.0
    no_speech_prob: float = 0.0


def segments_of(
    segments: Iterable, offset: float, start_of: Callable[[float, float], float] | None = None
) -> list[Segment]:
    """faster-whisper's segments (decoded as the generator runs) as ``Segment``: words with times
    from ``offset`` (seconds on the stream's clock), each start passed through ``start_of(start,
    end)`` (the recognizer moves a word that straddles a speech onset to the onset). Whisper's
    pieces are joined into words first (``join_pieces``: "42" and ",000" are "42,000")."""
    out = []
    for segment in segments:
        words = []
        for w in join_pieces(segment.words or ()):
            text = bare_word(w.word)
            if text:
                start, end = offset + w.start, offset + w.end
                if start_of is not None:
                    start = start_of(start, end)
                words.append(Word(text, start, end, clamp_confidence(w.probability), w.word.strip()))
        out.append(
            Segment(
                tuple(words),
                segment.text,
                segment.avg_logprob,
                segment.compression_ratio,
                segment.no_speech_prob,
            )
        )
    return out


def compression_ratio(text: str) -> float:
    """The text's length against its zlib-compressed length, as Whisper measures it."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def is_silence(segment: Segment) -> bool:
    """Whisper's rule for a segment it should not have written: no speech, and not sure of it."""
    return segment.no_speech_prob > NO_SPEECH_PROB and segment.avg_logprob < LOG_PROB


def _back_to_back(texts: list[str], start: int, size: int) -> int:
    gram = texts[start : start + size]
    repeats = 1
    while texts[start + repeats * size : start + (repeats + 1) * size] == gram:
        repeats += 1
    return repeats


def loop_start(texts: list[str], strict: bool = False) -> int | None:
    """Where the words ``texts`` (bare) fall into a loop: the index of its second round, the first
    word to drop; None without one. ``strict``: Whisper's compression already says the decode
    repeats itself, so a phrase said twice back to back, or a word three times, is its loop."""
    seen: dict[tuple[str, ...], list[int]] = {}
    for start in range(len(texts)):
        if size := _back_to_back_at(texts, start, strict):
            return start + size
        for size in range(PHRASE_WORDS, LONGEST_PHRASE + 1):
            if start + size > len(texts):
                break
            places = seen.setdefault(tuple(texts[start : start + size]), [])
            # The phrase's earlier rounds must end before this one starts: overlapping windows of
            # one stretch of words are not a repeat.
            if not places or places[-1] + size <= start:
                places.append(start)
            if len(places) >= (2 if strict else PHRASE_TIMES):
                return places[1]
    return None


def _back_to_back_at(texts: list[str], start: int, strict: bool = False) -> int:
    """The size of the phrase that repeats back to back into a loop from ``start``; 0 if none."""
    for size in range(1, LONGEST_PHRASE + 1):
        if start + 2 * size > len(texts):
            break
        needed = (3 if size == 1 else 2) if strict else BACK_TO_BACK.get(size, LONGER_BACK_TO_BACK)
        if _back_to_back(texts, start, size) >= needed:
            return size
    return 0


def _carried_on(texts: list[str], history: list[str]) -> int | None:
    """The index in ``texts`` (new words) from which they carry on a back-to-back repeat that the
    committed words end with, into a loop (rule 3 across a decode's start: a file's next window,
    or the next utterance, starting the same pair again); None if they do not."""
    tail = history[-LONGEST_PHRASE * (LONGER_BACK_TO_BACK + 1) :]
    if not tail or not texts or any(_back_to_back_at(tail, i) for i in range(len(tail))):
        return None  # the committed words are as they are
    joined = tail + texts
    at = next((i + size for i in range(len(joined)) if (size := _back_to_back_at(joined, i))), None)
    return None if at is None else max(0, at - len(tail))


def _committed_again(texts: list[str], history: list[str]) -> int | None:
    """The index in ``texts`` (new words) where a phrase of ``PHRASE_WORDS`` words or more comes
    the ``COMMITTED_TIMES``-th time, counting its rounds in ``history`` (committed words) and
    earlier in ``texts``; None if none does."""
    if not history:
        return None
    rounds: Counter[tuple[str, ...]] = Counter()
    for words in (history, texts):  # counted apart: no phrase spans the two
        for start in range(len(words)):
            for size in range(PHRASE_WORDS, min(LONGEST_PHRASE, len(words) - start) + 1):
                gram = tuple(words[start : start + size])
                if words is texts and rounds[gram] >= COMMITTED_TIMES - 1:
                    return start
                rounds[gram] += 1
    return None


class SpeechSpans:
    """The stretches of the stream the VAD heard as speech (seconds), merged as they come."""

    def __init__(self) -> None:
        self._spans: list[list[float]] = []

    def heard(self, start: float, end: float) -> None:
        """A frame from ``start`` to ``end`` (seconds) was speech."""
        if self._spans and start <= self._spans[-1][1] + 1e-6:
            self._spans[-1][1] = max(self._spans[-1][1], end)
        else:
            self._spans.append([start, end])

    def supports(self, word: Word, pad: float = VAD_PAD) -> bool:
        if word.start is None or word.end is None:
            return True
        return any(s < word.end + pad and word.start - pad < e for s, e in self._spans)

    def forget_before(self, time: float) -> None:
        self._spans = [span for span in self._spans if span[1] >= time]

    def clear(self) -> None:
        self._spans = []


@dataclass(frozen=True)
class Kept:
    """The words kept of a decode, and whether a loop was cut off them."""

    words: list[Word]
    looped: bool


class DecodeGuard:
    """The rules above for one stream: it holds the VAD's speech stretches (``speech``)."""

    def __init__(self) -> None:
        self.speech = SpeechSpans()

    def keep(
        self, segments: list[Segment], history: list[str] | None = None, committed_end: float = 0.0
    ) -> Kept:
        """The words of ``segments`` worth keeping. ``history``: the bare words the recognizer
        committed lately, oldest first; ``committed_end``: where its last committed word ends, so
        that words a live decode hears again are not counted as a new round of themselves."""
        segments = [s for s in segments if not is_silence(s)]
        strict = any(s.compression_ratio > COMPRESSION_RATIO for s in segments)
        words: list[Word] = []
        for segment in segments:
            own = list(segment.words)
            if compression_ratio(segment.text.strip()) > COMPRESSION_RATIO:
                at = loop_start([w.text for w in own], strict=True)
                own = own[:at] if at is not None else []
            words += own
        cut = len(words) < sum(len(s.words) for s in segments)
        words = [w for w in words if self.speech.supports(w)]
        kept = self.without_loops(words, history, committed_end, strict)
        return Kept(kept, cut or len(kept) < len(words))

    def without_loops(
        self, words: list[Word], history: list[str] | None = None, committed_end: float = 0.0, strict=False
    ) -> list[Word]:
        """``words`` cut where they fall into a loop, in themselves (rules 2–3) or across decodes
        (rule 4: only the words past ``committed_end`` are new)."""
        texts = [w.text for w in words]
        at = loop_start(texts, strict)
        if at is not None:
            words, texts = words[:at], texts[:at]
        new = next(
            (
                i
                for i, w in enumerate(words)
                if w.start is None
                or w.end is None
                or (w.start + w.end) / 2 > committed_end - OVERLAP_TOLERANCE
            ),
            len(words),
        )
        history = list(history or ())
        cuts = [
            c
            for c in (_committed_again(texts[new:], history), _carried_on(texts[new:], history))
            if c is not None
        ]
        return words[: new + min(cuts)] if cuts else words
