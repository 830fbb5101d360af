"""PulseAudio and PipeWire (pipewire-pulse) capture: what every livecap source that records
from the sound server shares.

``parec`` runs in a subprocess and asks the server for 16 kHz mono s16le, so the server does the
resampling and downmixing; a thread copies its output into a bounded queue (overruns counted,
never blocking the pipe). An idle stream sends no data at all; after half a second of that the
source hands out zeros, so recognizers see the silence that ends a sentence. When the thing
recorded goes away (a sink removed, an application's stream ended, the server restarted) the
source says "device_lost", retries every second, and says "device_back" once it records again.
``pactl`` answers the questions about the server (its defaults, its sources).

The sources built on it: the system audio (``system_audio``), one application's audio
(``applications``) and the echo-cancelled microphone (``echo_cancel``).
"""

from __future__ import annotations

import logging
import os
import queue
import select
import shutil
import subprocess
import sys
import threading
import time
from typing import Self

import numpy as np

from engine.audio.base import SAMPLE_RATE, AudioError, AudioSource, EventCallback

__all__ = ["CHUNK_SECONDS", "IDLE_FILL_AFTER", "INSTALL_HINT", "PactlFailed", "PulseCapture"]
__all__ += ["check_platform", "no_server_message", "pulse_env", "run_pactl", "server_default", "source_names"]
__all__ += ["terminate"]

log = logging.getLogger(__name__)

CHUNK_SECONDS = 0.1
_CHUNK_BYTES = int(SAMPLE_RATE * CHUNK_SECONDS) * 2  # s16le mono
# An idle sink sends nothing; this long without data means silence, not a stall.
IDLE_FILL_AFTER = 0.5
_PACTL_TIMEOUT = 5.0
INSTALL_HINT = (
    "install the PulseAudio client tools (Debian/Ubuntu: sudo apt install "
    "pulseaudio-utils; Fedora: sudo dnf install pulseaudio-utils; Arch: "
    "sudo pacman -S libpulse)"
)
_NO_SERVER_HINT = (
    "no PulseAudio or PipeWire sound server is running for this user. "
    "Start it (PipeWire: systemctl --user start pipewire-pulse; PulseAudio: "
    "pulseaudio --start) or check PULSE_SERVER"
)

_UNSUPPORTED = {
    "win32": "capturing system audio is not available on Windows yet (WASAPI loopback is "
    'planned). Meanwhile enable "Stereo Mix" under Sound settings > Recording, or '
    "route the meeting through a virtual cable such as VB-CABLE, and choose it as "
    "the microphone.",
    "darwin": "macOS does not let apps record system audio directly. Install a loopback "
    "driver such as BlackHole, create a Multi-Output Device (speakers + BlackHole) "
    'in Audio MIDI Setup, and choose "BlackHole 2ch" as the microphone.',
}


class PactlFailed(Exception):
    """pactl ran but refused the request (e.g. an old pactl without -f json)."""


def check_platform() -> None:
    for prefix, message in _UNSUPPORTED.items():
        if sys.platform.startswith(prefix):
            raise AudioError(message)


def pulse_env() -> dict[str, str]:
    # pactl formats numbers by locale, so "0,00" would break its own JSON.
    return {**os.environ, "LC_ALL": "C"}


def run_pactl(*args: str) -> str:
    if shutil.which("pactl") is None:
        raise AudioError(f"pactl was not found; {INSTALL_HINT}")
    try:
        done = subprocess.run(
            ["pactl", *args], capture_output=True, text=True, env=pulse_env(), timeout=_PACTL_TIMEOUT
        )
    except subprocess.TimeoutExpired as e:
        raise AudioError(
            f"the sound server did not answer within {_PACTL_TIMEOUT:g} s "
            "(pactl timed out); it may be hung, try restarting it"
        ) from e
    if done.returncode != 0:
        err = (done.stderr or done.stdout).strip()
        if "connection" in err.lower() or "connect" in err.lower():
            raise AudioError(no_server_message(err))
        raise PactlFailed(err)
    return done.stdout


def no_server_message(pactl_error: str) -> str:
    """One line, the way out first: pactl's own words (often two lines) only as the reason."""
    reason = pactl_error.strip().splitlines()[0] if pactl_error.strip() else "no answer"
    return _NO_SERVER_HINT.replace(" running for this user.", f" running for this user ({reason}).", 1)


