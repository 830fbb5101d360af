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
is held until the echo guard can judge it, then shown or hidden; a hidden word is published
(``WordsHidden``) and handed to ``on_hidden`` (the journal keeps it, marked). The others' words
are labelled with their voice as they are committed (``OthersVoices``), and the labels corrected
(``SpeakersLabelled``) until their turn settles.

Live, the sides' words go out in the order they were committed: both sides hear the same moment
at once, and nothing waits for the slower recognizer. Sides that read their input faster than it
was spoken (two files, not paced) commit at their own speeds, so commit order says nothing about
who spoke first: ``by_time`` orders them by their own timelines instead. Each side's words form
runs (no pause of ``RUN_GAP`` seconds, at most ``MAX_RUN`` long), and a run goes out whole, by
its start, once no other side can still commit anything that started before it: another side's
words in the middle of a run would end its sentence (a change of side does), a full stop the
speaker never made.

The engine's clock (silence settles marks) never runs past a word a side committed that is not
in the stream yet (held for the guard, or waiting for its turn): the pause before it would settle
the sentence before it, and the word would follow on its own, "March." then "15th.".
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

from engine.events import PartialWords, WordsHidden
from engine.punctuation.engine_thread import PunctuationEngine
from engine.recognizers.stabiliser import StabiliserOutput
from engine.session.merge_state import HIDDEN, Entry, SideState
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.labels import ME, OTHERS, is_others
from engine.speakers.voices import OthersVoices
from engine.words import Word

__all__ = ["SidesMerger"]

log = logging.getLogger(__name__)


