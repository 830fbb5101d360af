"""One side of a live session: an audio source, its recognizer stream and its stabiliser, read
and fed on a thread of their own.

A one-source session has one side; a meeting has two (the microphone, and the system or one
application's audio), each with its own recognizer stream (``Recognizer.another_stream``: the
sides of a Whisper session share one loaded model) so that neither side's words wait for the
other's audio. A side knows nothing of the punctuation engine: it hands each stabiliser output to
``deliver`` (the session's ``SidesMerger``), and its source's notices, the audio level and the
input's hints (``engine.audio.input_check``) to ``emit``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.audio.input_check import InputChecker
from engine.audio.pausable import PausableSource
from engine.events import AudioLevel, SourceNotice
from engine.prosody import ProsodyTracker
from engine.recognizers.base import Recognizer
from engine.recognizers.stabiliser import StabiliserOutput, WordStabiliser
from engine.recognizers.written_forms import spoken_to_written

__all__ = ["DRAIN_CHUNKS", "READ_TIMEOUT", "SessionSide", "reads_ahead", "rms_level"]

log = logging.getLogger(__name__)

READ_TIMEOUT = 0.1  # seconds: how quickly a side's thread notices stop()
DRAIN_CHUNKS = 200  # audio still queued in a live source when it stops (~20 s at most)


def rms_level(chunk: np.ndarray) -> float:
    if chunk.size == 0:
        return 0.0
    x = chunk.astype(np.float32) * np.float32(1 / 32768)
    return float(np.sqrt(np.mean(x * x)))


def reads_ahead(source) -> bool:
    """Whether ``source`` hands out its audio faster than it was spoken: a file that is not paced
    like live audio (``PausableSource.pace``)."""
    return isinstance(source, PausableSource) and not source.live and not source.pace


# deliver(side, output, stream time): the side's committed words, in order, on its thread.
Deliver = Callable[["SessionSide", StabiliserOutput, float], None]


class SessionSide:
    """``source`` → ``recognizer`` → ``stabiliser`` on a thread named after the side.

    ``speaker``: the speaker id its words carry (``engine.speakers.labels``); "" in a one-source
    session. ``index``: its place among the session's sides. ``runs_ahead``: its source is read
    faster than real time (``reads_ahead``)."""

    def __init__(
        self,
        source,
        recognizer: Recognizer,
        stabiliser: WordStabiliser | None = None,
        speaker: str = "",
        index: int = 0,
        read_timeout: float = READ_TIMEOUT,
        on_audio: Callable[[np.ndarray, int], None] | None = None,
        owns_recognizer: bool = False,
        checks_input: bool = True,
        runs_ahead: bool = False,
    ):
        self.source = source
        self.recognizer = recognizer
        self.stabiliser = stabiliser or WordStabiliser.for_recognizer(recognizer)
        # Each hypothesis and final in written forms before the stabiliser commits any of it.
        self.written = spoken_to_written(recognizer)
        self.speaker = speaker
        self.index = index
        self.read_timeout = read_timeout
        # on_audio(chunk, first sample): every chunk, before the recognizer hears it (the voice
        # labeller keeps the others' recent audio).
        self.on_audio = on_audio
        # A recognizer made for this side alone (a meeting's second stream) is closed with it;
        # a front end's cached one outlives the session.
        self.owns_recognizer = owns_recognizer
        # Its input is read faster than it was spoken (a file, not paced): a meeting's sides then
        # commit at their recognizers' speeds, and their words are merged by their own timelines.
        self.runs_ahead = runs_ahead
        self.samples = 0  # audio fed to the recognizer
        # Too quiet, clipping, noisy: measured on the side's own thread, said as an ``InputHint``
        # when it changes. A meeting's others side is not checked: its hints are about a
        # microphone, and the user cannot move closer to a call.
        self.input_check = InputChecker(speaker) if checks_input else None
        # The side's recent audio: each committed word's prosody is measured on it (``Word.prosody``),
        # evidence the punctuation engine reads beside the words and their times.
        self.prosody = ProsodyTracker()
        self.cpu_seconds = 0.0  # this side's thread's CPU so far
        # The vocabulary's terms put in the committed words (``engine.session.terms``); None: none.
        self.terms = None
        self.error: str | None = None  # why its input ended early, if it did
        # Set by the side's thread as its last act. Waiting on it instead of joining the thread:
        # on Python before 3.13 a Ctrl-C that lands inside Thread.join() marks a running thread as
        # finished, and stop() then closed the engine while the recognizer was still flushing its
        # last words (lost), printing after the summary and holding the audio source until exit.
        self.input_done = threading.Event()
        name = "recognizer" if not speaker else f"recognizer-{speaker}"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._deliver: Deliver | None = None
        self._emit: Callable[[list], None] | None = None
        self._stop: threading.Event | None = None

    @property
    def stream_time(self) -> float:
        return self.samples / SAMPLE_RATE

    @property
    def started(self) -> bool:
        return self._thread.ident is not None

    def start(self, deliver: Deliver, emit: Callable[[list], None], stop: threading.Event) -> None:
        """Run the side's thread: committed words go to ``deliver``, notices and levels to
        ``emit``, until ``stop`` is set or the input ends."""
        self._deliver, self._emit, self._stop = deliver, emit, stop
        self._thread.start()

    def could_not_start(self, message: str, emit: Callable[[list], None]) -> None:
        """The source would not start: the side says so once and is over (its input ended)."""
        self.error = message
        emit([SourceNotice("error", message, self.speaker)])
        self.input_done.set()

    def join(self, timeout: float) -> None:
        if self.started:
            if not self.input_done.wait(timeout):
                raise TimeoutError(f"the {self._thread.name} thread did not stop within {timeout} s")
            self._thread.join(timeout)

    # -- the side's thread -----------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._read_and_recognize()
        finally:
            self.input_done.set()

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
            log.exception("the %s thread failed", self._thread.name)
            self.error = str(exc) or type(exc).__name__
            self._emit([SourceNotice("error", self.error)])
            try:
                self._finish_input()
            except Exception:
                log.exception("flushing after a failure failed too")

    def _feed(self, chunk: np.ndarray) -> None:
        if self.on_audio is not None:
            self.on_audio(chunk, self.samples)
        self.samples += len(chunk)
        self.prosody.hear(chunk)
        update = self.written(self.recognizer.accept(chunk))
        now = self.stream_time
        self._deliver(self, self._with_terms(self.stabiliser.update(update, now), now), now)
        events: list = [AudioLevel(rms_level(chunk), self.speaker)]
        if self.input_check is not None:
            hint = self.input_check.feed(chunk)
            if hint is not None:
                events.append(hint)
        self._emit(events)
        self.cpu_seconds = time.thread_time()

    def _finish_input(self) -> None:
        now = self.stream_time
        final = self.written(self.recognizer.flush())
        self._deliver(self, self._with_terms(self.stabiliser.update(final, now), now), now)
        # recognizers without a final at the end
        self._deliver(self, self._with_terms(self.stabiliser.flush(), now), now)

    def _with_terms(self, out: StabiliserOutput, now: float) -> StabiliserOutput:
        out = self._with_prosody(out)  # measured on the words heard, before a term stands in
        return out if self.terms is None else self.terms.update(out, now)

    def _with_prosody(self, out: StabiliserOutput) -> StabiliserOutput:
        if out.commit:
            out.commit = self.prosody.annotate(out.commit)
        if out.rewritten:  # a newer writing of a committed word stands in for it: measured alike
            out.rewritten = dict(zip(out.rewritten, self.prosody.annotate(list(out.rewritten.values()))))
        return out

    def _forward_source_events(self) -> None:
        events = []
        while True:
            try:
                event = self.source.events.get_nowait()
            except Exception:  # queue.Empty, or a source without an events queue
                break
            events.append(SourceNotice(event.kind, event.message, self.speaker))
        if events:
            self._emit(events)
