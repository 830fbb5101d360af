"""The contract every audio source honours, and the pieces they share.

Whatever a file, microphone or sound server delivers (any rate, any channel
count, any sample type), a source hands out 16 kHz mono int16 numpy chunks:
that is what the recognizers want, so converting once, here, keeps every
consumer simple.

Threading: a live source's producer (a PortAudio callback, a pipe reader) only
copies raw chunks into a bounded queue and bumps counters; conversion happens
in ``read()`` on the consumer's thread, and events are emitted from threads
that may block (never from the audio callback).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import soxr

from engine.audio import SAMPLE_RATE

log = logging.getLogger(__name__)

EventKind = Literal["overrun", "device_lost", "device_back", "error", "finished"]
# Events are rare (losses, overrun summaries); a small bound is plenty, and
# an app that never drains the queue must not grow without limit.
EVENT_QUEUE_SIZE = 64
# Overrun events summarise; one a second is enough to tell a user, more is spam.
OVERRUN_REPORT_INTERVAL = 1.0


@dataclass(frozen=True)
class SourceEvent:
    kind: EventKind
    message: str


class AudioError(Exception):
    """An audio problem the user can act on; the message says what and how."""


EventCallback = Callable[[SourceEvent], None]


class AudioSource(ABC):
    """Start it, ``read()`` 16 kHz mono int16 chunks until done, ``stop()`` it.

    ``read(timeout)`` returns ``None`` when nothing arrived within ``timeout``
    seconds (or at once, when ``finished``). Events go both to ``events`` (a
    bounded queue, oldest dropped when full) and to ``on_event`` if set; the
    callback runs on whichever source thread noticed the event.
    """

    sample_rate = SAMPLE_RATE
    # One line about the source itself, for the user before it plays (a file cut short); a source
    # with nothing to say about itself leaves it None.
    warning: str | None = None

    def __init__(self, name: str, on_event: EventCallback | None = None):
        self._name = name
        self.on_event = on_event
        self.events: queue.Queue[SourceEvent] = queue.Queue(maxsize=EVENT_QUEUE_SIZE)
        # Written only by the producer thread (a single writer, so no lock is
        # needed for the increments); read by anyone.
        self._dropped = 0  # chunks lost because our bounded queue was full
        self._overflows = 0  # chunks the driver itself reported as lost
        self._reported = 0
        self._last_report = float("-inf")
        self._report_lock = threading.Lock()
        self._finished = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def overruns(self) -> int:
        """Chunks of audio lost so far, whoever lost them."""
        return self._dropped + self._overflows

    @property
    def finished(self) -> bool:
        """True once a source with an end (a file) has handed out everything."""
        return self._finished

    @property
    def duration(self) -> float | None:
        """Seconds of audio in a source with an end (a file); None for a live one."""
        return None

    @abstractmethod
    def start(self) -> AudioSource: ...

    @abstractmethod
    def read(self, timeout: float) -> np.ndarray | None: ...

    @abstractmethod
    def stop(self) -> None:
        """Stop producing audio; safe to call twice, or before start()."""

    def close(self) -> None:
        self.stop()

    def __enter__(self) -> AudioSource:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- helpers for subclasses --------------------------------------------------
    def _emit(self, kind: EventKind, message: str) -> None:
        event = SourceEvent(kind, message)
        while True:
            try:
                self.events.put_nowait(event)
                break
            except queue.Full:
                try:  # keep the newest: a stale event is worth less than a fresh one
                    self.events.get_nowait()
                except queue.Empty:
                    pass
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # a faulty subscriber must not kill the capture thread
                log.exception("audio event callback failed")

    def _report_overruns(self, force: bool = False) -> None:
        """Turn the producer's silent counters into an "overrun" event."""
        with self._report_lock:
            total = self.overruns
            now = time.monotonic()
            if total <= self._reported:
                return
            if not force and now - self._last_report < OVERRUN_REPORT_INTERVAL:
                return
            new, self._reported, self._last_report = total - self._reported, total, now
        self._emit(
            "overrun",
            f"{self.name}: {new} audio chunk(s) lost because captioning "
            f"fell behind ({total} in total); captions may skip words. Close other "
            "busy programs or choose a smaller model.",
        )


# -- sample conversion ---------------------------------------------------------------
def to_mono_float(chunk: np.ndarray) -> np.ndarray:
    """Any sample type, (frames,) or (frames, channels), to mono float32 in [-1, 1]."""
    x = np.asarray(chunk)
    kind = x.dtype.kind
    if kind == "f":
        x = x.astype(np.float32, copy=False)
    elif kind == "i":
        x = x.astype(np.float32) * np.float32(1.0 / (1 << (8 * x.dtype.itemsize - 1)))
    elif kind == "u":  # unsigned PCM (8-bit WAV) is centred on half scale
        half = 1 << (8 * x.dtype.itemsize - 1)
        x = (x.astype(np.float32) - np.float32(half)) * np.float32(1.0 / half)
    else:
        raise TypeError(f"cannot convert {x.dtype} audio samples")
    if x.ndim == 2:
        # Averaging keeps the level of correlated channels and never clips.
        x = x[:, 0] if x.shape[1] == 1 else x.mean(axis=1, dtype=np.float32)
    elif x.ndim != 1:
        raise ValueError(f"audio chunk must be (frames,) or (frames, channels), not {x.shape}")
    return np.ascontiguousarray(x, dtype=np.float32)


def float_to_int16(x: np.ndarray) -> np.ndarray:
    """Scale by 32768 and clip, so a full-scale (or overshooting) sample saturates
    instead of wrapping round to the opposite sign."""
    y = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0) * np.float32(32768.0)
    return np.clip(np.rint(y), -32768, 32767).astype(np.int16)


class Resampler:
    """Streaming conversion of one continuous stream to 16 kHz mono int16.

    Stateful (soxr keeps filter history between chunks, so chunk borders leave
    no clicks): feed the chunks of ONE stream in order, then ``flush()`` to get
    the filter's tail. Output lengths vary per chunk (the first few may be
    empty); only the totals add up.
    """

    def __init__(self, in_rate: float, out_rate: int = SAMPLE_RATE, quality: str = "HQ"):
        if in_rate <= 0:
            raise ValueError(f"sample rate must be positive, not {in_rate}")
        self.in_rate = float(in_rate)
        self.out_rate = out_rate
        # At the target rate soxr would only add delay; pass samples straight through.
        self._stream = (
            None
            if self.in_rate == out_rate
            else soxr.ResampleStream(self.in_rate, out_rate, 1, dtype="float32", quality=quality)
        )
        self._closed = False

    def process(self, chunk: np.ndarray, last: bool = False) -> np.ndarray:
        if self._closed:
            raise RuntimeError("the resampler was closed")
        mono = to_mono_float(chunk)
        if self._stream is not None:
            mono = self._stream.resample_chunk(mono, last=last)
        return float_to_int16(mono)

    def flush(self) -> np.ndarray:
        return self.process(np.zeros(0, np.float32), last=True)

    def close(self) -> None:
        """Let go of soxr's native state now. A source still referenced when the process ends
        (from a thread that has not finished) would otherwise keep it past the binding's
        shutdown, which then reports it as leaked on stderr."""
        self._stream, self._closed = None, True
