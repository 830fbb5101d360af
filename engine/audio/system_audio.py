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

``engine.audio.pulse.PulseCapture`` is that machinery, shared by every parec-based source: a monitor here,
one application's stream (``applications``), the echo-cancelled microphone (``echo_cancel``).

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
from dataclasses import dataclass

from engine.audio.base import AudioError, EventCallback
from engine.audio.pulse import PactlFailed, PulseCapture, check_platform, run_pactl, server_default

__all__ = ["MonitorSource", "SystemAudioSource", "default_monitor", "list_monitor_sources"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MonitorSource:
    name: str  # what parec --device wants, e.g. "alsa_output.pci-0000.monitor"
    description: str  # what a person recognises, e.g. "Monitor of Built-in Audio"
    sink: str | None  # the sink it records, when the server says
    sample_spec: str
    state: str


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
    check_platform()
    try:
        return _parse_json_sources(run_pactl("-f", "json", "list", "sources"))
    except (PactlFailed, json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        log.debug("pactl JSON listing unavailable (%s); using the short listing", e)
    try:
        return _parse_short_sources(run_pactl("list", "short", "sources"))
    except PactlFailed as e:
        raise AudioError(f"cannot list sound sources: {e}") from e


def default_monitor() -> str:
    """The monitor of the default sink: what the user is hearing now."""
    sink = server_default("sink")
    if not sink:
        raise AudioError("the sound server has no default output; choose a monitor source by name instead")
    found = next((m.name for m in list_monitor_sources() if m.sink == sink), None)
    return found or f"{sink}.monitor"


class SystemAudioSource(PulseCapture):
    """Record a PulseAudio/PipeWire monitor source (default: the default sink's)."""

    stream_name = "livecap system audio"
    gone_reason = "the monitored output was removed"

    def __init__(
        self,
        monitor: str | None = None,
        queue_chunks: int = 50,
        on_event: EventCallback | None = None,
        retry_seconds: float = 1.0,
        check_seconds: float = 1.0,
    ):
        super().__init__(monitor or "system audio", queue_chunks, on_event, retry_seconds, check_seconds)
        self.monitor = monitor

    def _open(self) -> None:
        name = self.monitor or default_monitor()
        if not self._present(name, raise_errors=True):
            listed = ", ".join(repr(m.name) for m in list_monitor_sources()) or "none"
            raise AudioError(
                f"system audio source {name!r} was not found; available monitor sources: {listed}"
            )
        self._name = name

    def _target_args(self) -> list[str]:
        return [f"--device={self._name}"]

    def _find(self) -> bool:
        return self._present(self._name)

    def _lost_message(self, detail: str) -> str:
        return f"system audio {self._name!r} stopped ({detail}); waiting for it to return"

    def _back_message(self) -> str:
        return f"system audio {self._name!r} is back"

    def _present(self, name: str, raise_errors: bool = False) -> bool:
        try:
            return name in {m.name for m in list_monitor_sources()}
        except AudioError:
            if raise_errors:
                raise
            return False  # server down for now: as good as gone
