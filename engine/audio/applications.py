"""One application's sound (a meeting client, a browser) as a source, on PulseAudio/PipeWire.

Every application playing sound has a "sink input" on the server. ``parec --monitor-stream=N``
records sink input N alone, before it is mixed with anything else the speakers play, and
without moving it: the user keeps hearing it where they did. The server resamples to 16 kHz
mono for us, as for system audio (``pulse.PulseCapture`` does the recording).

A call ends, the next one starts: meeting clients close their stream between calls and open a
new one (a new index). ``ApplicationAudioSource`` follows the application by name: when its
stream ends it says "NAME stopped playing; waiting for it to play again" (``device_lost``),
hands out silence meanwhile (recognizers finish the last sentence), and says ``device_back``
once it records the application's new stream.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass

from engine.audio.base import AudioError, EventCallback
from engine.audio.pulse import PactlFailed, PulseCapture, check_platform, run_pactl

__all__ = ["Application", "ApplicationAudioSource", "list_applications", "OWN_NAME"]

log = logging.getLogger(__name__)

OWN_NAME = "livecap"  # livecap's own streams are never offered as an application to record


@dataclass(frozen=True)
class Application:
    """An application's stream of sound, as the server lists it."""

    name: str  # as the user knows it: application.name, else the program's file name
    binary: str  # application.process.binary ("" when the server does not say)
    index: int  # the sink input: what parec --monitor-stream wants
    sink: str  # the output it plays to (its name; its index when the name is unknown)
    corked: bool  # paused by the application: it plays nothing now
    pid: int | None = None  # application.process.id, when the server says

    def matches(self, name: str) -> bool:
        """Whether the user's ``name`` means this application (case does not matter; the
        program's file name works too)."""
        wanted = name.strip().casefold()
        return wanted in (self.name.casefold(), self.binary.casefold())


def _app_from(index: int, sink: str, corked: bool, props: dict[str, str]) -> Application:
    binary = props.get("application.process.binary", "")
    pid = props.get("application.process.id", "")
    return Application(
        name=props.get("application.name") or binary or f"stream {index}",
        binary=binary,
        index=index,
        sink=sink,
        corked=corked,
        pid=int(pid) if pid.isdigit() else None,
    )


def _parse_json_sink_inputs(text: str, sinks: dict[str, str]) -> list[Application]:
    apps = []
    for item in json.loads(text):
        sink = str(item.get("sink", ""))
        corked = item.get("corked")
        corked = corked if isinstance(corked, bool) else str(corked).lower() in ("yes", "true", "1")
        apps.append(
            _app_from(int(item["index"]), sinks.get(sink, sink), corked, item.get("properties") or {})
        )
    return apps


_PROPERTY = re.compile(r'^\s+([\w.-]+) = "(.*)"$')


def _parse_text_sink_inputs(text: str, sinks: dict[str, str]) -> list[Application]:
    # "Sink Input #3" blocks of "\tKey: value" lines, then "\t\tproperty = "value"" lines.
    apps = []
    for block in text.split("Sink Input #")[1:]:
        lines = block.splitlines()
        fields, props = {}, {}
        for line in lines[1:]:
            prop = _PROPERTY.match(line)
            if prop:
                props[prop.group(1)] = prop.group(2).replace('\\"', '"')
            elif ":" in line and line.startswith("\t") and not line.startswith("\t\t"):
                key, value = line.strip().split(":", 1)
                fields[key] = value.strip()
        sink = fields.get("Sink", "")
        apps.append(
            _app_from(int(lines[0].strip()), sinks.get(sink, sink), fields.get("Corked") == "yes", props)
        )
    return apps


def _sink_names() -> dict[str, str]:
    """Sink index (as text) to name: sink inputs name their sink by index."""
    try:
        text = run_pactl("list", "short", "sinks")
    except PactlFailed:
        return {}
    return {cols[0]: cols[1] for cols in (line.split("\t") for line in text.splitlines()) if len(cols) > 1}


def _is_ours(app: Application) -> bool:
    return app.pid == os.getpid() or app.name.casefold() == OWN_NAME


def list_applications() -> list[Application]:
    """The applications playing sound now (one entry per stream; corked ones included),
    livecap's own streams left out."""
    check_platform()
    sinks = _sink_names()
    try:
        apps = _parse_json_sink_inputs(run_pactl("-f", "json", "list", "sink-inputs"), sinks)
    except (PactlFailed, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
        log.debug("pactl JSON listing unavailable (%s); using the text listing", e)
        try:
            apps = _parse_text_sink_inputs(run_pactl("list", "sink-inputs"), sinks)
        except PactlFailed as e2:
            raise AudioError(f"cannot list the applications playing sound: {e2}") from e2
    return [app for app in apps if not _is_ours(app)]


def _best_stream(apps: list[Application], name: str) -> Application | None:
    """The stream of application ``name`` to record: one that is playing, the newest first
    (a client that opened a second stream has usually moved on to it)."""
    mine = [app for app in apps if app.matches(name)]
    return max(mine, key=lambda app: (not app.corked, app.index), default=None)


def playing_now_line(apps: list[Application]) -> str:
    """The applications playing now, for a message ("'Zoom', 'Firefox'" or "none")."""
    names = list(dict.fromkeys(app.name for app in apps))
    return ", ".join(repr(name) for name in names) or "none"


class ApplicationAudioSource(PulseCapture):
    """Record one application's sound by name, following it from one stream to the next."""

    fill_while_lost = True  # between two calls recognizers get silence, as from an idle sink

    def __init__(
        self,
        application: str,
        queue_chunks: int = 50,
        on_event: EventCallback | None = None,
        retry_seconds: float = 1.0,
        check_seconds: float = 1.0,
    ):
        if not application.strip():
            raise AudioError("no application named: give its name as `livecap devices` lists it")
        super().__init__(application.strip(), queue_chunks, on_event, retry_seconds, check_seconds)
        self.application = application.strip()
        self.index: int | None = None  # the sink input recorded now
        self.stream_name = f"livecap {self.application}"

    def _open(self) -> None:
        apps = list_applications()
        found = _best_stream(apps, self.application)
        if found is None:
            raise AudioError(
                f"no application called {self.application!r} is playing sound; playing now: "
                f"{playing_now_line(apps)} (start the call or the video first, then try again)"
            )
        self.index, self._name = found.index, found.name

    def _target_args(self) -> list[str]:
        # PulseAudio ends the recording when the stream ends; PipeWire would move it to the
        # default source (the microphone) unless told not to: node.dont-reconnect (ignored by PulseAudio).
        return [f"--monitor-stream={self.index}", "--property=node.dont-reconnect=true"]

    def _streams(self) -> list[Application] | None:
        try:
            return list_applications()
        except AudioError:
            return None  # server down for now: as good as gone

    def _gone(self) -> str:
        # The server ends parec itself when the stream ends; this also covers servers that
        # would keep a recording of a vanished stream open.
        apps = self._streams()
        if apps is None or all(app.index != self.index for app in apps):
            return "its stream ended"
        return ""

    def _find(self) -> bool:
        apps = self._streams()
        found = _best_stream(apps or [], self.application)
        if found is None:
            return False
        self.index = found.index
        return True

    def _lost_message(self, detail: str) -> str:
        return f"{self.name} stopped playing; waiting for it to play again"

    def _back_message(self) -> str:
        return f"{self.name} is playing again; recording it"
