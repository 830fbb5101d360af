"""MicrophoneSource: the real callback, queue, resampler and watcher, driven by
a stand-in for PortAudio (there is no sound hardware here).

FakeHardware plays PortAudio's part: a device list whose indices shift when
devices come and go, and streams that refuse unsupported rates/channels and
call the real callback from their own thread with a generated sine, in the
shape and type PortAudio uses (float32 frames x channels, CallbackFlags).
"""

import queue
import threading
import time

import numpy as np
import pytest
import sounddevice as sd

from engine.audio.base import AudioError
from engine.audio.microphone import InputDevice, MicrophoneSource, find_input_device, list_input_devices

SR = 16_000
FREQ = 440.0


class FakeStream:
    def __init__(self, hw, dev, samplerate, channels, dtype, device, blocksize, callback, finished_callback):
        self.hw, self.dev, self.rate, self.channels = hw, dev, samplerate, channels
        self.blocksize, self.callback, self.finished_callback = blocksize, callback, finished_callback
        self.device_index = device
        self._running = threading.Event()
        self._dead = False
        self._silent = False  # "dead" but still claiming to be active (a hung driver)
        self._thread = None
        self.phase = 0

    @property
    def active(self):
        return self._running.is_set() and (not self._dead or self._silent)

    def start(self):
        if not self.hw.present[self.dev["name"]]:
            raise sd.PortAudioError("Device unavailable", -9985)
        self._running.set()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        period = self.blocksize / self.rate / self.hw.speed
        while self._running.is_set() and not self._dead:
            t = (self.phase + np.arange(self.blocksize)) / self.rate
            block = (0.5 * np.sin(2 * np.pi * FREQ * t)).astype(np.float32)
            self.phase += self.blocksize
            indata = np.repeat(block[:, None], self.channels, axis=1)
            flags = sd.CallbackFlags(2 if self.hw.overflow_next else 0)  # paInputOverflow
            self.hw.overflow_next = False
            self.callback(indata, self.blocksize, None, flags)
            time.sleep(period)
        if self._dead and not self._silent:
            self._running.clear()
            self.finished_callback()  # what PortAudio does after a host error

    def die(self, mode):
        self._silent = mode == "stall"
        if mode == "inactive":  # stops and goes inactive without telling anyone
            self._running.clear()
            self._dead = True
            return
        self._dead = True

    def abort(self):
        was_running = self._running.is_set()
        self._running.clear()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if was_running:
            self.finished_callback()

    stop = abort

    def close(self):
        self.abort()
        self.hw.closed.append(self)


class FakeHardware:
    """PortAudio's device list and streams, for two input devices and a speaker."""

    def __init__(self, speed=4.0):
        self.speed = speed
        self.devices = [
            dict(
                name="Built-in Mic",
                max_input_channels=1,
                default_samplerate=16000.0,
                rates={16000, 44100},
                min_channels=1,
            ),
            dict(
                name="Speakers",
                max_input_channels=0,
                default_samplerate=48000.0,
                rates={48000},
                min_channels=2,
            ),
            dict(
                name="USB Mic",
                max_input_channels=2,
                default_samplerate=48000.0,
                rates={48000},
                min_channels=2,
            ),  # stereo-only, 48 kHz-only
        ]
        self.present = {d["name"]: True for d in self.devices}
        self.default = "Built-in Mic"
        self.streams, self.closed, self.attempts = [], [], []
        self.overflow_next = False

    def _listed(self):
        listed = [d for d in self.devices if self.present[d["name"]]]
        # Indices are positions in the current list: they shift on (un)plugging.
        return [dict(d, index=i, hostapi=0) for i, d in enumerate(listed)]

    def query_devices(self, device=None, kind=None):
        listed = self._listed()
        if kind == "input":
            match = [d for d in listed if d["name"] == self.default]
            if not match:
                raise sd.PortAudioError("Error querying device -1")
            return match[0]
        return listed

    def query_hostapis(self, index):
        return {"name": "ALSA"}

    def input_stream(self, *, samplerate, channels, dtype, device, blocksize, callback, finished_callback):
        listed = self._listed()
        dev = next((d for d in listed if d["index"] == device), None)
        self.attempts.append((dev and dev["name"], samplerate, channels))
        if dev is None:
            raise sd.PortAudioError("Invalid device", -9996)
        if samplerate not in dev["rates"]:
            raise sd.PortAudioError("Invalid sample rate", -9997)
        if not dev["min_channels"] <= channels <= dev["max_input_channels"]:
            raise sd.PortAudioError("Invalid number of channels", -9998)
        assert dtype == "float32"
        stream = FakeStream(
            self, dev, samplerate, channels, dtype, device, blocksize, callback, finished_callback
        )
        self.streams.append(stream)
        return stream

    def unplug(self, name, mode="finished"):
        self.present[name] = False
        for s in self.streams:
            if s.dev["name"] == name:
                s.die(mode)

    def replug(self, name):
        self.present[name] = True