def server_default(kind: str) -> str:
    """The server's default "sink" or "source" by name ("" when it has none)."""
    label = {"sink": "Default Sink:", "source": "Default Source:"}[kind]
    try:
        info = run_pactl("info")
    except PactlFailed as e:
        raise AudioError(f"cannot ask the sound server for its default {kind}: {e}") from e
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith(label)), "")
    return "" if name in ("@DEFAULT_SINK@", "@DEFAULT_SOURCE@") else name


def source_names() -> set[str]:
    """The names of every source (microphones, monitors, filters) the server has now."""
    try:
        text = run_pactl("list", "short", "sources")
    except PactlFailed as e:
        raise AudioError(f"cannot list sound sources: {e}") from e
    return {cols[1] for cols in (line.split("\t") for line in text.splitlines()) if len(cols) > 1}


class PulseCapture(AudioSource):
    """What every parec-based source shares: parec in a subprocess asking the server for 16 kHz
    mono s16le, a thread copying its output into a bounded queue, zeros for an idle stream,
    and waiting (then "device_lost" / "device_back") while the recorded thing is gone.

    A subclass says what to record and how to tell it is still there:
    ``_open()`` (at start: find it, or AudioError), ``_target_args()`` (parec's arguments naming
    it), ``_find()`` (every ``retry_seconds`` while lost: whether it is back, perhaps as a new
    stream), ``_gone()`` (every ``check_seconds``: "" while it is there, else why not; by
    default ``gone_reason`` when ``_find()`` says no), and the two messages.
    ``fill_while_lost``: hand out zeros while waiting too, so recognizers see silence rather
    than nothing (an application between two calls).
    """

    fill_while_lost = False
    stream_name = "livecap"
    gone_reason = "it was removed"

    def __init__(
        self,
        name: str,
        queue_chunks: int = 50,
        on_event: EventCallback | None = None,
        retry_seconds: float = 1.0,
        check_seconds: float = 1.0,
    ):
        check_platform()
        super().__init__(name, on_event)
        self.retry_seconds = retry_seconds
        self.check_seconds = check_seconds
        self._queue: queue.Queue[np.ndarray] = queue.Queue(maxsize=queue_chunks)
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # guards _proc: stop() vs the reconnecting pump

    # -- what a subclass says --------------------------------------------------------------
    def _open(self) -> None:
        """Find what to record (AudioError with the way out when it cannot be found)."""
        raise NotImplementedError

    def _target_args(self) -> list[str]:
        raise NotImplementedError

    def _find(self) -> bool:
        raise NotImplementedError

    def _gone(self) -> str:
        return "" if self._find() else self.gone_reason

    def _lost_message(self, detail: str) -> str:
        return f"{self.name} stopped ({detail}); waiting for it to return"

    def _back_message(self) -> str:
        return f"{self.name} is back"

    # -- the AudioSource contract ----------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The running parec's process id (for diagnostics)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> Self:
        if self._thread is not None:
            return self
        if shutil.which("parec") is None:
            raise AudioError(f"parec was not found; {INSTALL_HINT}")
        self._open()
        self._stopping.clear()
        self._proc = self._spawn()
        self._thread = threading.Thread(target=self._pump, name=f"parec {self.name}", daemon=True)
        self._thread.start()
        return self

    def read(self, timeout: float) -> np.ndarray | None:
        try:
            chunk = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        self._report_overruns()
        return chunk

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()  # the pump then reads EOF and ends
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
            self._report_overruns(force=True)
        self._thread = None
        if proc is not None:
            _end(proc)  # reap it and close its pipes, now that nobody reads them

    # -- the capture process ----------------------------------------------------------
    def _spawn(self) -> subprocess.Popen:
        cmd = [
            "parec",
            *self._target_args(),
            "--format=s16le",
            f"--rate={SAMPLE_RATE}",
            "--channels=1",
            "--raw",
            "--latency-msec=100",
            "--client-name=livecap",
            f"--stream-name={self.stream_name}",
        ]
        # Its own session: a terminal's Ctrl-C goes to the whole foreground process group, and
        # parec dying with it would cut off the audio it still held and report a lost device while
        # livecap is settling its last words. livecap ends it itself (stop()); if livecap dies,
        # parec's next write to the closed pipe ends it.
        return subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=pulse_env(),
            start_new_session=True,
        )

    def _put(self, chunk: np.ndarray) -> None:
        try:
            self._queue.put_nowait(chunk)
        except queue.Full:
            self._dropped += 1

    def _fill(self, filled: float, now: float) -> float:
        """Zeros for the time from ``filled`` to ``now``; the new ``filled``."""
        gap = int((now - filled) * SAMPLE_RATE)
        if gap > 0:
            self._put(np.zeros(gap, np.int16))
            filled += gap / SAMPLE_RATE
        return filled

    def _pump(self) -> None:
        """Copy parec's output into the queue; when parec dies or what it records goes away,
        wait for it and restart parec. Runs until stop()."""
        proc = self._proc
        while proc is not None:
            reason = self._copy(proc)
            if self._stopping.is_set():
                return
            err = _end(proc)
            self._emit(
                "device_lost", self._lost_message(reason or (f"parec: {err}" if err else "parec ended"))
            )
            proc = self._respawn()
            if proc is not None:
                self._emit("device_back", self._back_message())

    def _copy(self, proc: subprocess.Popen) -> str:
        """Pump one parec's output until it ends (returns "") or what it records goes away
        (returns why). Two quirks of the server are handled here:

        * An idle sink renders nothing, so its monitor sends no data at all
          while nothing plays. Recognizers need silence to finish a sentence,
          so after IDLE_FILL_AFTER without data we hand out zeros for the time
          that passes (a brief stall mid-speech is never filled).
        * When a sink is removed, the server moves our recording to the
          default source (usually the microphone) instead of ending it, so we
          check (``_gone``) that it is still there and end parec ourselves.
        """
        fd = proc.stdout.fileno()
        buf = bytearray()
        last_data = filled = time.monotonic()
        next_check = last_data + self.check_seconds
        while True:
            ready, _, _ = select.select([fd], [], [], CHUNK_SECONDS)
            now = time.monotonic()
            if ready:
                data = os.read(fd, 65536)
                if not data:
                    whole = len(buf) // 2 * 2
                    if self._stopping.is_set() and whole:  # the last samples before stop()
                        self._put(np.frombuffer(bytes(buf[:whole]), dtype="<i2").astype(np.int16))
                    return ""
                buf += data
                last_data = filled = now
                while len(buf) >= _CHUNK_BYTES:
                    self._put(np.frombuffer(bytes(buf[:_CHUNK_BYTES]), dtype="<i2").astype(np.int16))
                    del buf[:_CHUNK_BYTES]
            elif now - last_data >= IDLE_FILL_AFTER:
                filled = self._fill(filled, now)
            if now >= next_check and not self._stopping.is_set():
                next_check = now + self.check_seconds
                reason = self._gone()
                if reason:
                    return reason

    def _respawn(self) -> subprocess.Popen | None:
        step = min(CHUNK_SECONDS, self.retry_seconds) if self.fill_while_lost else self.retry_seconds
        filled = time.monotonic()
        next_try = filled + self.retry_seconds
        while not self._stopping.wait(step):
            now = time.monotonic()
            if self.fill_while_lost:
                filled = self._fill(filled, now)
            if now < next_try:
                continue
            next_try = now + self.retry_seconds
            if not self._find():
                continue
            with self._lock:
                if self._stopping.is_set():
                    return None
                self._proc = self._spawn()
                return self._proc
        return None


def terminate(proc: subprocess.Popen, timeout: float = 2.0) -> None:
    """End ``proc``: SIGTERM, then SIGKILL if it is still there after ``timeout`` seconds; reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _end(proc: subprocess.Popen) -> str:
    """Terminate (then kill) ``proc``, reap it, close its pipes; its stderr text."""
    terminate(proc)
    err = ""
    try:
        if not proc.stderr.closed:
            err = proc.stderr.read().decode(errors="replace").strip()
    except (OSError, ValueError):
        pass
    for pipe in (proc.stdout, proc.stderr):
        try:
            pipe.close()
        except (OSError, ValueError):
            pass
    return err
