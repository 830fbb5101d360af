"""Echo cancellation for livecap's own microphone capture, by the sound server.

In a meeting on speakers the microphone hears the other participants too, so their words
would be captioned twice: once from the meeting's own sound and once as "me". PulseAudio's
``module-echo-cancel`` (also offered by PipeWire's pipewire-pulse) fixes that at the source:
it takes a microphone (``source_master``) and an output (``sink_master``), and creates

* a sink, the *reference*: what plays through it goes on to the output unchanged, and the
  canceller knows it as the echo to expect;
* a source, the *echo-cancelled microphone*: the microphone minus that echo.

The canceller only knows the sound that goes through its sink, so the meeting's stream has to
play there: ``route()`` moves it (the user hears it on the same output as before) and
``stop()`` moves it back. Nothing else of the user's setup changes: the default source and
sink are put back if loading the module changed them, and the module is unloaded at stop,
at exit (atexit) and, for one left by a livecap that was killed, at the next start.

The webrtc canceller's gain controls are switched off: they would turn the user's microphone
volume up and down. Where the server has no such module, ``start()`` raises
``EchoCancelUnavailable`` with one line (``available()`` asks without raising).
"""

from __future__ import annotations

import atexit
import logging
import time

from engine.audio.applications import list_applications
from engine.audio.base import AudioError, EventCallback
from engine.audio.pulse import (
    PactlFailed,
    PulseCapture,
    check_platform,
    run_pactl,
    server_default,
    source_names,
)
from engine.audio.sources import ECHO_CANCELLED_SOURCE, MICROPHONE

__all__ = ["EchoCanceller", "EchoCancelledSource", "EchoCancelUnavailable", "MODULE"]

log = logging.getLogger(__name__)

MODULE = "module-echo-cancel"
SOURCE_NAME = ECHO_CANCELLED_SOURCE
SINK_NAME = "livecap_echo_reference"
AEC_ARGS = "analog_gain_control=0 digital_gain_control=0"
# PipeWire creates the module's nodes after load-module has answered.
_APPEAR_TIMEOUT = 5.0


class EchoCancelUnavailable(AudioError):
    """The sound server cannot cancel echo (no such module); captions go on without it."""


def _sink_names() -> set[str]:
    text = run_pactl("list", "short", "sinks")
    return {cols[1] for cols in (line.split("\t") for line in text.splitlines()) if len(cols) > 1}