def make_source(hw, device, **kw):
    kw.setdefault("retry_seconds", 0.1)
    return MicrophoneSource(
        device,
        stream_factory=hw.input_stream,
        query_devices=hw.query_devices,
        query_hostapis=hw.query_hostapis,
        **kw,
    )


def collect(src, seconds, timeout=2.0):
    """At least ``seconds`` of 16 kHz audio from ``src``."""
    chunks, total, deadline = [], 0, time.monotonic() + timeout + seconds * 2
    while total < seconds * SR:
        assert time.monotonic() < deadline, "audio stopped arriving"
        c = src.read(0.5)
        if c is not None:
            chunks.append(c)
            total += len(c)
    return np.concatenate(chunks)


def wait_event(src, kind, timeout=3.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            event = src.events.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"no {kind!r} event within {timeout} s")
        if event.kind == kind:
            return event


def peak_hz(x):
    spectrum = np.abs(np.fft.rfft(x.astype(np.float64) * np.hanning(len(x))))
    return np.argmax(spectrum) * SR / len(x)


def test_list_input_devices_marks_the_default_and_skips_outputs():
    hw = FakeHardware()
    devices = list_input_devices(hw.query_devices, hw.query_hostapis)
    assert [d.name for d in devices] == ["Built-in Mic", "USB Mic"]
    assert devices[0] == InputDevice("Built-in Mic", 0, 16000.0, 1, "ALSA", True)
    assert devices[1].index == 2 and not devices[1].is_default


def test_48k_stereo_device_is_resampled_to_16k_mono():
    hw = FakeHardware()
    with make_source(hw, "USB Mic") as src:
        audio = collect(src, 1.0)
        assert src.name == "USB Mic"
    # 16 kHz mono refused, then 48 kHz mono refused, then 48 kHz stereo.
    assert hw.attempts == [("USB Mic", 16000, 1), ("USB Mic", 48000.0, 1), ("USB Mic", 48000.0, 2)]
    assert audio.dtype == np.int16 and audio.ndim == 1
    body = audio[1000:]
    assert peak_hz(body) == pytest.approx(FREQ, abs=3)
    assert np.sqrt(np.mean(body.astype(float) ** 2)) == pytest.approx(0.5 / np.sqrt(2) * 32768, rel=0.03)
    assert src.overruns == 0


def test_16k_device_passes_samples_through_unchanged():
    hw = FakeHardware()
    with make_source(hw, None) as src:  # the default: Built-in Mic, 16 kHz capable
        audio = collect(src, 0.5)
    assert hw.attempts == [("Built-in Mic", 16000, 1)]
    t = np.arange(len(audio)) / SR
    expected = np.rint(0.5 * np.sin(2 * np.pi * FREQ * t).astype(np.float32) * 32768)
    assert np.abs(audio - expected).max() <= 1


