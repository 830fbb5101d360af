"""System audio (what the speakers play, e.g. a meeting) as a source.

Linux: every PulseAudio sink has a "monitor" source that records what the sink
plays. PipeWire's pipewire-pulse speaks the same protocol, so the same tools
work there. We list monitors with ``pactl`` and record with ``parec`` in a
subprocess asking the server for 16 kHz mono s16le, so the server does the
resampling and downmixing; a thread copies parec's output into a bounded
queue (overruns counted, never blocking the pipe). If parec dies on its own
(server restarted) or its monitor disappears (sink removed: the server would
quietly move our recording to the default source, usually the microphone,
so we check once a second and end parec ourselves; up to that second of the
other source can slip through) we say "device_lost", retry every second, and
say "device_back" once the monitor records again. An idle sink sends no data
at all; after half a second of that we hand out zeros, so recognizers see the
silence that ends a sentence. The default sink's monitor is chosen when
capture starts; switching speakers later keeps recording the old sink.

Windows: not implemented. WASAPI loopback recording would need a
``soundcard``-based source (a future addition); until then a user can enable
"Stereo Mix" in the recording devices, or route the meeting through a virtual
cable (e.g. VB-CABLE) and choose that as the microphone.

macOS: the system offers no loopback recording to ordinary apps. Install a
loopback driver (e.g. BlackHole), add a Multi-Output Device in Audio MIDI Setup
(speakers + BlackHole) so the meeting stays audible, and choose "BlackHole 2ch"
as the microphone.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import select
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from engine.audio.base import SAMPLE_RATE, AudioError, AudioSource, EventCallback

log = logging.getLogger(__name__)

CHUNK_SECONDS = 0.1
_CHUNK_BYTES = int(SAMPLE_RATE * CHUNK_SECONDS) * 2  # s16le mono
# An idle sink sends nothing; this long without data means silence, not a stall.
IDLE_FILL_AFTER = 0.5
_PACTL_TIMEOUT = 5.0
_INSTALL_HINT = (
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


@dataclass(frozen=True)
class MonitorSource:
    name: str  # what parec --device wants, e.g. "alsa_output.pci-0000.monitor"
    description: str  # what a person recognises, e.g. "Monitor of Built-in Audio"
    sink: str | None  # the sink it records, when the server says
    sample_spec: str
    state: str


class _PactlFailed(Exception):
    """pactl ran but refused the request (e.g. an old pactl without -f json)."""


def _check_platform() -> None:
    for prefix, message in _UNSUPPORTED.items():
        if sys.platform.startswith(prefix):
            raise AudioError(message)


def _env() -> dict[str, str]:
    # pactl formats numbers by locale, so "0,00" would break its own JSON.
    return {**os.environ, "LC_ALL": "C"}


def _pactl(*args: str) -> str:
    if shutil.which("pactl") is None:
        raise AudioError(f"pactl was not found; {_INSTALL_HINT}")
    try:
        done = subprocess.run(
            ["pactl", *args], capture_output=True, text=True, env=_env(), timeout=_PACTL_TIMEOUT
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
        raise _PactlFailed(err)
    return done.stdout


def no_server_message(pactl_error: str) -> str:
    """One line, the way out first: pactl's own words (often two lines) only as the reason."""
    reason = pactl_error.strip().splitlines()[0] if pactl_error.strip() else "no answer"
    return _NO_SERVER_HINT.replace(" running for this user.", f" running for this user ({reason}).", 1)


def _parse_json_sources(text: str) -> list[MonitorSource]:
    monitors = []
    for src in json.loads(text):
        props = src.get("properties") or {}
        # pactl 16 calls the monitored sink "monitor_source"; newer ones may not.
        sink = src.get("monitor_of_sink") or src.get("monitor_source")
        sink = None if sink in (None, "", "n/a") else sink
        if sink is None and props.get("device.class") != "monitor":
            continue
        monitors.append(
            MonitorSource(
                name=src["name"],
                description=src.get("description") or src["name"],
                sink=sink,
                sample_spec=src.get("sample_specification", ""),
                state=src.get("state", ""),
            )
        )
    return monitors


def _parse_short_sources(text: str) -> list[MonitorSource]:
    # "index<TAB>name<TAB>driver<TAB>sample spec<TAB>state"; only names tell monitors apart.
    monitors = []
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) >= 2 and cols[1].endswith(".monitor"):
            monitors.append(
                MonitorSource(
                    name=cols[1],
                    description=cols[1],
                    sink=cols[1][: -len(".monitor")],
                    sample_spec=cols[3] if len(cols) > 3 else "",
                    state=cols[4] if len(cols) > 4 else "",
                )
            )
    return monitors


