"""The echo guard: a word the microphone heard that repeats what the others just said is hidden.

Without a headset the microphone also hears the others through the speakers, so their words
would show twice, once as Me. The echo canceller (``engine.audio.echo_cancel``) removes most of
that sound; the guard catches the rest, and is all there is where the sound server has no
canceller. It compares words, not audio: a Me word whose text matches an Others word that began
within ``window`` seconds of it is the others' words come back.

A Me word can only be judged once the others' side has heard past it (its recognizer sees the
same speech at the same time, so its hypothesis covers it by then): until ``judgeable``, the
session holds the word back. The others' words come both committed and from their recognizer's
running hypotheses, since a hypothesis may hear the echoed words before they are committed, or
word them slightly differently from one decode to the next.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from engine.words import Word

__all__ = ["ECHO_WINDOW", "EchoGuard"]

ECHO_WINDOW = 2.0  # seconds between a word said by the others and its echo heard as Me
JUDGE_AFTER = 0.5  # seconds the others' side must have heard past a Me word before it is judged
KEEP = 10.0  # seconds of the others' words remembered


class EchoGuard:
    def __init__(self, window: float = ECHO_WINDOW, judge_after: float = JUDGE_AFTER):
        self.window = window
        self.judge_after = judge_after
        self._others: deque[tuple[float, str]] = deque()  # (start, text), in arrival order
        self._seen: set[tuple[float, str]] = set()
        self.hidden = 0  # Me words hidden as echoes so far

    def heard_others(self, words: Iterable[Word]) -> None:
        """Words the others' side committed or hypothesised (with times)."""
        latest = None
        for word in words:
            if word.start is None or not word.text:
                continue
            key = (round(word.start, 2), word.text.lower())
            if key not in self._seen:
                self._seen.add(key)
                self._others.append(key)
            latest = word.start if latest is None else max(latest, word.start)
        if latest is not None:
            while self._others and self._others[0][0] < latest - KEEP:
                self._seen.discard(self._others.popleft())

    def judgeable(self, word: Word, others_heard_until: float) -> bool:
        """Whether the others' side has heard far enough past ``word`` to judge it."""
        return word.end is None or others_heard_until >= word.end + self.judge_after

    def is_echo(self, word: Word) -> bool:
        """Whether the Me ``word`` repeats an Others word said within the window (counted)."""
        if word.start is None:
            return False
        text = word.text.lower()
        echo = any(
            other == text and -self.window / 4 <= word.start - start <= self.window
            for start, other in self._others
        )
        self.hidden += echo
        return echo
