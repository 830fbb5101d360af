"""The captions a shared page shows, as numbered messages: a session subscriber.

The session calls it from its two threads; it folds their events into the captions (the caption
fold every front end shares, ``engine.transcript.caption_fold``) and turns each batch into small
JSON-ready messages, which wait in a bounded queue for the server's loop. The session never waits
on the server: when the queue is full the feed only notes a gap, and the server then sends every
viewer the whole recent captions again (a snapshot), so nothing shown is wrong for long and the
session loses nothing.

The messages (the ``/events`` stream, documented in docs/USER_GUIDE.md):

- ``{"type": "word", "position": 12, "text": "Hello,", "state": "provisional", "speaker": "",
  "label": ""}``: a word appended, or its provisional text replaced; ``state`` "settled" once its
  mark and capital are final, after which it never changes (unless a later ``retracted`` removes
  it); ``label`` the speaker's display name ("" in a one-source session);
- ``{"type": "retracted", "from": 10}``: every word from that position on was taken back;
- ``{"type": "unstable", "words": [{"text": "uh", "speaker": "", "label": ""}]}``: the words the
  recognizer has not committed yet, replacing the previous ones;
- ``{"type": "snapshot", "from": 0, "words": [...], "unstable": [...]}``: the recent captions
  whole (a late viewer's first message, or after a gap): words as in ``word`` messages, without
  their ``type``, at positions ``from``, ``from + 1``...;
- ``{"type": "end", "reason": "..."}``: sharing stopped for this viewer (the server's own).
"""

from __future__ import annotations

import copy
import queue
import threading
from collections.abc import Callable

from engine.events import (
    Appended,
    Provisional,
    Retracted,
    Settled,
    SpeakersLabelled,
    Withdrawn,
)
from engine.speakers.labels import SpeakerNames
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.caption_fold import PROVISIONAL, SETTLED, CaptionFold

__all__ = ["FEED_CAPACITY", "SNAPSHOT_WORDS", "ShareFeed"]

FEED_CAPACITY = 1024  # messages waiting for the server's loop before the feed notes a gap
SNAPSHOT_WORDS = 300  # the recent words a late viewer gets first

_POSITIONED = (Appended, Provisional, Settled, Withdrawn)
_WORD_EVENTS = (*_POSITIONED, Retracted, SpeakersLabelled)  # what changes the session's words


