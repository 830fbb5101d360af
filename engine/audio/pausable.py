"""Audio sources as a session opens them (``SourceChoice``), and the pause switch the session
reads through.

``PausableSource`` wraps any engine source so the window can pause without ending the
session (the transcript, journal and model stay; only the audio stops):

* pausing first hands the recognizer ``SETTLE_SECONDS`` of silence, so the sentence being
  spoken ends, the recognizer finalises it and the decoder settles its marks (a silence
  longer than its ``silence_gap`` settles everything). Without that, the last words of a
  paused session would stay grey until the speaker resumed;
* then a live source keeps being read and its audio dropped (a microphone's queue must
  not overflow into "overrun" warnings), while a file simply stops advancing;
* a file is paced to real time here (``RealtimePacer``, as ``FileSource(realtime=True)``
  paces) rather than inside the file source, because only this
  wrapper knows about pauses: resuming moves the pacer's origin on by the paused time, so
  playback does not race through it afterwards to catch up.

Every front end opens its source here (``open_source``); the CLI simply never pauses.
Qt-free, so it is tested with plain threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.audio.base import AudioError, AudioSource
from engine.audio.pacing import RealtimePacer

SETTLE_SECONDS = 1.5  # > the decoder's default silence_gap (1.2 s)
_SILENCE_CHUNK = int(0.1 * SAMPLE_RATE)


@dataclass(frozen=True)
class SourceChoice:
    """What the source picker holds: ``kind`` "mic", "system", "app" or "file"; ``device`` a
    device name ("" = the default), the application's name, or the file's path."""

    kind: str
    device: str = ""

    @property
    def label(self) -> str:
        if self.kind == "file":
            return Path(self.device).name
        if self.kind == "system":
            return self.device or "System audio (default output)"
        if self.kind == "app":
            return self.device
        return self.device or "Default microphone"


def open_source(choice: SourceChoice, realtime: bool = True) -> PausableSource:
    """The engine source for ``choice``, wrapped; AudioError (or OSError without PortAudio) when it
    cannot be opened, with a message that says what to do."""
    if choice.kind == "mic":
        from engine.audio.microphone import MicrophoneSource

        inner, live = MicrophoneSource(choice.device or None), True
    elif choice.kind == "system":
        from engine.audio.system_audio import SystemAudioSource

        inner, live = SystemAudioSource(choice.device or None), True
    elif choice.kind == "app":
        from engine.audio.applications import ApplicationAudioSource

        inner, live = ApplicationAudioSource(choice.device), True
    elif choice.kind == "file":
        from engine.audio.file_source import FileSource

        if not choice.device:
            raise AudioError("no audio file chosen: use “Play a file…”")
        inner, live = FileSource(Path(choice.device), realtime=False), False
    else:
        raise AudioError(f"unknown audio source kind {choice.kind!r}")
    return PausableSource(inner, live=live, pace=realtime and not live)


class PausableSource:
    """Quacks like an engine ``AudioSource`` (what ``LiveSession`` uses of one)."""

    def __init__(
        self, inner: AudioSource, live: bool, pace: bool = False, settle_seconds: float = SETTLE_SECONDS
    ):
        self.inner = inner
        self.live = live
        self.pace = pace
        self.settle_seconds = settle_seconds
        self._paused = False
        self._silence_left = 0  # samples of settling silence still to hand out
        self._lock = threading.Lock()
        self._wake = threading.Event()  # ends a paused read's wait early (resume, stop)
        self._pacer = RealtimePacer()

    # -- what LiveSession uses -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def events(self):
        return self.inner.events

    @property
    def finished(self) -> bool:
        return self.inner.finished

    @property
    def duration(self) -> float | None:
        return self.inner.duration

    @property
    def warning(self) -> str | None:
        """The source's one warning about itself (a file cut short), if any."""
        return self.inner.warning

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` at ``start()``: a paced file's stream time ``t`` is due at
        ``started_at + t`` (what latency measurements count from; a pause shifts it)."""
        return self._pacer.started_at

    def start(self) -> PausableSource:
        self.inner.start()
        self._pacer.start()
        return self

    def stop(self) -> None:
        self._pacer.stop()
        self._wake.set()
        self.inner.stop()

    def read(self, timeout: float) -> np.ndarray | None:
        with self._lock:
            paused, silence = self._paused, self._silence_left
            if paused and silence > 0:
                n = min(silence, _SILENCE_CHUNK)
                self._silence_left -= n
        if paused:
            if silence > 0:
                return np.zeros(n, np.int16)  # stream time advances: the recognizer hears a pause
            if self.live:
                self.inner.read(timeout)  # keep the device's queue drained; the audio is dropped
            else:
                self._wake.wait(timeout)
                self._wake.clear()
            return None
        chunk = self._pacer.take_held()
        if chunk is None:
            chunk = self.inner.read(timeout)
        if chunk is None or not self.pace:
            return chunk
        # A file: hand each chunk out only once its last sample "was spoken".
        return self._pacer.release(chunk, timeout)

    # -- the switch (any thread) ---------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            if paused == self._paused:
                return
            self._paused = paused
            if paused:
                self._silence_left = int(self.settle_seconds * SAMPLE_RATE)
            else:
                self._silence_left = 0
                self._pacer.resume()  # the paused time is not owed, so nothing races to catch up
        self._wake.set()