def test_slow_reader_counts_overruns_and_reports_them():
    hw = FakeHardware(speed=20.0)
    events = []
    src = make_source(hw, "Built-in Mic", queue_chunks=4, on_event=events.append).start()
    hw.overflow_next = True  # the driver lost a block too
    time.sleep(0.4)  # a reader that fell behind
    assert src.overruns > 0
    overrun = wait_event(src, "overrun")
    assert "lost" in overrun.message and "Built-in Mic" in overrun.message
    assert collect(src, 0.2) is not None  # reading catches up
    src.stop()
    lost = src.overruns
    assert lost >= src._overflows + 1 and src._overflows == 1
    # stop() reports the last losses: the final event's total matches the count.
    assert f"({lost} in total)" in [e for e in events if e.kind == "overrun"][-1].message


@pytest.mark.parametrize("mode", ["finished", "inactive", "stall"])
def test_device_lost_then_back_resumes_capture(mode):
    hw = FakeHardware()
    rescans = []
    src = make_source(hw, "USB Mic", stall_seconds=0.3, rescan=lambda: rescans.append(1))
    src.start()
    collect(src, 0.2)
    hw.unplug("USB Mic", mode)
    lost = wait_event(src, "device_lost")
    assert "USB Mic" in lost.message
    while src.read(0.05) is not None:  # what was captured before the loss
        pass
    assert src.read(0.3) is None  # nothing while it is gone
    hw.present["Speakers"] = False  # indices shift: the name must still find it
    hw.replug("USB Mic")
    wait_event(src, "device_back")
    assert rescans, "the device list was not rescanned before reopening"
    audio = collect(src, 0.3)
    assert peak_hz(audio[1000:]) == pytest.approx(FREQ, abs=6)
    assert hw.streams[-1].device_index == 1  # reopened at its new index
    src.stop()
    src.stop()  # idempotent
    assert all(not s.active for s in hw.streams)


def test_device_chosen_by_name_and_missing_name_lists_devices():
    hw = FakeHardware()
    with make_source(hw, "USB Mic") as src:
        collect(src, 0.1)
        assert src.current_device.index == 2
    with pytest.raises(AudioError) as info:
        make_source(hw, "Conference Mic").start()
    message = str(info.value)
    assert "'Conference Mic' was not found" in message
    assert "'Built-in Mic' (default)" in message and "'USB Mic'" in message
    assert "Speakers" not in message  # not an input


def test_no_devices_at_all_says_what_to_do():
    hw = FakeHardware()
    for name in hw.present:
        hw.present[name] = False
    with pytest.raises(AudioError, match="no input devices were found: plug in a microphone"):
        make_source(hw, None).start()


def test_name_matching_survives_alsa_renumbering():
    devices = [
        InputDevice("USB Audio: - (hw:2,0)", 3, 48000.0, 2, "ALSA", False),
        InputDevice("HDA Intel PCH: ALC257 Analog (hw:0,0)", 0, 44100.0, 2, "ALSA", True),
    ]
    assert find_input_device(devices, "USB Audio: - (hw:1,0)").index == 3
    assert find_input_device(devices, "alc257").index == 0  # unique part
    assert find_input_device(devices, "(hw:") is None  # ambiguous part
    assert find_input_device(devices, None).index == 0
    assert find_input_device(devices, 3).name.startswith("USB")


def test_stop_before_start_and_threads_end():
    hw = FakeHardware()
    src = make_source(hw, None)
    src.stop()  # harmless before start
    before = threading.active_count()
    src.start()
    collect(src, 0.1)
    src.stop()
    time.sleep(0.05)
    assert threading.active_count() <= before


def test_after_stop_the_captured_audio_and_the_resamplers_tail_are_handed_out_then_none():
    """What a microphone captured before stop() is still recognized (the session drains it): every
    sample, the resampler's last ones included; then the resampler lets go of its native state."""
    hw = FakeHardware(speed=8.0)
    src = make_source(hw, "USB Mic")  # 48 kHz: resampled
    src.start()
    got = [collect(src, 0.3)]
    src.stop()
    while (chunk := src.read(0)) is not None:
        got.append(chunk)
    captured = sum(s.phase for s in hw.streams)  # frames the device delivered, at 48 kHz
    assert abs(sum(len(c) for c in got) - captured / 3) <= 2
    assert src.read(0) is None