class ShareFeed:
    """Subscribe it to a session (``session.subscribe(feed)``), or hand it a front end's caption
    changes (``caption_change``); the server reads ``take``."""

    def __init__(
        self,
        capacity: int = FEED_CAPACITY,
        names: SpeakerNames | None = None,
        session_builder: TranscriptBuilder | None = None,
    ) -> None:
        self.names = names or SpeakerNames()
        self._fold = CaptionFold()
        # The session's own transcript (``LiveSession.builder``), for a feed subscribed while words
        # are already shown: it is copied at the first batch that changes words, on the engine
        # thread, after the session applied that batch to it; that batch is then already in it.
        self._session_builder = session_builder
        self._lock = threading.Lock()
        self._queue: queue.Queue = queue.Queue(capacity)
        self._seq = 0  # the number of the latest message made
        self._gap = False  # a message did not fit in the queue: the viewers need a snapshot
        self.wake: Callable[[], None] | None = None  # set by the server: a message is waiting

    def __call__(self, events: list) -> None:
        """A batch of the session's events (from either of its threads); never blocks."""
        events = list(events)
        self._publish(events, lambda: self._fold_in(events).unstable)

    def caption_change(
        self, events: list, unstable: tuple | None = None, restart_from: TranscriptBuilder | None = None
    ) -> None:
        """A change of a front end's own caption fold, which decided it once for every view:
        ``events`` (already in that fold's builder), its unstable words (None: unchanged), and
        ``restart_from``, its builder, where its captions started again (a new session, a cleared
        text, a late subscriber): every viewer is then sent the captions whole."""
        events = list(events)

        def fold_in() -> bool:
            if restart_from is not None:
                self._session_builder = None
                self._fold.restart(copy.deepcopy(restart_from))
                self._seq += 1  # the snapshot's own number: every viewer is past the one before
                self._gap = True
            self._fold.builder.apply(events)
            changed = unstable is not None and tuple(unstable) != self._fold.unstable
            if changed:
                self._fold.unstable = tuple(unstable)
            return changed

        self._publish(events, fold_in, restarted=restart_from is not None)

    def _publish(self, events: list, fold_in: Callable[[], bool], restarted: bool = False) -> None:
        """Fold ``events`` in (``fold_in`` says whether the unstable words changed) and queue
        their messages for the server."""
        with self._lock:
            unstable_changed = fold_in()
            messages = self._messages(events, unstable_changed)
            for message in messages:
                self._seq += 1
                try:
                    self._queue.put_nowait((self._seq, message))
                except queue.Full:
                    self._gap = True
        wake = self.wake
        if (messages or restarted) and wake is not None:
            try:
                wake()
            except RuntimeError:  # the server's loop closed meanwhile: nobody is waiting
                pass

    def take(self) -> tuple[list[tuple[int, dict]], tuple[int, dict] | None]:
        """The messages waiting, in order, and a snapshot (with the number of the last message
        it covers) where a gap made one necessary; messages it covers are left out."""
        waiting = []
        while True:
            try:
                waiting.append(self._queue.get_nowait())
            except queue.Empty:
                break
        with self._lock:
            if not self._gap:
                return waiting, None
            self._gap = False
            seq, snapshot = self._seq, self._snapshot()
        return [(n, m) for n, m in waiting if n > seq], (seq, snapshot)

    def snapshot(self) -> tuple[int, dict]:
        """The recent captions whole, and the number of the last message they cover."""
        with self._lock:
            return self._seq, self._snapshot()

    # ---- under the lock ----------------------------------------------------------------------
    def _fold_in(self, events: list):
        if self._session_builder is not None and any(isinstance(e, _WORD_EVENTS) for e in events):
            builder, self._session_builder = copy.deepcopy(self._session_builder), None
            self._fold.restart(builder)
            return self._fold.caught_up(events)  # the engine's batch: never the recognizer's partials
        return self._fold.apply(events)

    def _snapshot(self) -> dict:
        first = max(0, len(self._fold.words) - SNAPSHOT_WORDS)
        words = [self._word(p) for p in range(first, len(self._fold.words))]
        return {"type": "snapshot", "from": first, "words": words, "unstable": self._unstable()}

    def _messages(self, events: list, unstable_changed: bool) -> list[dict]:
        touched: dict[int, None] = {}  # positions in the order first touched
        retracted = None
        for event in events:
            if isinstance(event, _POSITIONED):
                touched[event.position] = None
            elif type(event) is SpeakersLabelled:
                touched.update((p, None) for p, _ in event.labels)
            elif type(event) is Retracted:
                retracted = event.from_position if retracted is None else min(retracted, event.from_position)
        messages = [] if retracted is None else [{"type": "retracted", "from": retracted}]
        count = len(self._fold.words)
        messages += [{"type": "word", "position": p, **self._word(p)} for p in touched if p < count]
        if unstable_changed:
            messages.append({"type": "unstable", "words": self._unstable()})
        return messages

    def _word(self, position: int) -> dict:
        word = self._fold.words[position]
        speaker = word.heard.speaker
        state = SETTLED if self._fold.settled[position] else PROVISIONAL
        return {"text": word.display, "state": state, "speaker": speaker, "label": self.names.name(speaker)}

    def _unstable(self) -> list[dict]:
        return [
            {"text": w.text, "speaker": w.speaker, "label": self.names.name(w.speaker)}
            for w in self._fold.unstable
        ]
