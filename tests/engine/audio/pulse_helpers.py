"""What the tests against a private PulseAudio server share: tones, and collecting a source's audio.

``LIVECAP_TEST_SOUND_SERVER=pipewire`` runs the tests that use ``pulse_server`` against a private
PipeWire (pipewire-pulse) instead, the same sinks and streams (``engine.evaluation.pulse_server``).
"""

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from engine.evaluation.pipewire_server import SERVERS, sound_server
from engine.evaluation.pulse_server import PulseServerError, missing_tools

SR = 16_000


def tone(freq: float, seconds: float = 2.0, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    return (level * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def band_energy(audio: np.ndarray, freq: float, width: float = 30.0) -> float:
    """Energy of ``audio`` within ``width`` Hz of ``freq``."""
    x = audio.astype(np.float64)
    spectrum = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(len(x), 1 / SR)
    return float(spectrum[np.abs(freqs - freq) <= width].sum())


def level_db(audio: np.ndarray) -> float:
    x = audio.astype(np.float64)
    return float(10 * np.log10(np.mean(x * x) + 1e-9))


def collect(source, samples: int, limit: float = 30.0) -> np.ndarray:
    """Read ``source`` until ``samples`` samples came (``limit`` seconds at most, a safety net)."""
    chunks, total, deadline = [], 0, time.monotonic() + limit
    while total < samples and time.monotonic() < deadline:
        chunk = source.read(0.2)
        if chunk is not None:
            chunks.append(chunk)
            total += len(chunk)
    audio = np.concatenate(chunks) if chunks else np.zeros(0, np.int16)
    return audio[:samples]


def collect_together(sources: dict, samples: int, limit: float = 60.0) -> dict:
    """``collect`` several sources at once, each on its own thread."""
    got = {}

    def run(key):
        got[key] = collect(sources[key], samples, limit)

    threads = [threading.Thread(target=run, args=(key,)) for key in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got


def drain(source) -> None:
    while source.read(0.0) is not None:
        pass


SOUND_SERVER = os.environ.get("LIVECAP_TEST_SOUND_SERVER", "pulseaudio")


def pulse_server(sinks):
    """A started private sound server (``PulseServer``, or ``PipeWireServer`` when
    LIVECAP_TEST_SOUND_SERVER=pipewire) for a fixture, or a skip with one line when the tools are
    missing."""
    if SOUND_SERVER not in SERVERS:
        pytest.fail(f"LIVECAP_TEST_SOUND_SERVER={SOUND_SERVER!r}: choose one of {', '.join(SERVERS)}")
    kind = SERVERS[SOUND_SERVER]
    missing = missing_tools(kind.required_tools)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed ({kind.install_hint})")
    try:
        return sound_server(SOUND_SERVER, sinks=sinks).start()
    except PulseServerError as e:
        pytest.fail(str(e))


def parec_children() -> list[int]:
    """Process ids of parec processes that are children of this test process."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            comm, ppid = fields[0].split("(", 1)[1], int(fields[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if comm == "parec" and ppid == os.getpid():
            found.append(int(stat.parent.name))
    return found