def list_monitor_sources() -> list[MonitorSource]:
    """Every monitor source of the running PulseAudio/PipeWire server."""
    _check_platform()
    try:
        return _parse_json_sources(_pactl("-f", "json", "list", "sources"))
    except (_PactlFailed, json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        log.debug("pactl JSON listing unavailable (%s); using the short listing", e)
    try:
        return _parse_short_sources(_pactl("list", "short", "sources"))
    except _PactlFailed as e:
        raise AudioError(f"cannot list sound sources: {e}") from e


def default_monitor() -> str:
    """The monitor of the default sink: what the user is hearing now."""
    try:
        info = _pactl("info")
    except _PactlFailed as e:
        raise AudioError(f"cannot ask the sound server for its default output: {e}") from e
    sink = next(
        (line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("Default Sink:")), ""
    )
    if not sink or sink == "@DEFAULT_SINK@":
        raise AudioError("the sound server has no default output; choose a monitor source by name instead")
    found = next((m.name for m in list_monitor_sources() if m.sink == sink), None)
    return found or f"{sink}.monitor"


class SystemAudioSource(AudioSource):
    """Record a PulseAudio/PipeWire monitor source (default: the default sink's)."""

    def __init__(
        self,
        monitor: str | None = None,
        queue_chunks: int = 50,
        on_event: EventCallback | None = None,
        retry_seconds: float = 1.0,
        check_seconds: float = 1.0,
    ):
        _check_platform()
        super().__init__(monitor or "system audio", on_event)
        self.monitor = monitor
        self.retry_seconds = retry_seconds
        self.check_seconds = check_seconds
        self._queue: queue.Queue[np.ndarray] = queue.Queue(maxsize=queue_chunks)
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # guards _proc: stop() vs the reconnecting pump

    @property
    def pid(self) -> int | None:
        """The running parec's process id (for diagnostics)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> SystemAudioSource:
        if self._thread is not None:
            return self
        if shutil.which("parec") is None:
            raise AudioError(f"parec was not found; {_INSTALL_HINT}")
        name = self.monitor or default_monitor()
        if not self._present(name, raise_errors=True):
            listed = ", ".join(repr(m.name) for m in list_monitor_sources()) or "none"
            raise AudioError(
                f"system audio source {name!r} was not found; available monitor sources: {listed}"
            )
        self._name = name
        self._stopping.clear()
        self._proc = self._spawn()
        self._thread = threading.Thread(target=self._pump, name=f"parec {name}", daemon=True)
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
            f"--device={self._name}",
            "--format=s16le",
            f"--rate={SAMPLE_RATE}",
            "--channels=1",
            "--raw",
            "--latency-msec=100",
            "--client-name=livecap",
            "--stream-name=livecap system audio",
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
            env=_env(),
            start_new_session=True,
        )

    def _present(self, name: str, raise_errors: bool = False) -> bool:
        try:
            return name in {m.name for m in list_monitor_sources()}
        except AudioError:
            if raise_errors:
                raise
            return False  # server down for now: as good as gone

    def _put(self, chunk: np.ndarray) -> None:
        try:
            self._queue.put_nowait(chunk)
        except queue.Full:
            self._dropped += 1

    def _pump(self) -> None:
        """Copy parec's output into the queue; when parec dies or its monitor
        vanishes, wait for the monitor and restart parec. Runs until stop()."""
        proc = self._proc
        while proc is not None:
            reason = self._copy(proc)
            if self._stopping.is_set():
                return
            err = _end(proc)
            detail = reason or (f"parec: {err}" if err else "parec ended")
            self._emit(
                "device_lost", f"system audio {self._name!r} stopped ({detail}); waiting for it to return"
            )
            proc = self._respawn()
            if proc is not None:
                self._emit("device_back", f"system audio {self._name!r} is back")

    def _copy(self, proc: subprocess.Popen) -> str:
        """Pump one parec's output until it ends (returns "") or the monitor goes
        away (returns why). Two quirks of the server are handled here:

        * An idle sink renders nothing, so its monitor sends no data at all
          while nothing plays. Recognizers need silence to finish a sentence,
          so after IDLE_FILL_AFTER without data we hand out zeros for the time
          that passes (a brief stall mid-speech is never filled).
        * When a sink is removed, the server moves our recording to the
          default source (usually the microphone) instead of ending it, so we
          check that the monitor still exists and end parec ourselves.
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
                gap = int((now - filled) * SAMPLE_RATE)
                if gap > 0:
                    filled += gap / SAMPLE_RATE
                    self._put(np.zeros(gap, np.int16))
            if now >= next_check and not self._stopping.is_set():
                next_check = now + self.check_seconds
                if not self._present(self._name):
                    return "the monitored output was removed"

    def _respawn(self) -> subprocess.Popen | None:
        while not self._stopping.wait(self.retry_seconds):
            if not self._present(self._name):
                continue
            with self._lock:
                if self._stopping.is_set():
                    return None
                self._proc = self._spawn()
                return self._proc
        return None


def _end(proc: subprocess.Popen) -> str:
    """Terminate (then kill) ``proc``, reap it, close its pipes; its stderr text."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
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
