"""The live session as a QObject: the UI thread asks, worker threads do, signals answer.

Threads. The engine already runs a session on its own threads (recognizer, punctuation
engine). What could still block the UI is building and ending one: loading the punctuation
model and a Vosk model (seconds for a large one), opening a device, and ``stop()``, which
drains the audio and settles every mark. Those run as ``Job``s on a serial ``JobRunner``,
which also serialises them (a stop can never overtake the start it ends). Results come back
through signals, which Qt delivers queued on the UI thread.

Redraws. Subscribers are called on the engine's threads, up to hundreds of times a second
(every word, every audio chunk). They only append to a locked buffer and, when it was empty,
wake the UI thread; a single-shot timer then flushes the buffer no sooner than 33 ms after
the previous flush, so the captions redraw at most 30 times a second however busy the
engine is, and not at all while nothing happens.

The UI side keeps its own ``TranscriptBuilder``, fed from the flushed events on the UI thread,
so the window can copy or export the whole transcript at any moment without touching the
engine thread's copy.

Building a session is the engine's ``build_live_session`` (the CLI's ``listen`` uses it too),
on the models and recognizers this bridge keeps loaded (``SessionResources``).

Pause: the source stops delivering audio (``engine.audio.pausable.PausableSource``); the
session, its journal and the transcript stay. See that module for how the sentence in
progress settles.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Signal

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.workers.jobs import JobRunner, call_on_ui_thread
from engine import (
    AudioLevel,
    EngineFailed,
    LanguageDetected,
    PartialWords,
    RecognizerInfo,
    SessionResources,
    SessionSpec,
    SourceNotice,
    Transcript,
    TranscriptBuilder,
    WordsHidden,
    build_live_session,
    isolated_recognizer,
)

log = logging.getLogger(__name__)

FRAME_MS = 33  # at most 30 caption redraws a second
INPUT_POLL_MS = 200  # how soon the end of a file (or a dead input) is noticed

IDLE, STARTING, RUNNING, PAUSED, STOPPING = "idle", "starting", "running", "paused", "stopping"


class SessionBridge(QObject):
    state_changed = Signal(str)
    # engine events (list), partial words (tuple, or None: unchanged); in a meeting, each side's
    # latest partial words, each word carrying its speaker
    captions_changed = Signal(object, object)
    level_changed = Signal(float)  # loudest chunk's RMS since the last flush, 0..1
    notice = Signal(str, str)  # kind, message (source events, journal problems)
    error = Signal(str)  # a session could not start, or failed
    ready = Signal(object)  # RecognizerInfo, once the models are loaded, and again as a session starts
    finished = Signal(object)  # the session's Transcript, every mark settled
    # LanguageDetected: the language heard, how sure (0..1), and the meeting's side (None: one source)
    language_detected = Signal(str, float, object)
    # WordsHidden: the words the echo guard hid so far, and whether they are the session's first
    words_hidden = Signal(int, bool)

    def __init__(self, parent=None, recognizer_factory=isolated_recognizer):
        super().__init__(parent)
        # The loaded models and recognizers, kept across sessions (the engine's session factory uses them).
        self.resources = SessionResources(recognizer_factory)
        self.state = IDLE
        self.session = None
        self.source = None
        self.journal = None
        self.builder = TranscriptBuilder()
        self.recognizer_info: RecognizerInfo | None = None
        self.flushes = 0  # redraw batches emitted (tests check the rate limit)
        self._jobs = JobRunner(self, serial=True)  # one at a time, in order
        self._lock = threading.Lock()
        self._events: list = []
        self._partial = None  # each side's partial words (speaker -> words) when one changed since the flush
        self._partials: dict[str, tuple] = {}  # each side's latest partial words
        self._level = -1.0
        self._notices: list[SourceNotice] = []
        self._hidden = 0  # the words the echo guard hid this session, as last told
        self._hidden_said = 0  # and as last passed on
        self._wake_pending = False
        self._stopping = None  # the session a queued stop ends
        self._stop_requested = False  # stop() came while the session was still starting
        self._latency = (None, None)  # the latest latency request, for the worker
        self._since_flush = QElapsedTimer()
        self._flush_timer = QTimer(self, singleShot=True, timeout=self._flush)
        self._input_poll = QTimer(self, interval=INPUT_POLL_MS, timeout=self._check_input)

    # -- the UI's requests -------------------------------------------------------------------
    def preload(self, spec: SessionSpec) -> None:
        """Load the punctuation model and the recognizer now, so that Start is instant."""
        self._jobs.run(lambda report, cancelled: self._preload_work(spec))

    def start(self, spec: SessionSpec) -> bool:
        if self.state != IDLE:
            return False
        self.builder = TranscriptBuilder()
        with self._lock:
            self._events, self._partial, self._notices, self._level = [], None, [], -1.0
            self._partials = {}
            self._hidden = self._hidden_said = 0
        self._set_state(STARTING)
        self._jobs.run(lambda report, cancelled: self._start_work(spec))
        return True

    def pause(self) -> None:
        if self.state == RUNNING and self.source is not None:
            self.source.set_paused(True)
            self._set_state(PAUSED)

    def resume(self) -> None:
        if self.state == PAUSED and self.source is not None:
            self.source.set_paused(False)
            self._set_state(RUNNING)

    def stop(self) -> None:
        if self.state == STARTING:
            self._stop_requested = True  # honoured as soon as the session is up
            return
        if self.state not in (RUNNING, PAUSED):
            return
        self._set_state(STOPPING)
        self._input_poll.stop()
        # Bound methods, not closures over the session: PySide keeps the callables it is given,
        # and a kept session would hold its audio source (and native resamplers) until exit.
        self._stopping = self.session
        self._jobs.run(lambda report, cancelled: self._stop_work())

    def set_latency(self, threshold: float, l_max: int | None) -> None:
        """Takes effect live, from the next word on (the engine applies it on its own thread)."""
        if self.session is not None and self.state in (RUNNING, PAUSED):
            # The engine's command queue blocks only when full; never risk that on the UI thread.
            self._latency = (threshold, l_max)
            self._jobs.run(lambda report, cancelled: self._latency_work())

    def forget_recognizers(self) -> None:
        """After a model download: the next start picks the new recognizer."""
        self._jobs.run(lambda report, cancelled: self.close_recognizers())

    def close_recognizers(self) -> None:
        """Close the cached recognizers (a PocketSphinx child process each); the next start makes new ones."""
        self.resources.close_recognizers()

    @property
    def recognizer_factory(self):
        return self.resources.recognizer_factory

    @recognizer_factory.setter
    def recognizer_factory(self, factory) -> None:
        self.resources.recognizer_factory = factory

    def wait(self, msecs: int = -1) -> bool:
        """Block until queued starts/stops have run (tests, quitting)."""
        return self._jobs.wait(msecs)

    @property
    def transcript(self) -> Transcript:
        return self.builder.transcript

    @property
    def busy(self) -> bool:
        return self.state != IDLE

    def punctuation_model(self, model_dir: Path | None = None):
        """The loaded punctuation model (loads it on first use; call from a worker thread)."""
        return self.resources.punctuation_model(model_dir)

    # -- worker thread -------------------------------------------------------------------------
    def _preload_work(self, spec: SessionSpec) -> None:
        try:
            _, _, info = self.resources.plan(spec)  # the session's plan: whose marks, which model
            info = replace(info, punctuation_notice=self.resources.punctuation_problem(spec.model_dir))
        except Exception as exc:
            call_on_ui_thread(self, "_on_preloaded", None, _message(exc))
            return
        call_on_ui_thread(self, "_on_preloaded", info, "")

    def _start_work(self, spec: SessionSpec) -> None:
        try:
            session, info = build_live_session(spec, self.resources)
            session.subscribe(self._on_engine_events)
            journal = session.journal
            try:
                session.start()
            except BaseException:
                if journal is not None and not journal.closed:
                    journal.close(clean=True)
                raise
        except Exception as exc:
            log.info("session did not start: %s", exc)
            call_on_ui_thread(self, "_on_start_failed", _message(exc))
            return
        call_on_ui_thread(self, "_on_started", (session, session.source, journal), info)

    def _latency_work(self) -> None:
        session, (threshold, l_max) = self.session, self._latency
        if session is not None:
            _quietly(session.engine.set_threshold, threshold, l_max)

    def _stop_work(self) -> None:
        session, self._stopping = self._stopping, None
        error = ""
        try:
            transcript = session.stop()
        except Exception as exc:  # a stuck thread: keep the words we have
            log.exception("stopping the session failed")
            transcript, error = session.transcript, _message(exc)
        call_on_ui_thread(self, "_on_stopped", transcript, error or (session.error or ""))

    # -- engine threads ------------------------------------------------------------------------
    def _on_engine_events(self, events: list) -> None:
        with self._lock:
            for event in events:
                if isinstance(event, PartialWords):
                    # Each side's partial words replace only that side's (``PartialWords``).
                    words = tuple(w if w.speaker == event.speaker else replace(w, speaker=event.speaker)
                                  for w in event.words)  # fmt: skip
                    self._partials[event.speaker] = words
                    self._partial = dict(self._partials)
                elif isinstance(event, AudioLevel):
                    self._level = max(self._level, event.rms)
                elif isinstance(event, SourceNotice):
                    self._notices.append(event)
                elif isinstance(event, WordsHidden):
                    self._hidden = max(self._hidden, event.total)
                else:
                    self._events.append(event)
            wake, self._wake_pending = not self._wake_pending, True
        if wake:
            call_on_ui_thread(self, "_schedule_flush")

    # -- UI thread -----------------------------------------------------------------------------
    def _schedule_flush(self) -> None:
        if self._flush_timer.isActive():
            return
        elapsed = self._since_flush.elapsed() if self._since_flush.isValid() else FRAME_MS
        self._flush_timer.start(max(0, FRAME_MS - elapsed))

    def _flush(self) -> None:
        with self._lock:
            events, partial, level, notices = self._events, self._partial, self._level, self._notices
            self._events, self._partial, self._level, self._notices = [], None, -1.0, []
            hidden, said, self._hidden_said = self._hidden, self._hidden_said, self._hidden
            self._wake_pending = False
        self._since_flush.start()
        failure = next((e for e in events if isinstance(e, EngineFailed)), None)
        detected = [e for e in events if isinstance(e, LanguageDetected)]
        events = [e for e in events if not isinstance(e, (EngineFailed, LanguageDetected))]
        if events:
            self.builder.apply(events)
        if partial is not None:
            partial = tuple(word for words in partial.values() for word in words)
        if events or partial is not None:
            self.flushes += 1
            self.captions_changed.emit(events, partial)
        if level >= 0:
            self.level_changed.emit(level)
        for n in notices:
            self.notice.emit(n.kind, n.message)
        if hidden > said:
            self.words_hidden.emit(hidden, said == 0)
        for event in detected:
            self.language_detected.emit(event.language, float(event.probability), event.speaker)
        if failure is not None:
            self.error.emit(f"Punctuation stopped working: {failure.message}. The words so far are kept.")

    def name_speakers(self, names) -> None:
        """The user renamed a speaker: the running session's journal records the new names (a
        line written at once, off nothing slow), so a recovered meeting shows them."""
        journal = self.journal
        if journal is not None and self.state in (RUNNING, PAUSED):
            journal.name_speakers(names)

    def _check_input(self) -> None:
        session = self.session
        if session is not None and self.state in (RUNNING, PAUSED) and session.input_ended:
            self.stop()  # a file played to its end, or the input failed: finish the transcript

    def _on_started(self, parts, info: RecognizerInfo) -> None:
        self.session, self.source, self.journal = parts
        self.recognizer_info = info
        self._set_state(RUNNING)
        self._input_poll.start()
        self.ready.emit(info)  # this session's notices (its journal folder, a model fallback)
        if self._stop_requested:
            self._stop_requested = False
            self.stop()

    def _on_start_failed(self, message: str) -> None:
        self._stop_requested = False
        self._set_state(IDLE)
        self.error.emit(message)

    def _on_stopped(self, transcript: Transcript, error: str) -> None:
        self._flush_timer.stop()
        self._flush()  # the last events: stop() has joined the threads that produce them
        # Let the session go (its journal's error hook refers back to it, and through it to the source).
        self.session, self.source, self.journal = None, None, None
        self._set_state(IDLE)
        if error:
            self.notice.emit("error", error)
        self.finished.emit(transcript)

    def _on_preloaded(self, info, error: str) -> None:
        if info is None:
            self.error.emit(error)
            return
        self.recognizer_info = info
        self.ready.emit(info)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)


def _quietly(fn, *args) -> None:
    try:
        fn(*args)
    except Exception:  # the engine already reported its own failure
        log.exception("changing the latency setting failed")


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError) and "PortAudio" in text:
        return f"Audio capture is unavailable: {text}. Install PortAudio (libportaudio2)."
    return text[:1].upper() + text[1:]


__all__ = [
    "IDLE",
    "PAUSED",
    "RUNNING",
    "STARTING",
    "STOPPING",
    "SessionBridge",
]