class EchoCanceller:
    """The server's echo canceller between ``microphone`` (a source name; None: the default
    source) and ``output`` (a sink name; None: the default sink). Use it as a context manager,
    or ``start()`` / ``stop()``; record ``source`` (``open_source()``) instead of the microphone.
    ``module`` (default ``MODULE``) is there so a test can ask for one the server does not have."""

    def __init__(
        self,
        microphone: str | None = None,
        output: str | None = None,
        *,
        module: str | None = None,
        aec_method: str = "webrtc",
        aec_args: str = AEC_ARGS,
        source_name: str = SOURCE_NAME,
        sink_name: str = SINK_NAME,
    ):
        self.microphone, self.output = microphone, output
        self.module, self.aec_method, self.aec_args = module or MODULE, aec_method, aec_args
        self.source, self.sink = source_name, sink_name
        self.module_index: int | None = None
        self.reason = ""  # why it is unavailable, once ``available()`` or ``start()`` found out
        self._routed: dict[int, str] = {}  # sink input -> the sink it played to before

    # -- lifetime -----------------------------------------------------------------------------
    def available(self) -> bool:
        """Whether the server can cancel echo here (loads the module once and unloads it);
        ``reason`` then says why not, in one line."""
        if self.module_index is not None:
            return True
        try:
            self.start()
        except EchoCancelUnavailable as e:
            self.reason = str(e)
            return False
        self.stop()
        return True

    def start(self) -> EchoCanceller:
        if self.module_index is not None:
            return self
        check_platform()
        self._unload_leftovers()
        microphone = self.microphone or server_default("source")
        output = self.output or server_default("sink")
        if not microphone or microphone not in source_names():
            raise AudioError(f"echo cancellation needs a microphone; {microphone or 'none'!r} was not found")
        if not output or output not in _sink_names():
            raise AudioError(f"echo cancellation needs an output; {output or 'none'!r} was not found")
        defaults = {"source": server_default("source"), "sink": server_default("sink")}
        args = [
            f"source_master={microphone}",
            f"sink_master={output}",
            f"aec_method={self.aec_method}",
            f"source_name={self.source}",
            f"sink_name={self.sink}",
        ]
        self.module_index = self._load(args)
        atexit.register(self.stop)  # a server module outlives us: never leave it behind
        try:
            self._wait_for_source()
            self._put_back_defaults(defaults)
        except BaseException:
            self.stop()
            raise
        self.microphone, self.output = microphone, output
        return self

    def _load(self, args: list[str]) -> int:
        attempts = [args + [f'aec_args="{self.aec_args}"'], args] if self.aec_args else [args]
        error = ""
        for attempt in attempts:  # a server that rejects the engine's arguments may take it plain
            try:
                return int(run_pactl("load-module", self.module, *attempt).strip())
            except PactlFailed as e:
                error = str(e).splitlines()[0] if str(e).strip() else "load-module failed"
                log.debug("pactl load-module %s %s: %s", self.module, " ".join(attempt), error)
            except ValueError:
                error = "the server answered load-module without a module number"
        self.reason = (
            f"{self.module} is not available on this sound server ({error}); "
            "the echo guard alone will hide repeated words"
        )
        raise EchoCancelUnavailable(self.reason)

    def _wait_for_source(self) -> None:
        deadline = time.monotonic() + _APPEAR_TIMEOUT
        while self.source not in source_names():
            if time.monotonic() > deadline:
                raise EchoCancelUnavailable(
                    f"{self.module} loaded but its source {self.source!r} did not appear; "
                    "the echo guard alone will hide repeated words"
                )
            time.sleep(0.05)

    def _put_back_defaults(self, before: dict[str, str]) -> None:
        """A server may make a new source or sink the default (PulseAudio picks the one of
        highest priority): give the user's back, but only where ours took its place."""
        for kind, ours in (("source", self.source), ("sink", self.sink)):
            now = server_default(kind)
            if before[kind] and now in (ours, "") and now != before[kind]:
                try:
                    run_pactl(f"set-default-{kind}", before[kind])
                except (PactlFailed, AudioError) as e:
                    log.warning("could not restore the default %s %r: %s", kind, before[kind], e)

    def _unload_leftovers(self) -> None:
        """Unload a module of ours left loaded by a livecap that was killed (no atexit then)."""
        try:
            text = run_pactl("list", "short", "modules")
        except PactlFailed:
            return
        for line in text.splitlines():
            cols = line.split("\t")
            if len(cols) > 2 and cols[1] == self.module and f"source_name={self.source}" in cols[2]:
                log.info("unloading echo canceller %s left by an earlier run", cols[0])
                self._suspend_nodes()
                try:
                    run_pactl("unload-module", cols[0])
                except PactlFailed:
                    pass

    def stop(self) -> None:
        """Move routed streams back, unload the module; safe to call twice."""
        index, self.module_index = self.module_index, None
        atexit.unregister(self.stop)
        if index is None:
            return
        routed, self._routed = self._routed, {}
        try:
            here = {app.index: app.sink for app in list_applications()}
            defaults = {"source": server_default("source"), "sink": server_default("sink")}
            for sink_input, sink in routed.items():
                if here.get(sink_input) == self.sink:  # not moved elsewhere by the user meanwhile
                    _try_pactl("move-sink-input", str(sink_input), sink)
        except AudioError as e:  # server gone: nothing left to put back
            log.debug("echo canceller stop: %s", e)
            return
        self._suspend_nodes()
        _try_pactl("unload-module", str(index))
        self._put_back_defaults(defaults)

    def _suspend_nodes(self) -> None:
        """PipeWire 0.3.65 (Debian 12) can crash pipewire-pulse, and with it every application's
        sound, when its echo canceller is unloaded while its sink still runs (a race in the
        module's teardown); suspending its sink and source first avoids it. PulseAudio: nothing."""
        if "on PipeWire" in _server_name():
            _try_pactl("suspend-sink", self.sink, "1")
            _try_pactl("suspend-source", self.source, "1")

    def __enter__(self) -> EchoCanceller:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- what the canceller hears and cleans -------------------------------------------------
    def route(self, sink_input: int) -> None:
        """Play stream ``sink_input`` through the reference sink (same output, heard the same),
        so its sound is cancelled from the microphone; ``stop()`` moves it back."""
        if self.module_index is None:
            raise RuntimeError("start the echo canceller before routing streams through it")
        app = next((app for app in list_applications() if app.index == sink_input), None)
        if app is None:
            raise AudioError(f"no stream {sink_input} is playing now")
        if app.sink == self.sink:
            return
        try:
            run_pactl("move-sink-input", str(sink_input), self.sink)
        except PactlFailed as e:
            raise AudioError(f"could not route {app.name!r} through echo cancellation: {e}") from e
        self._routed.setdefault(sink_input, app.sink)

    def route_application(self, name: str) -> list[int]:
        """Route every stream application ``name`` plays now; their indexes."""
        streams = [app.index for app in list_applications() if app.matches(name)]
        for sink_input in streams:
            self.route(sink_input)
        return streams

    def open_source(self, on_event: EventCallback | None = None, **options) -> EchoCancelledSource:
        """The echo-cancelled microphone as an engine source (not started)."""
        return EchoCancelledSource(self.source, on_event=on_event, **options)


def _server_name() -> str:
    """The server's name ("PulseAudio (on PipeWire 0.3.65)" for pipewire-pulse); "" if unknown."""
    try:
        info = run_pactl("info")
    except (PactlFailed, AudioError):
        return ""
    return next(
        (line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("Server Name:")), ""
    )


def _try_pactl(*args: str) -> None:
    try:
        run_pactl(*args)
    except (PactlFailed, AudioError) as e:
        log.debug("pactl %s: %s", " ".join(args), e)


class EchoCancelledSource(PulseCapture):
    """Record a named server source (the echo-cancelled microphone) with parec. Its ``name`` is
    what the user calls it ("microphone"): the server's name for it (``SOURCE_NAME``) is
    livecap's own, and is only used to record it."""

    stream_name = "livecap microphone (echo cancelled)"
    gone_reason = "echo cancellation was switched off"

    def __init__(self, source: str, queue_chunks: int = 50, on_event: EventCallback | None = None,
                 retry_seconds: float = 1.0, check_seconds: float = 1.0):  # fmt: skip
        super().__init__(source, queue_chunks, on_event, retry_seconds, check_seconds)

    @property
    def name(self) -> str:
        return MICROPHONE

    def _open(self) -> None:
        if self._name not in source_names():
            raise AudioError(
                f"the echo-cancelled microphone {self._name!r} is not there; start echo cancellation"
            )

    def _target_args(self) -> list[str]:
        return [f"--device={self._name}"]

    def _find(self) -> bool:
        try:
            return self._name in source_names()
        except AudioError:
            return False  # server down for now: as good as gone

    def _lost_message(self, detail: str) -> str:
        return f"the echo-cancelled microphone stopped ({detail}); waiting for it to return"

    def _back_message(self) -> str:
        return "the echo-cancelled microphone is back"
