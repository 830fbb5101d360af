"""Microphones (any PortAudio input device) as a source, via sounddevice.

Devices are remembered BY NAME: PortAudio's indices change whenever a device
is plugged in or out, names do not. The name is resolved to an index each time
the stream is opened, and a name that has gone missing gives an error that
lists what is there instead.

Threading: the PortAudio callback only copies ``indata`` into a bounded queue
(``put_nowait``) and bumps counters, because it runs on a real-time thread
where blocking, allocating or logging causes dropouts. Resampling happens in
``read()`` on the consumer's thread. A watcher thread turns the counters into
"overrun" events and notices a lost device (the stream finishing on its own,
going inactive, or no callback for ``stall_seconds``, a safety net for
drivers that hang instead of failing); it then retries every
``retry_seconds`` by name and says "device_back" once the stream runs again.
(A PulseAudio monitor chosen through ALSA sends nothing while idle and so
looks stalled; real microphones always deliver.)

PortAudio reads its device list once, at initialisation; the default rescan
re-initialises it (``sd._terminate(); sd._initialize()``, the workaround its
maintainers recommend) so a replugged device can be found. That also stops
any other PortAudio stream of this process; ours is already closed by then.
"""

from __future__ import annotations

import functools
import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sounddevice as sd

from engine.audio.base import SAMPLE_RATE, AudioError, AudioSource, EventCallback, Resampler

log = logging.getLogger(__name__)

_WATCH_INTERVAL = 0.1
# ALSA appends the card position, which changes when the card is replugged.
_ALSA_SUFFIX = re.compile(r"\s*\((?:plug)?hw:\d+(?:,\d+)?\)$")


@dataclass(frozen=True)
class InputDevice:
    name: str
    index: int
    default_samplerate: float
    channels: int  # most input channels the device offers
    hostapi: str
    is_default: bool


def _hostapi_name(query_hostapis, index: int) -> str:
    try:
        return query_hostapis(index)["name"]
    except Exception:  # a cosmetic field; never let it break device listing
        return f"host API {index}"


def list_input_devices(
    query_devices: Callable = sd.query_devices, query_hostapis: Callable = sd.query_hostapis
) -> list[InputDevice]:
    """Every device that can record, the system default marked."""
    try:
        default = query_devices(kind="input")["index"]
    except (sd.PortAudioError, KeyError, TypeError, ValueError):
        default = None  # no default input (or no devices at all)
    devices = []
    for index, info in enumerate(query_devices()):
        if info["max_input_channels"] > 0:
            devices.append(
                InputDevice(
                    name=info["name"],
                    index=info.get("index", index),
                    default_samplerate=float(info["default_samplerate"]),
                    channels=int(info["max_input_channels"]),
                    hostapi=_hostapi_name(query_hostapis, info["hostapi"]),
                    is_default=info.get("index", index) == default,
                )
            )
    return devices


def _describe(devices: list[InputDevice]) -> str:
    if not devices:
        return (
            "no input devices were found: plug in a microphone and check that it is "
            "not muted or disabled in the system sound settings"
        )
    names = "; ".join(f"{d.name!r}" + (" (default)" if d.is_default else "") for d in devices)
    return f"available input devices: {names}. Choose one in the settings"


def find_input_device(devices: list[InputDevice], wanted: str | int | None) -> InputDevice | None:
    """The device called ``wanted`` (exact name first, then ignoring the ALSA
    card position, then a unique case-insensitive part), an index, or the
    default for None. None when there is no match."""
    if wanted is None:
        return next((d for d in devices if d.is_default), None)
    if isinstance(wanted, int):
        return next((d for d in devices if d.index == wanted), None)
    for same in (
        lambda d: d.name == wanted,
        lambda d: _ALSA_SUFFIX.sub("", d.name) == _ALSA_SUFFIX.sub("", wanted),
    ):
        matches = [d for d in devices if same(d)]
        if matches:  # the same name on several host APIs: prefer the default's
            return next((d for d in matches if d.is_default), matches[0])
    partial = [d for d in devices if wanted.lower() in d.name.lower()]
    return partial[0] if len(partial) == 1 else None


