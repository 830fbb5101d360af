"""A private PulseAudio server, for tests and benchmarks that need a real sound server.

``PulseServer`` starts ``pulseaudio`` with its own runtime, state and home folders and a short
socket path (a unix socket path must stay under 108 bytes), loads nothing but the native
protocol (anonymous auth) and the null sinks it is asked for (``-n``: no default.pa), and points
this process at it (``PULSE_SERVER`` and friends in ``os.environ``) while it is open; closing it
ends the daemon and puts the environment back. It touches nothing of the machine's own sound
setup and needs no sound hardware, so a meeting can be staged on any Linux machine:

    with PulseServer(sinks=["others"]) as pulse:
        with pulse.play_stream("others", speech, app="Zoom", loop=True):
            ...  # Zoom now shows among the applications playing sound

Child processes started meanwhile (pactl, parec, livecap) inherit the environment, so they
talk to this server too. Running as root (CI, containers) is allowed in this per-user mode.

``engine.evaluation.pipewire_server`` has the same thing on PipeWire, and ``sound_server``, which
picks one of the two.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import soundfile as sf

from engine.audio.pulse import terminate

__all__ = ["PulseServer", "PulseServerError", "PlaybackStream", "missing_tools", "REQUIRED_TOOLS"]
__all__ += ["CLIENT_TOOLS", "ENV_KEYS", "START_TIMEOUT"]

REQUIRED_TOOLS = ("pulseaudio", "pactl", "parec", "pacat", "paplay")
CLIENT_TOOLS = ("pactl", "parec", "pacat", "paplay")
START_TIMEOUT = 10.0
_PACTL_TIMEOUT = 10.0
# What the server needs to find in the environment, and what must not lead it astray.
ENV_KEYS = ("XDG_RUNTIME_DIR", "PULSE_RUNTIME_PATH", "PULSE_STATE_PATH", "HOME", "PULSE_SERVER", "DISPLAY")
ENV_KEYS += ("PIPEWIRE_RUNTIME_DIR", "PIPEWIRE_REMOTE")


class PulseServerError(RuntimeError):
    """The private server could not be started or did not do what it was asked."""


def missing_tools(tools: Iterable[str] = REQUIRED_TOOLS) -> list[str]:
    """The command-line tools of ``tools`` this machine lacks (a caller skips when any is)."""
    return [tool for tool in tools if shutil.which(tool) is None]


def _as_int16(audio: np.ndarray) -> np.ndarray:
    x = np.asarray(audio)
    if x.dtype.kind == "f":
        return np.clip(np.rint(x * 32767.0), -32768, 32767).astype(np.int16)
    return x.astype(np.int16)


class PlaybackStream:
    """A long-lived ``pacat --playback`` that shows on the server as application ``app``.

    A thread feeds it ``audio`` (16-bit mono at ``rate``), once or round and round; the server's
    clock paces it, since pacat blocks while its buffer is full. ``stop()`` ends it at once (an
    application quitting), ``finish()`` lets it play what it was given and end on its own.
    """

    def __init__(self, sink: str, audio: np.ndarray, rate: int, app: str, loop: bool, binary: str):
        self.sink, self.app, self.rate, self.loop = sink, app, rate, loop
        self._samples = _as_int16(audio)
        cmd = [
            binary,
            "--playback",
            f"--device={sink}",
            "--format=s16le",
            f"--rate={rate}",
            "--channels=1",
            "--raw",
            "--latency-msec=50",
            f"--client-name={app}",
            f"--stream-name={app} playback",
            f"--property=application.name={app}",
        ]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self._stopping = threading.Event()
        self._feeder = threading.Thread(target=self._feed, name=f"pacat {app}", daemon=True)
        self._feeder.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _feed(self) -> None:
        data = self._samples.astype("<i2").tobytes()
        step = self.rate // 10 * 2  # a tenth of a second per write keeps stop() prompt
        try:
            while not self._stopping.is_set():
                for at in range(0, len(data), step):
                    if self._stopping.is_set():
                        return
                    self.proc.stdin.write(data[at : at + step])
                    self.proc.stdin.flush()
                if not self.loop:
                    break
        except (BrokenPipeError, ValueError, OSError):
            return  # pacat was stopped
        finally:
            try:
                self.proc.stdin.close()  # pacat plays what it holds, then ends
            except (BrokenPipeError, OSError, ValueError):
                pass

    def sink_input(self, timeout: float = 5.0) -> int:
        """The index of this stream's sink input, once the server lists it."""
        deadline = time.monotonic() + timeout
        while True:
            for block in _sink_input_blocks():
                if f'application.process.id = "{self.proc.pid}"' in block:
                    return int(block.split("#", 1)[1].split()[0])
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise PulseServerError(f"the playback stream of {self.app!r} did not appear on the server")
            time.sleep(0.05)

    def finish(self, timeout: float = 60.0) -> None:
        """Wait for a stream that does not loop to play everything and end."""
        self._feeder.join(timeout)
        self.proc.wait(timeout)

    def stop(self) -> None:
        """End the stream now, as an application that quits does."""
        self._stopping.set()
        terminate(self.proc, timeout=5)
        self._feeder.join(timeout=5)

    def __enter__(self) -> PlaybackStream:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _sink_input_blocks() -> list[str]:
    text = subprocess.run(
        ["pactl", "list", "sink-inputs"], capture_output=True, text=True, timeout=_PACTL_TIMEOUT,
        env={**os.environ, "LC_ALL": "C"},
    ).stdout  # fmt: skip
    return ["Sink Input #" + block for block in text.split("Sink Input #")[1:]]


