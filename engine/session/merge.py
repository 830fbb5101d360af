"""The sides' committed words, merged into the one stream the punctuation engine and every
subscriber see.

Each side's stabiliser counts its own words (its "local" positions); the stream counts all of
them in the order they were committed (its "global" positions). The merger turns each side's
output into engine commands on the stream: words carry their side's speaker id, and a rewritten
writing, the recognizer's horizon and its settled writings are translated to stream positions.
A stream prefix is final (or settled in writing) only where every word in it is, on its own side.

In a one-source session this is the identity: the side's positions are the stream's.

A meeting's sides only commit words that are never taken back (recognizers that commit their own
words, or stabilisers that commit at finals only: ``live.meeting_stabiliser``), because a
retraction on one side cannot reach past the other side's words committed after it. A Me word
is held until the echo guard can judge it, then shown or hidden. The others' words are labelled
with their voice as they are committed (``OthersVoices``), and the labels corrected
(``SpeakersLabelled``) until their turn settles.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace

from engine.events import PartialWords
from engine.punctuation.engine_thread import PunctuationEngine
from engine.recognizers.stabiliser import StabiliserOutput
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.labels import ME, OTHERS, is_others
from engine.speakers.voices import OthersVoices
from engine.words import Word

__all__ = ["SidesMerger"]

log = logging.getLogger(__name__)

HIDDEN = -1  # the stream position of a word the echo guard hid


@dataclass
class _SideState:
    speaker: str
    positions: list[int] = field(default_factory=list)  # local index → stream position (or HIDDEN)
    held: list[tuple[int, Word]] = field(default_factory=list)  # (local index, word) awaiting the guard
    horizon: int = 0  # local words that can no longer change
    writings_settled: int = 0
    unstable: tuple[str, ...] = ()
    heard_until: float = 0.0  # the side's stream time
    committed_through: float = 0.0  # the side's words are all committed before this stream time
    ended: bool = False


class SidesMerger:
    """Turns ``deliver(side, output, now)`` calls from the sides' threads into engine commands.

    ``emit`` publishes the session's own events (``PartialWords``). ``guard``: the echo guard for
    a meeting with a Me side, or None. ``on_pushed(count)``/``on_retracted(count)`` keep the
    session's word counts."""

    def __init__(
        self,
        engine: PunctuationEngine,
        speakers: list[str],
        emit,
        guard: EchoGuard | None = None,
        voices: OthersVoices | None = None,
    ):
        """``voices``: tells the others' voices apart (``engine.speakers.voices``); None: every
        Others word is "others"."""
        self.engine = engine
        self.voices = voices
        self._voice_of: dict[int, str] = {}  # stream position -> the voice label shown now
        self._voices_pruned = 0
        self.emit = emit
        self.guard = guard if any(s == ME for s in speakers) and len(speakers) > 1 else None
        self._sides = [_SideState(speaker) for speaker in speakers]
        self._origin: list[tuple[int, int]] = []  # stream position → (side, local index)
        self._horizon = 0  # stream words the engine was told are final
        self._writings_settled = 0
        self._time = 0.0
        self._lock = threading.Lock()
        self.words_pushed = 0  # words committed to the engine (replacements included)
        self.words_retracted = 0

    @property
    def words(self) -> int:
        return len(self._origin)

    def deliver(self, side, out: StabiliserOutput, now: float) -> None:
        with self._lock:
            state = self._sides[side.index]
            state.heard_until = now
            state.committed_through = max(state.committed_through, out.committed_through)
            if out.retract:
                self._retract(state, out.retract)
            words = [replace(w, speaker=state.speaker) for w in out.commit] if state.speaker else out.commit
            first = len(state.positions) + len(state.held)
            if self.guard is not None and is_others(state.speaker):
                self.guard.heard_others([*words, *out.unstable])
            if self.guard is not None and state.speaker == ME:
                state.held.extend((first + k, w) for k, w in enumerate(words))
            elif self.voices is not None and state.speaker == OTHERS:
                self._push_voices(side.index, state, words, state.committed_through)
            else:
                self._push(side.index, state, words)
            self._release_held()
            self._rewrite(side.index, state, out)
            state.horizon = max(state.horizon, out.horizon)
            self._advance_horizon()
            self._partial(state, out.unstable)
            self._advance_time()

    def side_ended(self, side) -> None:
        """``side``'s input ended: it holds nothing back any more, and its clock stops counting."""
        with self._lock:
            self._sides[side.index].ended = True
            self._release_held()
            self._advance_horizon()

    def release_all(self) -> None:
        """Stop: every held Me word is judged with what the others' side heard, and every voice
        label settles."""
        with self._lock:
            for state in self._sides:
                state.ended = True
            self._release_held(force=True)
            self._advance_horizon()
            if self.voices is not None:
                others = next(k for k, s in enumerate(self._sides) if s.speaker == OTHERS)
                self._push_voices(others, self._sides[others], [], float("inf"))

    # -- on the caller's thread, under the lock ----------------------------------------------
    def _push(self, index: int, state: _SideState, words: list[Word]) -> list[int]:
        """Append ``words`` to the stream; their stream positions."""
        if not words:
            return []
        first = len(self._origin)
        for _ in words:
            state.positions.append(len(self._origin))
            self._origin.append((index, len(state.positions) - 1))
        self.engine.push_many(words)  # committed together: one inference
        self.words_pushed += len(words)
        return list(range(first, len(self._origin)))

    def _push_voices(self, index: int, state: _SideState, words: list[Word], now: float) -> None:
        """The others' words, each labelled with its voice as heard so far; then the corrections
        of earlier words' labels, and how far the labels have settled (after the words: the
        engine publishes in order). ``now``: how far the side's words are all committed."""
        if words:
            labels = self.voices.label(words, now)
            words = [replace(w, speaker=label) for w, label in zip(words, labels)]
            positions = self._push(index, state, words)
            self.voices.placed(positions)
            self._voice_of.update(zip(positions, labels))
        news = self.voices.corrections(now, len(self._origin))
        if news is not None:
            changed, settled_through = news
            self._voice_of.update(changed)
            self.engine.label_speakers(changed, settled_through)
        # A word whose writing can no longer be rewritten needs its label kept no more.
        if self._writings_settled > self._voices_pruned:
            self._voices_pruned = self._writings_settled
            for position in [p for p in self._voice_of if p < self._writings_settled]:
                del self._voice_of[position]

    def _retract(self, state: _SideState, count: int) -> None:
        drop_held = min(count, len(state.held))
        if drop_held:
            del state.held[len(state.held) - drop_held :]
        count -= drop_held
        if not count:
            return
        gone = [p for p in state.positions[-count:] if p != HIDDEN]
        del state.positions[-count:]
        if not gone:
            return
        if min(gone) != len(self._origin) - len(gone):
            # Cannot happen with a meeting's stabilisers (see the module's docstring); were it to,
            # the other side's words after them must not be taken back.
            log.error("a side took back words committed before another side's: kept them")
            return
        del self._origin[min(gone) :]
        self.engine.retract(len(gone))
        self.words_retracted += len(gone)

    def _release_held(self, force: bool = False) -> None:
        me = next((s for s in self._sides if s.speaker == ME), None)
        if me is None or not me.held or self.guard is None:
            return
        others = [s for s in self._sides if is_others(s.speaker)]
        heard = min((s.heard_until if not s.ended else float("inf") for s in others), default=float("inf"))
        index = self._sides.index(me)
        released = []
        while me.held:
            local, word = me.held[0]
            if not force and not self.guard.judgeable(word, heard):
                break
            me.held.pop(0)
            if self.guard.is_echo(word):
                self._push(index, me, released)
                released = []
                me.positions.append(HIDDEN)
            else:
                released.append(word)
        self._push(index, me, released)

    def _rewrite(self, index: int, state: _SideState, out: StabiliserOutput) -> None:
        rewritten: dict[int, Word] = {}
        for local, word in out.rewritten.items():
            word = replace(word, speaker=state.speaker) if state.speaker else word
            if local < len(state.positions):
                position = state.positions[local]
                if position != HIDDEN:
                    voice = self._voice_of.get(position)
                    rewritten[position] = replace(word, speaker=voice) if voice else word
            else:  # still held: it is shown with its newest writing
                for k, (held_local, _) in enumerate(state.held):
                    if held_local == local:
                        state.held[k] = (local, word)
        if out.writings_settled is not None:
            state.writings_settled = max(state.writings_settled, out.writings_settled)
        settled = self._prefix(lambda s, local: local < s.writings_settled, self._writings_settled)
        if rewritten or settled > self._writings_settled:
            # after the words they rewrite: the engine takes commands in order
            self._writings_settled = max(self._writings_settled, settled)
            self.engine.revise_writings(rewritten, self._writings_settled)

    def _advance_horizon(self) -> None:
        horizon = self._prefix(lambda s, local: local < s.horizon or s.ended, self._horizon)
        if horizon > self._horizon:  # words the recognizers will never take back
            self._horizon = horizon
            self.engine.finalize(horizon)

    def _prefix(self, holds, start: int) -> int:
        """The longest stream prefix, from ``start`` on, whose every word ``holds`` on its side."""
        end = start
        while end < len(self._origin):
            side, local = self._origin[end]
            if not holds(self._sides[side], local):
                break
            end += 1
        return end

    def _partial(self, state: _SideState, unstable: list[Word]) -> None:
        texts = tuple(w.text for w in unstable)
        if texts != state.unstable:
            state.unstable = texts
            if state.speaker:
                unstable = [replace(w, speaker=state.speaker) for w in unstable]
            self.emit([PartialWords(tuple(unstable), state.speaker)])

    def _advance_time(self) -> None:
        # Silence settles marks, so the engine's clock is how far every side still heard has
        # committed its words: not the audio's time, since a pause that is only words not yet
        # committed (Whisper's lag behind the stream) is no pause; and a side ahead must not settle
        # the other side's last words before it heard their end.
        live = [s.committed_through for s in self._sides if not s.ended]
        now = min(live) if live else max(s.heard_until for s in self._sides)
        if now > self._time:
            self._time = now
            self.engine.advance_time(now)
