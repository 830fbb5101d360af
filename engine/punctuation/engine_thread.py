"""The punctuation engine as a background thread.

It owns the decoder (and so the model), consumes commands from a bounded queue
and hands every batch of events to its subscribers, on its own thread. It knows
nothing of Qt: the app wraps subscribers into signals.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence

from engine.events import EngineFailed, Event, Finalized, SpeakersLabelled
from engine.fanout import FanOut, Subscriber
from engine.punctuation.decoder import Decoder
from engine.words import Word

log = logging.getLogger(__name__)


_STOP = object()


class PunctuationEngine:
    def __init__(self, decoder: Decoder, queue_size: int = 1024):
        self.decoder = decoder
        self._commands: queue.Queue = queue.Queue(maxsize=queue_size)
        self._fanout = FanOut("event subscriber")
        self._thread = threading.Thread(target=self._run, name="punctuation-engine", daemon=True)
        self.failed: str | None = None
        # CPU seconds the engine thread has used, kept current by the thread itself (measuring
        # tools report the punctuation engine's own share apart from the recognizer's).
        self.cpu_seconds = 0.0

    # -- lifecycle ----------------------------------------------------------------
    def start(self) -> PunctuationEngine:
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        """Process everything already queued, settle every mark, then end the thread."""
        if self._thread.is_alive():
            self._commands.put(("flush",))
            self._commands.put(_STOP)
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise TimeoutError(f"punctuation engine did not stop within {timeout} s")

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def subscribe(self, callback: Subscriber) -> None:
        self._fanout.subscribe(callback)

    def unsubscribe(self, callback: Subscriber) -> None:
        self._fanout.unsubscribe(callback)

    # -- commands (any thread; they block only while the bounded queue is full) ---------
    def push(self, word: Word, timeout: float | None = None) -> None:
        self._put(("words", (word,)), timeout)

    def push_many(self, words: Sequence[Word], timeout: float | None = None) -> None:
        """Words the recognizer committed together: one command, so they always share an
        inference, up to ``MAX_WORDS_PER_STEP`` a step (pushed one by one, the engine may wake for
        the first before the rest arrive)."""
        if words:
            self._put(("words", tuple(words)), timeout)

    def retract(self, count: int) -> None:
        self._put(("retract", count), None)

    def advance_time(self, now: float) -> None:
        self._put(("time", now), None)

    def flush(self) -> None:
        self._put(("flush",), None)

    def finalize(self, words: int) -> None:
        """The recognizer will never take back the stream's first ``words`` words."""
        self._put(("final", words), None)

    def set_threshold(self, threshold: float, l_max: int | None = None) -> None:
        self._put(("threshold", threshold, l_max), None)

    def revise_writings(self, rewritten: dict[int, Word], settled: int) -> None:
        """Newer writings of words already pushed (by stream position), and how many of the
        stream's words' writings are settled (``RecognizerUpdate.rewritten``)."""
        self._put(("writings", dict(rewritten), settled), None)

    def label_speakers(self, labels: Sequence[tuple[int, str]], settled_through: int) -> None:
        """Who spoke words already pushed (stream position, speaker id), published as
        ``SpeakersLabelled`` in order with the decoder's events: after those words' ``Appended``."""
        self._put(("speakers", tuple(labels), settled_through), None)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every queued command has been processed (tests, shutdown)."""
        done = threading.Event()
        self._put(("barrier", done), timeout)
        return done.wait(timeout)

    def _put(self, command, timeout) -> None:
        if self.failed:
            raise RuntimeError(f"punctuation engine has stopped: {self.failed}")
        self._commands.put(command, timeout=timeout)

    # -- the thread ---------------------------------------------------------------
    # Most words a single inference takes on when they queued up together.
    MAX_WORDS_PER_STEP = 16

    def _run(self) -> None:
        decoder = self.decoder
        held = None  # a command taken off the queue while gathering words, run next
        while True:
            command, held = (held, None) if held is not None else (self._commands.get(), None)
            if command is _STOP:
                return
            kind = command[0]
            try:
                if kind == "words":
                    # Words the recognizer committed together (an utterance's end, a burst after
                    # a stall) share one inference on the window ending at the newest: it scores
                    # all of them, and the ones before it would only be shown a few ms earlier.
                    words = list(command[1])
                    while len(words) < self.MAX_WORDS_PER_STEP:
                        try:
                            following = self._commands.get_nowait()
                        except queue.Empty:
                            break
                        if following is not _STOP and following[0] == "words":
                            words.extend(following[1])
                        else:
                            held = following
                            break
                    events: list = []
                    for k in range(0, len(words), self.MAX_WORDS_PER_STEP):
                        events += decoder.push_many(words[k : k + self.MAX_WORDS_PER_STEP])
                elif kind == "retract":
                    events = decoder.retract(command[1])
                elif kind == "time":
                    events = decoder.advance_time(command[1])
                elif kind == "flush":
                    events = decoder.flush()
                elif kind == "final":
                    events = [Finalized(min(command[1], decoder.word_count))]
                elif kind == "speakers":
                    events = [SpeakersLabelled(command[1], command[2])]
                elif kind == "writings":
                    events = decoder.revise_writings(command[1], command[2])
                elif kind == "threshold":
                    decoder.set_threshold(command[1], command[2])
                    events = []
                else:  # barrier
                    command[1].set()
                    events = []
            except Exception as exc:  # the model failed: tell everyone, then stop taking work
                log.exception("punctuation engine failed")
                self.failed = f"{type(exc).__name__}: {exc}"
                self._publish([EngineFailed(self.failed)])
                if held is not None and held is not _STOP and held[0] == "barrier":
                    held[1].set()
                self._drain_barriers()
                return
            if events:
                self._publish(events)
            self.cpu_seconds = time.thread_time()

    def _publish(self, events: list[Event]) -> None:
        self._fanout.publish(events)

    def _drain_barriers(self) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            if command is not _STOP and command[0] == "barrier":
                command[1].set()