class PulseServer:
    """A private PulseAudio daemon with null sinks, as a context manager (see the module's doc).

    ``sinks`` are created at start, the first one the default sink (so its monitor is the
    default source too). ``root`` is the folder the daemon keeps its files in (a fresh temporary
    one by default, removed at close).
    """

    kind = "pulseaudio"
    required_tools = REQUIRED_TOOLS
    install_hint = "apt install pulseaudio pulseaudio-utils"

    def __init__(self, sinks: Iterable[str] = ("livecap_test",), root: Path | None = None):
        self.sinks = list(sinks)
        self._own_root = root is None
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="lcpa-"))
        self.socket = self.root / "run" / "native"
        self.log_path = self.root / "pulseaudio.log"
        self.server = f"unix:{self.socket}"
        self._daemon: subprocess.Popen | None = None
        self._saved_env: dict[str, str | None] = {}
        self._streams: list[PlaybackStream] = []

    # -- lifetime ---------------------------------------------------------------------------
    def start(self) -> PulseServer:
        missing = missing_tools(("pulseaudio", "pactl"))
        if missing:
            raise PulseServerError(
                f"{', '.join(missing)} not installed (apt install pulseaudio pulseaudio-utils)"
            )
        for sub in ("run", "state", "home"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._saved_env = {key: os.environ.get(key) for key in ENV_KEYS}
        os.environ.update(
            XDG_RUNTIME_DIR=str(self.root / "run"),
            PULSE_RUNTIME_PATH=str(self.root / "run"),
            PULSE_STATE_PATH=str(self.root / "state"),
            HOME=str(self.root / "home"),
            PULSE_SERVER=self.server,  # and clients never autospawn a server of their own
        )
        os.environ.pop("DISPLAY", None)  # X11 properties could name another server
        load = [f"--load=module-native-protocol-unix socket={self.socket} auth-anonymous=1"]
        load += [f"--load=module-null-sink {_null_sink_args(name)}" for name in self.sinks]
        cmd = [
            "pulseaudio",
            "--daemonize=no",
            "--system=false",
            "--exit-idle-time=-1",
            "-n",  # no default.pa: nothing but what is loaded here
            "--use-pid-file=no",
            "--disallow-exit=false",
            f"--log-target=file:{self.log_path}",
            *load,
        ]
        try:
            self._daemon = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
            )
            self._wait_until_up()
        except BaseException:
            self.close()
            raise
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while subprocess.run(["pactl", "info"], capture_output=True, timeout=_PACTL_TIMEOUT).returncode != 0:
            if self._daemon.poll() is not None or time.monotonic() > deadline:
                log = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
                raise PulseServerError(f"pulseaudio did not come up (exit {self._daemon.poll()}):\n{log}")
            time.sleep(0.1)

    def close(self) -> None:
        for stream in self._streams:
            stream.stop()
        self._streams.clear()
        self._end_daemons()
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env = {}
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def _end_daemons(self) -> None:
        daemon, self._daemon = self._daemon, None
        if daemon is not None:
            terminate(daemon, timeout=5)

    def __enter__(self) -> PulseServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- asking the server ----------------------------------------------------------------------
    def pactl(self, *args: str, check: bool = True) -> str:
        """Run ``pactl`` against this server; its output (PulseServerError when it fails and ``check``)."""
        done = subprocess.run(
            ["pactl", *args], capture_output=True, text=True, timeout=_PACTL_TIMEOUT,
            env={**os.environ, "PULSE_SERVER": self.server, "LC_ALL": "C"},
        )  # fmt: skip
        if check and done.returncode != 0:
            raise PulseServerError(f"pactl {' '.join(args)} failed: {(done.stderr or done.stdout).strip()}")
        return done.stdout

    def load_module(self, name: str, *args: str) -> int:
        """Load a server module; its index (for ``unload``)."""
        return int(self.pactl("load-module", name, *args).strip())

    def add_null_sink(self, name: str, description: str | None = None) -> int:
        """A null sink called ``name`` (its monitor: ``NAME.monitor``); the module's index."""
        return self.load_module("module-null-sink", *_null_sink_args(name, description).split())

    def unload(self, module: int) -> None:
        """Unload a module this server loaded (a null sink disappears with it)."""
        self.pactl("unload-module", str(module), check=False)

    def modules(self) -> list[str]:
        """The names of the modules loaded now."""
        # PipeWire lists its own modules too, some with arguments over several lines.
        rows = (line.split("\t") for line in self.pactl("list", "short", "modules").splitlines())
        return [cols[1] for cols in rows if len(cols) > 1 and cols[0].isdigit()]

    # -- playing sound ------------------------------------------------------------------------------
    def play(self, sink: str, audio: Path | np.ndarray, rate: int = 16000, wait: bool = True):
        """Play a WAV file (or samples at ``rate``) into ``sink`` with paplay; waits for the end
        unless ``wait`` is False (then the running paplay is returned)."""
        path = Path(audio) if isinstance(audio, (str, Path)) else self._wav(audio, rate)
        cmd = ["paplay", f"--device={sink}", str(path)]
        if wait:
            return subprocess.run(cmd, check=True, timeout=120, capture_output=True)
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def play_stream(
        self,
        sink: str,
        audio: Path | np.ndarray,
        app: str,
        rate: int = 16000,
        loop: bool = False,
        binary: str = "pacat",
    ) -> PlaybackStream:
        """A long-lived stream into ``sink`` that the server lists as application ``app`` (a
        meeting client); closed with the server if not stopped before."""
        if isinstance(audio, (str, Path)):
            samples, rate = sf.read(str(audio), dtype="int16", always_2d=True)
            audio = samples.mean(axis=1).astype(np.int16) if samples.shape[1] > 1 else samples[:, 0]
        stream = PlaybackStream(sink, audio, rate, app, loop, binary)
        self._streams.append(stream)
        return stream

    def _wav(self, audio: np.ndarray, rate: int) -> Path:
        fd, name = tempfile.mkstemp(suffix=".wav", dir=self.root)
        os.close(fd)
        sf.write(name, _as_int16(audio), rate, subtype="PCM_16")
        return Path(name)


def _null_sink_args(name: str, description: str | None = None) -> str:
    # A description with spaces would need quoting through two parsers; names are enough here.
    return f"sink_name={name} sink_properties=device.description={description or name}"
