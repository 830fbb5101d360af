"""A private PipeWire server, used as ``pulse_server.PulseServer`` is, and ``sound_server``, which
picks one of the two.

``PipeWireServer`` runs a private ``pipewire``, ``wireplumber`` (with a private D-Bus session bus,
which it needs, and no ALSA, Bluetooth or camera monitors, so it never opens the machine's sound
cards) and ``pipewire-pulse``, whose PulseAudio socket the same clients use.
``sound_server("pulseaudio" | "pipewire", sinks=...)`` makes one of the two, not started.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

from engine.audio.pulse import terminate
from engine.evaluation.pulse_server import (
    CLIENT_TOOLS,
    ENV_KEYS,
    START_TIMEOUT,
    PulseServer,
    PulseServerError,
    missing_tools,
)

__all__ = ["PipeWireServer", "SERVERS", "sound_server"]

# WirePlumber's monitors of the machine's devices stay off: the private server has the null sinks
# asked for and nothing else, and never opens a sound card the user's own server is using.
_WIREPLUMBER_CONFIG = {
    "main.lua.d/51-livecap-private.lua": (
        "alsa_monitor.enabled = false\nv4l2_monitor.enabled = false\nlibcamera_monitor.enabled = false\n"
    ),
    "bluetooth.lua.d/51-livecap-private.lua": "bluez_monitor.enabled = false\n",
}


class PipeWireServer(PulseServer):
    """A private PipeWire with null sinks, used as ``PulseServer`` is (see the module's doc).

    Four processes, each with this server's folders only: a D-Bus session bus (WirePlumber
    will not run without one), ``pipewire``, ``wireplumber`` and ``pipewire-pulse``; clients
    reach it through pipewire-pulse's socket (``PULSE_SERVER``, as for PulseAudio) and, for
    native PipeWire clients, ``PIPEWIRE_RUNTIME_DIR``. The sinks are pipewire-pulse's
    module-null-sink, loaded once it is up; the first one is made the default sink.
    """

    kind = "pipewire"
    required_tools = ("pipewire", "wireplumber", "pipewire-pulse", "dbus-daemon", *CLIENT_TOOLS)
    install_hint = "apt install pipewire pipewire-pulse wireplumber dbus pulseaudio-utils"

    def __init__(self, sinks: Iterable[str] = ("livecap_test",), root: Path | None = None):
        super().__init__(sinks, root)
        self.socket = self.root / "run" / "pulse" / "native"
        self.server = f"unix:{self.socket}"
        self.log_path = self.root / "pipewire.log"  # all four processes
        self._daemons: list[subprocess.Popen] = []

    def start(self) -> PipeWireServer:
        missing = missing_tools(self.required_tools)
        if missing:
            raise PulseServerError(f"{', '.join(missing)} not installed ({self.install_hint})")
        run, config = self.root / "run", self.root / "config"
        for sub in ("run", "state", "home", "config"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        run.chmod(0o700)  # as a real XDG_RUNTIME_DIR
        for name, text in _WIREPLUMBER_CONFIG.items():
            path = config / "wireplumber" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self._saved_env = {key: os.environ.get(key) for key in ENV_KEYS}
        os.environ.update(
            XDG_RUNTIME_DIR=str(run),
            PIPEWIRE_RUNTIME_DIR=str(run),
            PULSE_RUNTIME_PATH=str(run / "pulse"),
            HOME=str(self.root / "home"),
            PULSE_SERVER=self.server,
        )
        for key in ("DISPLAY", "PIPEWIRE_REMOTE"):
            os.environ.pop(key, None)
        bus = f"unix:path={run / 'bus'}"
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(config),
            "XDG_STATE_HOME": str(self.root / "state"),
            "DBUS_SESSION_BUS_ADDRESS": bus,
        }
        daemons = (  # each one, and the file that says it is up (None: the next check does)
            (["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={bus}"], run / "bus"),
            (["pipewire"], run / "pipewire-0"),
            (["wireplumber"], None),
            (["pipewire-pulse"], None),
        )
        try:
            with open(self.log_path, "ab") as log:
                for cmd, ready in daemons:
                    self._daemons.append(
                        subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env)
                    )
                    if ready is not None:
                        self._wait(ready.exists, f"{cmd[0]} did not open {ready.name}")
            self._wait(self._answers, "pipewire-pulse did not answer")
            for name in self.sinks:
                self.add_null_sink(name)
            # WirePlumber keeps the default sink: until it is up, set-default-sink is "Not supported".
            self._wait(self._sinks_ready, f"the sinks {self.sinks} or the default sink did not appear")
        except BaseException:
            self.close()
            raise
        return self

    def _answers(self) -> bool:
        return self.pactl("info", check=False) != ""

    def _sinks_ready(self) -> bool:
        listed = {
            cols[1]
            for cols in (ln.split("\t") for ln in self.pactl("list", "short", "sinks").splitlines())
            if len(cols) > 1
        }
        info = self.pactl("info").splitlines()
        default = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("Default Sink:")), "")
        if not set(self.sinks) <= listed:
            return False
        if not self.sinks:
            return default not in ("", "@DEFAULT_SINK@")
        if default != self.sinks[0]:
            self.pactl("set-default-sink", self.sinks[0], check=False)
            return False
        return True

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not ready():
            dead = next((proc for proc in self._daemons if proc.poll() is not None), None)
            if dead is not None or time.monotonic() > deadline:
                why = f"{dead.args[0]} exited with {dead.returncode}" if dead else f"{START_TIMEOUT:g} s"
                log = self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""
                raise PulseServerError(f"PipeWire did not come up: {what} ({why}):\n{log}")
            time.sleep(0.05)

    def _end_daemons(self) -> None:
        daemons, self._daemons = self._daemons, []
        for proc in reversed(daemons):  # pipewire-pulse first, the bus last
            terminate(proc, timeout=5)

    def __enter__(self) -> PipeWireServer:
        return self.start()


SERVERS: dict[str, type[PulseServer]] = {"pulseaudio": PulseServer, "pipewire": PipeWireServer}


def sound_server(
    kind: str = "pulseaudio", sinks: Iterable[str] = ("livecap_test",), root: Path | None = None
):
    """A private sound server of ``kind`` ("pulseaudio" or "pipewire"), not started yet."""
    if kind not in SERVERS:
        raise ValueError(f"unknown sound server {kind!r}; choose one of: {', '.join(SERVERS)}")
    return SERVERS[kind](sinks=sinks, root=root)