def refresh_portaudio() -> None:
    """Make PortAudio re-read the device list (see the module docstring)."""
    sd._terminate()
    sd._initialize()


class MicrophoneSource(AudioSource):
    """Capture from an input device, delivering 16 kHz mono int16 chunks."""

    def __init__(
        self,
        device: str | int | None = None,
        queue_chunks: int = 50,
        block_seconds: float = 0.1,
        on_event: EventCallback | None = None,
        stream_factory: Callable = sd.InputStream,
        query_devices: Callable = sd.query_devices,
        query_hostapis: Callable = sd.query_hostapis,
        rescan: Callable[[], None] | None = None,
        retry_seconds: float = 1.0,
        stall_seconds: float = 5.0,
    ):
        label = (
            device
            if isinstance(device, str)
            else ("default microphone" if device is None else f"input device #{device}")
        )
        super().__init__(label, on_event)
        self.device = device
        self.block_seconds = block_seconds
        self.retry_seconds = retry_seconds
        self.stall_seconds = stall_seconds
        self._stream_factory = stream_factory
        self._query_devices = query_devices
        self._query_hostapis = query_hostapis
        # Rescanning only makes sense against the real PortAudio; injected
        # query functions already see the current devices.
        if rescan is None and query_devices is sd.query_devices:
            rescan = refresh_portaudio
        self._rescan = rescan or (lambda: None)
        self._queue: queue.Queue = queue.Queue(maxsize=queue_chunks)
        self._stream = None
        self._rate = 0.0  # rate of the open stream; tags every chunk
        self._generation = 0  # tells a stale stream's finished_callback apart
        self._lost = threading.Event()
        self._last_audio = 0.0
        self._resampler: Resampler | None = None
        self._stop_watch = threading.Event()
        self._watcher: threading.Thread | None = None
        self._lock = threading.Lock()  # guards _stream against stop() vs the watcher
        self._started = False
        self.current_device: InputDevice | None = None

    # -- the real-time callback: copy, count, nothing else ---------------------------
    def _callback(self, indata: np.ndarray, frames: int, time_info, status) -> None:
        if status.input_overflow:
            self._overflows += 1
        self._last_audio = time.monotonic()
        try:
            self._queue.put_nowait((self._rate, indata.copy()))
        except queue.Full:
            self._dropped += 1

    def _finished_callback(self, generation: int) -> None:
        # PortAudio calls this when a stream ends; unless we ended it, the device went away.
        if generation == self._generation and not self._stop_watch.is_set():
            self._lost.set()

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> MicrophoneSource:
        if self._started:
            return self
        with self._lock:
            self._open(self._resolve())
        self._started = True
        self._stop_watch.clear()
        self._watcher = threading.Thread(target=self._watch, name=f"mic-watch {self.name}", daemon=True)
        self._watcher.start()
        return self

    def read(self, timeout: float) -> np.ndarray | None:
        """The next converted chunk. After ``stop()`` the chunks captured before it are still
        handed out, then the resampler's tail, and then None."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                rate, raw = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None if self._started else self._tail()
            if self._resampler is None or self._resampler.in_rate != rate:
                self._resampler = Resampler(rate)  # a reopened device may run at a new rate
            out = self._resampler.process(raw)
            if out.size:  # soxr holds back its first few samples
                self._report_overruns()
                return out

    def _tail(self) -> np.ndarray | None:
        """The resampler's last samples once everything captured was read; it then lets go of
        its native state (``Resampler.close``)."""
        resampler, self._resampler = self._resampler, None
        if resampler is None:
            return None
        out = resampler.flush()
        resampler.close()
        return out if out.size else None

    def close(self) -> None:
        """Stop, and drop what was captured but not read."""
        self.stop()
        while self._queue.qsize():
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._tail()

    def stop(self) -> None:
        self._stop_watch.set()
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join(timeout=5)
        self._watcher = None
        with self._lock:
            self._close_stream()
        if self._started:
            self._report_overruns(force=True)  # the last losses must not go unreported
        self._started = False

    # -- device handling --------------------------------------------------------------
    def _resolve(self) -> InputDevice:
        try:
            devices = list_input_devices(self._query_devices, self._query_hostapis)
        except sd.PortAudioError as e:
            raise AudioError(f"cannot list audio input devices: {e}") from e
        found = find_input_device(devices, self.device)
        if found is None:
            what = (
                "there is no default microphone"
                if self.device is None
                else f"microphone {self.device!r} was not found"
            )
            raise AudioError(f"{what}; {_describe(devices)}.")
        return found

    def _open(self, dev: InputDevice) -> None:
        """Open ``dev`` at 16 kHz if it can, else at its own rate (resampled in
        read()); mono if it can, else with all its channels (averaged)."""
        attempts = [(SAMPLE_RATE, 1), (dev.default_samplerate, 1), (dev.default_samplerate, dev.channels)]
        self._generation += 1
        error: Exception | None = None
        for rate, channels in dict.fromkeys(attempts):
            try:
                stream = self._stream_factory(
                    samplerate=rate,
                    channels=channels,
                    dtype="float32",
                    device=dev.index,
                    blocksize=max(1, round(rate * self.block_seconds)),
                    callback=self._callback,
                    finished_callback=functools.partial(self._finished_callback, self._generation),
                )
            except (sd.PortAudioError, ValueError) as e:  # unsupported rate/channels
                error = e
                continue
            self._rate = float(rate)
            self._lost.clear()
            self._last_audio = time.monotonic()
            try:
                stream.start()
            except sd.PortAudioError as e:
                stream.close()
                raise AudioError(
                    f"cannot start microphone {dev.name!r}: {e}. Is another program using it exclusively?"
                ) from e
            self._stream, self.current_device, self._name = stream, dev, dev.name
            return
        raise AudioError(
            f"microphone {dev.name!r} refused every format tried "
            f"(16 kHz or {dev.default_samplerate:g} Hz): {error}"
        )

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        for action in (stream.abort, stream.close):  # abort: don't wait for buffers
            try:
                action()
            except Exception as e:  # a vanished device may refuse politely or not
                log.debug("closing input stream: %s", e)

    def _stream_broken(self) -> bool:
        if self._lost.is_set():
            return True
        try:
            if not self._stream.active:
                return True
        except Exception:
            return True
        return time.monotonic() - self._last_audio > self.stall_seconds

    def _watch(self) -> None:
        next_try = 0.0
        while not self._stop_watch.wait(_WATCH_INTERVAL):
            self._report_overruns()
            with self._lock:
                if self._stop_watch.is_set():
                    return
                if self._stream is not None:
                    if self._stream_broken():
                        self._close_stream()
                        self._emit(
                            "device_lost",
                            f"microphone {self.name!r} stopped "
                            "delivering audio (unplugged?); waiting for it to return",
                        )
                        next_try = time.monotonic() + self.retry_seconds
                elif time.monotonic() >= next_try:
                    next_try = time.monotonic() + self.retry_seconds
                    if self._try_reopen():
                        self._emit("device_back", f"microphone {self.name!r} is back")

    def _try_reopen(self) -> bool:
        wanted = self.device  # a name stays a name; None follows the current default
        if isinstance(wanted, int) and self.current_device is not None:
            wanted = self.current_device.name  # an index is stale after replugging
        try:
            self._rescan()
            devices = list_input_devices(self._query_devices, self._query_hostapis)
            dev = find_input_device(devices, wanted)
            if dev is None:
                return False
            self._open(dev)
            return True
        except (AudioError, sd.PortAudioError) as e:
            log.debug("microphone %r not back yet: %s", self.name, e)
            return False