class SidesMerger:
    """Turns ``deliver(side, output, now)`` calls from the sides' threads into engine commands.

    ``emit`` publishes the session's own events (``PartialWords``, ``WordsHidden``). ``guard``:
    the echo guard for a meeting with a Me side, or None."""

    def __init__(
        self,
        engine: PunctuationEngine,
        speakers: list[str],
        emit,
        guard: EchoGuard | None = None,
        voices: OthersVoices | None = None,
        by_time: bool = False,
        on_hidden=None,
    ):
        """``voices``: tells the others' voices apart (``engine.speakers.voices``); None: every
        Others word is "others". ``by_time``: order the sides' words by their own timelines
        (sides read faster than real time), not by when they were committed. ``on_hidden(words)``:
        given the words the guard hid, as it hides them (the journal's ``record_hidden``)."""
        self.engine = engine
        self.voices = voices
        self._voice_of: dict[int, str] = {}  # stream position -> the voice label shown now
        self._voices_pruned = 0
        self.emit = emit
        self.guard = guard if any(s == ME for s in speakers) and len(speakers) > 1 else None
        self.by_time = by_time and len(speakers) > 1
        self.on_hidden = on_hidden
        self._sides = [SideState(speaker) for speaker in speakers]
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
            first = len(state.positions) + len(state.not_in_stream())
            entries = [Entry(first + k, w, state.run_of(w)) for k, w in enumerate(words)]
            if self.guard is not None and is_others(state.speaker):
                self.guard.heard_others([*words, *out.unstable])
            if self.guard is not None and state.speaker == ME:
                state.held.extend(entries)
            else:
                self._judged(side.index, state, entries)
            self._release_held()
            self._release_by_time()
            if self.voices is not None and state.speaker == OTHERS:
                self._correct_voices(self._voices_clock(state))
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
            self._release_by_time()
            self._advance_horizon()
            self._advance_time()

    def release_all(self) -> None:
        """Stop: every held Me word is judged with what the others' side heard, every word still
        waiting goes into the stream, and every voice label settles."""
        with self._lock:
            for state in self._sides:
                state.ended = True
            self._release_held(force=True)
            self._release_by_time()
            self._advance_horizon()
            if self.voices is not None:
                self._correct_voices(float("inf"))

    # -- on the caller's thread, under the lock ----------------------------------------------
    def _push(self, index: int, state: SideState, words: list[Word]) -> list[int]:
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

    def _place(self, index: int, state: SideState, entries: list[Entry]) -> None:
        """Judged words of one side into the stream, in order: a hidden one takes no position."""
        shown: list[Word] = []
        for entry in [*entries, None]:
            if entry is not None and not entry.hidden:
                shown.append(entry.word)
                continue
            if self.voices is not None and state.speaker == OTHERS:
                self._push_voiced(index, state, shown, self._voices_clock(state))
            else:
                self._push(index, state, shown)
            shown = []
            if entry is not None:
                state.positions.append(HIDDEN)

    def _judged(self, index: int, state: SideState, entries: list[Entry]) -> None:
        """Words the guard has judged (or that need no judging): into the stream now, or, ordered
        by their timelines, once it is their turn."""
        if self.by_time:
            state.waiting.extend(entries)
        else:
            self._place(index, state, entries)

    def _release_by_time(self) -> None:
        """``by_time``: the runs whose turn has come, earliest first; a side's run goes out once no
        other side can still put in a word of a run that started before it."""
        if not self.by_time:
            return
        while True:
            ready = [(s.waiting[0].run_start, k) for k, s in enumerate(self._sides) if s.waiting]
            if not ready:
                return
            run_start, index = min(ready)
            if any(s.earliest_run() < run_start for k, s in enumerate(self._sides) if k != index):
                return
            state = self._sides[index]
            taken = 0
            while taken < len(state.waiting) and state.waiting[taken].run_start == run_start:
                taken += 1
            entries, state.waiting = state.waiting[:taken], state.waiting[taken:]
            self._place(index, state, entries)

    def _voices_clock(self, state: SideState) -> float:
        """How far the others' words are all with the labeller: committed, and in the stream."""
        starts = [e.word.start for e in state.not_in_stream()[:1] if e.word.start is not None]
        return min([state.committed_through, *starts])

    def _push_voiced(self, index: int, state: SideState, words: list[Word], now: float) -> None:
        """The others' words, each labelled with its voice as heard so far. ``now``: how far the
        side's words are all committed and placed."""
        if words:
            labels = self.voices.label(words, now)
            words = [replace(w, speaker=label) for w, label in zip(words, labels)]
            positions = self._push(index, state, words)
            self.voices.placed(positions)
            self._voice_of.update(zip(positions, labels))

    def _correct_voices(self, now: float) -> None:
        """The corrections of earlier words' labels, and how far the labels have settled (after
        the words: the engine publishes in order)."""
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

    def _retract(self, state: SideState, count: int) -> None:
        for pending in (state.held, state.waiting):  # the newest words first
            drop = min(count, len(pending))
            if drop:
                del pending[len(pending) - drop :]
            count -= drop
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
        # Live, the others' recognizer hears a moment as the microphone's does, and its hypothesis
        # covers a word soon after: judged once they have heard past it. Sides read as fast as
        # they decode wait for the others' words to be committed past it, which is when a file's
        # decodes have covered it whatever the two threads' speeds.
        past = [s.committed_through if self.by_time else s.heard_until for s in others if not s.ended]
        heard = min(past, default=float("inf"))
        judged: list[Entry] = []
        while me.held:
            if not force and not self.guard.judgeable(me.held[0].word, heard):
                break
            entry = me.held.pop(0)
            entry.hidden = self.guard.is_echo(entry.word)
            judged.append(entry)
        self._judged(self._sides.index(me), me, judged)
        hidden = tuple(e.word for e in judged if e.hidden)
        if hidden:
            # Said, and kept: hiding a word the user said is the guard's one costly mistake.
            if self.on_hidden is not None:
                try:
                    self.on_hidden(hidden)
                except Exception:  # the journal's trouble is its own to report; captions go on
                    log.exception("keeping the hidden words failed")
            self.emit([WordsHidden(hidden, self.guard.hidden)])

    def _rewrite(self, index: int, state: SideState, out: StabiliserOutput) -> None:
        rewritten: dict[int, Word] = {}
        for local, word in out.rewritten.items():
            word = replace(word, speaker=state.speaker) if state.speaker else word
            if local < len(state.positions):
                position = state.positions[local]
                if position != HIDDEN:
                    voice = self._voice_of.get(position)
                    rewritten[position] = replace(word, speaker=voice) if voice else word
            else:  # not in the stream yet: it goes in with its newest writing
                for entry in state.not_in_stream():
                    if entry.local == local:
                        entry.word = word
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

    def _partial(self, state: SideState, unstable: list[Word]) -> None:
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
        # the other side's last words before it heard their end. Nor past a committed word not in
        # the stream yet (``SideState.clock``).
        clocks = [c for c in (s.clock() for s in self._sides) if c != float("inf")]
        now = min(clocks) if clocks else max(s.heard_until for s in self._sides)
        if now > self._time:
            self._time = now
            self.engine.advance_time(now)
