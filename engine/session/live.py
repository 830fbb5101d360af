"""A live captioning session: source → recognizer thread → stabiliser → engine thread → sinks.

Two threads do the work. The recognizer thread reads audio chunks, feeds the
recognizer, turns its partials and finals into committed words (the
stabiliser) and hands those to the punctuation engine, whose own thread
decides marks and publishes the decoder's events. Subscribers get both kinds
of event lists: the engine's (``Appended``, ``Provisional``, ``Settled``,
``Withdrawn``, ``Retracted``, ``Finalized``, ``EngineFailed``) on the engine thread, and the
session's own (``PartialWords``, ``AudioLevel``, ``SourceNotice``) on the
recognizer thread. A subscriber that draws must therefore take its own lock
(or, in a GUI, hop to its UI thread).

Nothing here grows with the length of a session except the transcript itself
(``TranscriptBuilder``, a few hundred bytes a word): the stabiliser forgets an
utterance at its final, the decoder trims settled words, the journal writer
keeps only unsettled ones, and the queues are bounded.

The batch path (a whole file, or re-punctuating a finished transcript) is ``engine.session.batch``.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.events import AudioLevel, PartialWords, SourceNotice
from engine.fanout import FanOut, Subscriber
from engine.punctuation.decoder import Decoder
from engine.punctuation.engine_thread import PunctuationEngine
from engine.recognizers.base import Recognizer
from engine.recognizers.stabiliser import StabiliserOutput, WordStabiliser
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.journal import JournalWriter
from engine.transcript.transcript import Transcript

log = logging.getLogger(__name__)

READ_TIMEOUT = 0.1  # seconds: how quickly the recognizer thread notices stop()
DRAIN_CHUNKS = 200  # audio still queued in a live source when it stops (~20 s at most)


def rms_level(chunk: np.ndarray) -> float:
    if chunk.size == 0:
        return 0.0
    x = chunk.astype(np.float32) * np.float32(1 / 32768)
    return float(np.sqrt(np.mean(x * x)))


# ---- the live session ----------------------------------------------------------------------
class LiveSession:
    def __init__(
        self,
        source,
        recognizer: Recognizer,
        decoder: Decoder,
        journal: JournalWriter | None = None,
        stabiliser: WordStabiliser | None = None,
        read_timeout: float = READ_TIMEOUT,
    ):
        self.source = source
        self.recognizer = recognizer
        self.stabiliser = stabiliser or WordStabiliser.for_recognizer(recognizer)
        self.engine = PunctuationEngine(decoder)
        self.journal = journal
        self.read_timeout = read_timeout
        self.builder = TranscriptBuilder()  # the whole transcript, kept on the engine thread
        self.error: str | None = None  # why the input ended early, if it did
        self.words_pushed = 0  # words committed to the engine (replacements included)
        self.words_retracted = 0
        self.samples = 0  # audio fed to the recognizer
        self._fanout = FanOut("session subscriber")
        self._stop = threading.Event()
        # Set by the recognizer thread as its last act. Waiting on it instead of joining the thread:
        # on Python before 3.13 a Ctrl-C that lands inside Thread.join() marks a running thread as
        # finished, and stop() then closed the engine while the recognizer was still flushing its
        # last words (lost), printing after the summary and holding the audio source until exit.
        self._input_done = threading.Event()
        self._stopped = False
        self._last_unstable: tuple[str, ...] = ()
        self._horizon = 0
        self._writings_settled = 0  # stream words whose writing the recognizer will not revise
        self._thread = threading.Thread(target=self._run, name="recognizer", daemon=True)
        self.recognizer_cpu_seconds = 0.0
        # The engine's subscribers, in order: also told of the last sentence's end at stop().
        self._engine_subscribers: list[Subscriber] = [self.builder.apply]
        if journal is not None:
            self._engine_subscribers.append(journal.apply)
            if journal.on_error is None:  # a full disk: the user must hear that the journal stopped
                journal.on_error = lambda message: self._emit([SourceNotice("error", message)])
        self._engine_subscribers.append(self._fanout.publish)  # engine events, on the engine thread
        for subscriber in self._engine_subscribers:
            self.engine.subscribe(subscriber)

    # -- lifecycle -------------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> None:
        self._fanout.subscribe(callback)

    def unsubscribe(self, callback: Subscriber) -> None:
        self._fanout.unsubscribe(callback)

    def start(self) -> LiveSession:
        self.recognizer.reset()  # word times count from this session's first sample
        self.engine.start()
        try:
            self.source.start()
        except BaseException:
            self.engine.stop()
            if self.journal is not None:
                self.journal.close(clean=True)
            raise
        self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the input has ended (a file finished, or an error); True if it has.
        Safe to interrupt with Ctrl-C (see ``_input_done``)."""
        return self._input_done.wait(timeout)

    @property
    def input_ended(self) -> bool:
        return self._input_done.is_set()

    def stop(self, timeout: float = 30.0) -> Transcript:
        """Stop the source, drain what it still holds, flush the recognizer (its last decode), the
        stabiliser and the engine (every mark settles, the last word ends a sentence), close the
        journal. Returns the transcript. Idempotent; safe to call right after a Ctrl-C."""
        if self._stopped:
            return self.transcript
        self._stopped = True
        self._stop.set()
        try:
            self.source.stop()
        except Exception:  # a broken device must not keep us from saving the words we have
            log.exception("stopping the audio source failed")
        if self._thread.ident is not None:
            # The drain and the recognizer's last decode happen there; only then may the engine stop.
            if not self._input_done.wait(timeout):
                raise TimeoutError(f"the recognizer thread did not stop within {timeout} s")
            self._thread.join(timeout)
        settled = False
        try:
            self.engine.stop(timeout)
            settled = self.engine.failed is None
            if settled:
                self._end_last_sentence()
        finally:
            if self.journal is not None:
                # Clean only if every word got its mark: otherwise recovery should offer it.
                self.journal.close(clean=settled)
        return self.transcript

    @property
    def transcript(self) -> Transcript:
        """The transcript so far (call after ``stop()`` for a settled one)."""
        return self.builder.transcript

    @property
    def stream_time(self) -> float:
        return self.samples / SAMPLE_RATE

    @property
    def words_recognized(self) -> int:
        """Words the stabiliser committed and did not take back: what the transcript must hold."""
        return self.words_pushed - self.words_retracted

    def _end_last_sentence(self) -> None:
        """The session is over, so its last word ends a sentence: the decoder's ``finish`` (the
        one re-settling it allows, since nothing can follow) goes to every engine subscriber, the
        journal included, so the settled marks everyone keeps are the final ones. Runs after the
        engine thread ended: the decoder is this thread's now."""
        events = self.engine.decoder.finish()
        if not events:
            return
        for subscriber in self._engine_subscribers:
            try:
                subscriber(events)
            except Exception:  # one broken subscriber must not keep the others from the last mark
                log.exception("a session subscriber failed on the last sentence's end")

    # -- the recognizer thread -----------------------------------------------------------
    def _run(self) -> None:
        try:
            self._read_and_recognize()
        finally:
            self._input_done.set()

    def _read_and_recognize(self) -> None:
        try:
            while not self._stop.is_set():
                chunk = self.source.read(self.read_timeout)
                self._forward_source_events()
                if chunk is None:
                    if self.source.finished:
                        break
                    continue
                self._feed(chunk)
            for _ in range(DRAIN_CHUNKS):  # what a live source captured before it stopped
                chunk = self.source.read(0)
                if chunk is None:
                    break
                self._feed(chunk)
            self._forward_source_events()
            self._finish_input()
        except Exception as exc:  # a bad file, a recognizer failure: say so, keep what we have
            log.exception("the recognizer thread failed")
            self.error = str(exc) or type(exc).__name__
            self._emit([SourceNotice("error", self.error)])
            try:
                self._finish_input()
            except Exception:
                log.exception("flushing after a failure failed too")

    def _feed(self, chunk: np.ndarray) -> None:
        self.samples += len(chunk)
        update = self.recognizer.accept(chunk)
        now = self.stream_time
        self._commit(self.stabiliser.update(update, now))
        # Silence settles marks: without this, the last words of a sentence would stay
        # provisional until the speaker said something else.
        self.engine.advance_time(now)
        self._emit([AudioLevel(rms_level(chunk))])
        self.recognizer_cpu_seconds = time.thread_time()  # the recognizer thread's own CPU so far

    def _finish_input(self) -> None:
        self._commit(self.stabiliser.update(self.recognizer.flush(), self.stream_time))
        self._commit(self.stabiliser.flush())  # recognizers without a final at end of input
        self.engine.flush()

    def _commit(self, out: StabiliserOutput) -> None:
        if out.retract:
            self.engine.retract(out.retract)
            self.words_retracted += out.retract
        self.engine.push_many(out.commit)  # committed together: one inference
        self.words_pushed += len(out.commit)
        if out.rewritten or (out.writings_settled or 0) > self._writings_settled:
            # after the words they rewrite: the engine takes commands in order
            self._writings_settled = max(self._writings_settled, out.writings_settled or 0)
            self.engine.revise_writings(out.rewritten, self._writings_settled)
        if out.horizon > self._horizon:  # words the recognizer will never take back
            self._horizon = out.horizon
            self.engine.finalize(out.horizon)
        unstable = tuple(w.text for w in out.unstable)
        if unstable != self._last_unstable:
            self._last_unstable = unstable
            self._emit([PartialWords(tuple(out.unstable))])

    def _forward_source_events(self) -> None:
        events = []
        while True:
            try:
                event = self.source.events.get_nowait()
            except Exception:  # queue.Empty, or a source without an events queue
                break
            events.append(SourceNotice(event.kind, event.message))
        if events:
            self._emit(events)

    def _emit(self, events: list) -> None:  # the session's own events, on the recognizer thread
        self._fanout.publish(events)
