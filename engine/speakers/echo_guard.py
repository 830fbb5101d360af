"""The echo guard: a word the microphone heard that is the others' speech come back is hidden.

Without a headset the microphone also hears the others through the speakers, so their words
would show twice, once as Me. The echo canceller (``engine.audio.echo_cancel``) removes most of
that sound; the guard catches the rest, and is all there is where the sound server has no
canceller. A Me word is the others' words come back when either

- **its text** matches an Others word that began within ``window`` seconds of it; or
- **its level** on the microphone is ``quieter_by`` dB or more below the user's own speech
  while the others were speaking: what is left of an echo after the canceller is faint, and
  Whisper writes it as other words than the others said (so no text matches). The user's own
  level is the loud end (``OWN_LEVEL_PERCENTILE``) of the levels of the Me words said while the
  others were quiet (no echo then); the user talking over the others is as loud as ever, and
  stays. Until the user has said ``OWN_WORDS_NEEDED`` words with the others quiet, that level is
  not known, and a word heard only while the others speak is taken for their echo: a call
  usually starts with the others talking, and the canceller's first seconds leave the most echo
  (it is still learning the room). Unless the echo's own level is known by then: the levels of
  the Me words hidden by their text, nearly all the others heard again (the middle of them: a
  common word the user said over the others may match too). A word ``LOUDER_BY`` dB or more
  over that is the user talking over the others, and stays (the double-talk figure of
  ``engine.evaluation.meeting`` counts the user's words the guard hides).

A Me word can only be judged once the others' side has heard past it (its recognizer sees the
same speech at the same time, so its hypothesis covers it by then): until ``judgeable``, the
session holds the word back. The others' words come both committed and from their recognizer's
running hypotheses, since a hypothesis may hear the echoed words before they are committed, or
word them slightly differently from one decode to the next.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.words import Word

__all__ = ["ECHO_WINDOW", "EchoGuard", "hidden_notice"]

ECHO_WINDOW = 2.0  # seconds between a word said by the others and its echo heard as Me
JUDGE_AFTER = 0.5  # seconds the others' side must have heard past a Me word before it is judged
KEEP = 10.0  # seconds of the others' words remembered, behind both sides
QUIETER_BY = 12.0  # dB under the user's own speech that marks an echo (the canceller's is ~30 dB)
OWN_LEVEL_PERCENTILE = 90  # of the Me words' levels: the user's own speech, echoes being quieter
LEVELS_KEPT = 200  # Me words' levels the user's own level is taken from
OWN_WORDS_NEEDED = 3  # Me words said with the others quiet before the user's own level is known
ECHO_WORDS_NEEDED = 3  # Me words hidden by their text before the echo's level is known
LOUDER_BY = 6.0  # dB over the echo's middle level that marks the user's own voice over the others
FRAME = SAMPLE_RATE // 50  # 20 ms: the microphone's level is kept per frame
OVERLAP = 0.3  # seconds either side of an Others word in which a Me word counts as during it


def hidden_notice(total: int, remedy: str) -> str:
    """The one line a front end says of the words the guard hid (``WordsHidden.total``), with
    where the user turns the guard off: "12 words hidden as possible echo: Settings → Meeting"."""
    return f"{total} word{'' if total == 1 else 's'} hidden as possible echo: {remedy}"


class EchoGuard:
    def __init__(
        self, window: float = ECHO_WINDOW, judge_after: float = JUDGE_AFTER, quieter_by: float = QUIETER_BY
    ):
        self.window = window
        self.judge_after = judge_after
        self.quieter_by = quieter_by
        self._others: deque[tuple[float, float, str]] = deque()  # (start, end, text), in arrival order
        self._seen: set[tuple[float, str]] = set()
        self._frames: deque[float] = deque(maxlen=int(30 * SAMPLE_RATE / FRAME))  # mic level, dB
        self._frames_first = 0  # frame index of self._frames[0]
        self._pending = np.zeros(0, np.float32)
        self._me_until: float | None = None  # how far the microphone has been heard (stream seconds)
        self._own_levels: deque[float] = deque(maxlen=LEVELS_KEPT)  # Me words' levels, others quiet, dB
        self._echo_levels: deque[float] = deque(maxlen=LEVELS_KEPT)  # Me words hidden by text, dB
        self.hidden = 0  # Me words hidden as echoes so far
        self.hidden_by_level = 0  # of which by their level alone

    # -- what the guard hears ---------------------------------------------------------------------
    def heard_others(self, words: Iterable[Word]) -> None:
        """Words the others' side committed or hypothesised (with times)."""
        latest = None
        for word in words:
            if word.start is None or not word.text:
                continue
            key = (round(word.start, 2), word.text.lower())
            if key not in self._seen:
                self._seen.add(key)
                end = word.end if word.end is not None else word.start
                self._others.append((key[0], end, key[1]))
            latest = word.start if latest is None else max(latest, word.start)
        if latest is not None:
            # Kept until both sides are past them: two files are read at their recognizers' own
            # speeds, and the microphone's words may be judged well behind the others' latest.
            behind = latest if self._me_until is None else min(latest, self._me_until)
            while self._others and self._others[0][0] < behind - KEEP:
                start, _, text = self._others.popleft()
                self._seen.discard((start, text))

    def hear_me(self, chunk: np.ndarray, first_sample: int) -> None:
        """A chunk of the microphone's audio (int16), before its recognizer hears it: its level
        per 20 ms frame is kept (not the audio)."""
        self._me_until = (first_sample + len(chunk)) / SAMPLE_RATE
        samples = np.concatenate([self._pending, chunk.astype(np.float32) / 32768.0])
        frames = len(samples) // FRAME
        self._pending = samples[frames * FRAME :]
        if frames:
            power = np.mean(samples[: frames * FRAME].reshape(frames, FRAME) ** 2, axis=1)
            # The oldest frames fall off the bounded queue: its first frame's index moves on.
            self._frames_first += max(0, len(self._frames) + frames - self._frames.maxlen)
            self._frames.extend((10 * np.log10(power + 1e-10)).tolist())

    def _level(self, word: Word) -> float | None:
        """The microphone's level over ``word`` (dB, its loudest 20 ms), or None unheard."""
        first = int(word.start * SAMPLE_RATE / FRAME) - self._frames_first
        last = int(word.end * SAMPLE_RATE / FRAME) - self._frames_first
        first, last = max(first, 0), min(last + 1, len(self._frames))
        if last <= first:
            return None
        return max(self._frames[k] for k in range(first, last))

    # -- judging a Me word ----------------------------------------------------------------------------
    def judgeable(self, word: Word, others_heard_until: float) -> bool:
        """Whether the others' side has heard far enough past ``word`` to judge it."""
        return word.end is None or others_heard_until >= word.end + self.judge_after

    def is_echo(self, word: Word) -> bool:
        """Whether the Me ``word`` is the others' words come back (counted)."""
        if word.start is None:
            return False
        text = word.text.lower()
        echo = any(
            other == text and -self.window / 4 <= word.start - start <= self.window
            for start, _, other in self._others
        )
        if echo and word.end is not None:
            level = self._level(word)
            if level is not None:
                self._echo_levels.append(level)
        elif word.end is not None:
            echo = self._faint_during_others(word)
            self.hidden_by_level += echo
        self.hidden += echo
        return echo

    def _faint_during_others(self, word: Word) -> bool:
        level = self._level(word)
        if level is None:
            return False
        during = any(
            start - OVERLAP <= word.end and word.start <= end + OVERLAP for start, end, _ in self._others
        )
        if not during:
            self._own_levels.append(level)
            return False
        if len(self._own_levels) >= OWN_WORDS_NEEDED:
            own = float(np.percentile(self._own_levels, OWN_LEVEL_PERCENTILE))
            return level <= own - self.quieter_by
        if len(self._echo_levels) >= ECHO_WORDS_NEEDED:
            return level < float(np.median(self._echo_levels)) + LOUDER_BY
        return True
