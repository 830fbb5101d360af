"""SystemAudioSource against a REAL PulseAudio daemon started here.

The daemon (``engine.evaluation.pulse_server``) gets its own runtime/state/home
directories and socket, loads only the native protocol (anonymous auth) and a
null sink, so it touches nothing of the machine's sound setup and needs no
sound hardware. Speech from
espeak-ng is played into the null sink with paplay and recorded from its
monitor, exactly as a meeting would be.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.audio.base import AudioError
from engine.audio.file_source import read_all
from engine.audio.microphone import MicrophoneSource, list_input_devices, refresh_portaudio
from engine.audio.system_audio import (
    SystemAudioSource,
    _parse_short_sources,
    default_monitor,
    list_monitor_sources,
)

from .pulse_helpers import parec_children, pulse_server

SR = 16_000
SINK = "livecap_test"


def _pactl(*args, check=True):
    return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10, check=check).stdout


@pytest.fixture(scope="module")
def pulse():
    server = pulse_server([SINK])  # PulseAudio, or PipeWire with LIVECAP_TEST_SOUND_SERVER=pipewire
    try:
        yield server.root
    finally:
        server.close()


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    path = tmp_path_factory.mktemp("speech") / "speech.wav"
    if shutil.which("espeak-ng"):
        subprocess.run(["espeak-ng", "-w", str(path), "Live captions, please."], check=True, timeout=20)
    else:  # the capture path is the same for any sound
        t = np.arange(int(1.5 * 22050)) / 22050
        sf.write(path, 0.5 * np.sin(2 * np.pi * 440 * t), 22050)
    return path


def active_span(audio, threshold=300):
    loud = np.flatnonzero(np.abs(audio.astype(np.int32)) > threshold)
    return (loud[-1] - loud[0]) / SR if len(loud) else 0.0


@pytest.mark.needs_pulse
def test_list_monitor_sources_finds_the_null_sink_monitor(pulse):
    monitors = list_monitor_sources()
    mine = [m for m in monitors if m.name == f"{SINK}.monitor"]
    assert mine and mine[0].sink == SINK
    short = _parse_short_sources(_pactl("list", "short", "sources"))
    assert f"{SINK}.monitor" in [m.name for m in short]
    assert default_monitor() == f"{SINK}.monitor"


@pytest.fixture(scope="module")
def recording(pulse, speech):
    """Play the speech once into the null sink while recording it two ways at
    once: SystemAudioSource on the default sink's monitor, and MicrophoneSource
    through the real PortAudio (its ALSA backend reaches this daemon via the
    ALSA "pulse" plugin, whose default source is that same monitor)."""
    refresh_portaudio()  # PortAudio listed devices before the daemon existed
    system = SystemAudioSource(None).start()
    mic = MicrophoneSource("pulse").start() if "pulse" in [d.name for d in list_input_devices()] else None
    sources = {"system": system, "mic": mic}
    chunks = {key: [] for key in sources}
    done = threading.Event()

    def drain(key):
        while not done.is_set():
            chunk = sources[key].read(0.1)
            if chunk is not None:
                chunks[key].append(chunk)

    readers = [threading.Thread(target=drain, args=(k,)) for k, v in sources.items() if v]
    for t in readers:
        t.start()
    parec_pid = system.pid
    try:
        subprocess.run(["paplay", f"--device={SINK}", str(speech)], check=True, timeout=30)
        time.sleep(0.5)  # the last of it, through the capture latency
    finally:
        done.set()
        for t in readers:
            t.join()
        for src in sources.values():
            if src:
                src.stop()
    audio = {k: np.concatenate(v) if v else None for k, v in chunks.items()}
    return dict(audio=audio, sources=sources, parec_pid=parec_pid, played=read_all(speech))


@pytest.mark.slow
@pytest.mark.needs_pulse
def test_system_audio_captures_what_the_sink_plays_and_stops_cleanly(recording):
    src, audio = recording["sources"]["system"], recording["audio"]["system"]
    assert src.name == f"{SINK}.monitor"  # the default sink's monitor
    assert audio.dtype == np.int16 and audio.ndim == 1
    assert np.abs(audio.astype(np.int32)).max() > 2000, "captured only silence"
    assert active_span(audio) == pytest.approx(active_span(recording["played"]), abs=0.3)
    assert src.overruns == 0
    src.stop()  # idempotent
    assert not Path(f"/proc/{recording['parec_pid']}").exists() and parec_children() == []


@pytest.mark.slow
@pytest.mark.needs_pulse
def test_microphone_source_through_real_portaudio(recording):
    """The real sounddevice callback path, with no stand-ins at all."""
    src, audio = recording["sources"]["mic"], recording["audio"]["mic"]
    if src is None:
        pytest.skip("PortAudio sees no ALSA 'pulse' device (libasound2-plugins missing)")
    assert src._rate == 16000  # PulseAudio takes any rate: no resampling needed
    assert audio.dtype == np.int16 and np.abs(audio.astype(np.int32)).max() > 2000
    assert active_span(audio) == pytest.approx(active_span(recording["played"]), abs=0.3)
    assert src.overruns == 0


@pytest.mark.needs_pulse
def test_monitor_lost_and_back(pulse):
    module = _pactl("load-module", "module-null-sink", "sink_name=livecap_tmp").strip()
    src = SystemAudioSource("livecap_tmp.monitor", retry_seconds=0.2, check_seconds=0.3).start()
    try:
        # An idle sink sends nothing; the source turns that into silence.
        idle = src.read(3.0)
        assert idle is not None and not idle.any()
        # The server would move our recording to another source; the source
        # must notice the monitor is gone instead of recording that.
        _pactl("unload-module", module)
        event = src.events.get(timeout=5)
        assert event.kind == "device_lost" and "livecap_tmp.monitor" in event.message
        assert "removed" in event.message
        module = _pactl("load-module", "module-null-sink", "sink_name=livecap_tmp").strip()
        event = src.events.get(timeout=5)
        assert event.kind == "device_back"
        while src.read(0.0) is not None:  # anything captured before the loss
            pass
        assert src.read(3.0) is not None
    finally:
        src.stop()
        _pactl("unload-module", module, check=False)
    assert parec_children() == []


@pytest.mark.needs_pulse
def test_ctrl_c_in_the_terminal_reaches_livecap_not_its_parec(pulse):
    """A terminal's Ctrl-C goes to its whole foreground process group. parec dying with it cut off
    the audio it still held and said "device lost" while livecap was settling its last words:
    parec runs in a session of its own, and livecap ends it itself when it stops."""
    src = SystemAudioSource(f"{SINK}.monitor").start()
    try:
        assert src.read(3.0) is not None
        parec = src.pid
        assert os.getsid(parec) == parec != os.getsid(0)
        os.kill(parec, 0)  # still running
    finally:
        src.stop()
    assert not Path(f"/proc/{parec}").exists() and parec_children() == []


@pytest.mark.needs_pulse
def test_unknown_monitor_lists_the_available_ones(pulse):
    with pytest.raises(AudioError) as info:
        SystemAudioSource("headset.monitor").start()
    assert "'headset.monitor' was not found" in str(info.value)
    assert f"'{SINK}.monitor'" in str(info.value)


def test_no_server_gives_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-such-socket")
    if not shutil.which("pactl"):
        pytest.skip("pactl not installed")
    with pytest.raises(AudioError, match="no PulseAudio or PipeWire sound server is running") as started:
        SystemAudioSource(None).start()
    with pytest.raises(AudioError, match="no PulseAudio or PipeWire") as listed:
        list_monitor_sources()
    for message in (str(started.value), str(listed.value)):  # one line, and the way out in it
        assert "\n" not in message and "systemctl --user start pipewire-pulse" in message, message
        assert "(Connection failure: Connection refused)." in message, message


def test_no_server_is_one_line_from_the_command_line(tmp_path):
    if not shutil.which("pactl"):
        pytest.skip("pactl not installed")
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path}/no-such-socket", "LIVECAP_DATA_DIR": str(tmp_path)}
    run = [sys.executable, "-m", "engine.cli", "devices"]
    devices = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60)
    (line,) = [line for line in devices.stdout.splitlines() if "unavailable:" in line]
    assert "pulseaudio --start" in line and line.rstrip().endswith("or check PULSE_SERVER")
    listen = subprocess.run(run[:-1] + ["listen", "--source", "system"], capture_output=True, text=True,
                            env=env, timeout=120)  # fmt: skip
    errors = [line for line in listen.stderr.splitlines() if "sound server" in line]
    assert listen.returncode != 0 and len(errors) == 1 and errors[0].endswith("or check PULSE_SERVER")


def test_missing_tools_give_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing to run
    with pytest.raises(AudioError, match="parec was not found; install the PulseAudio client"):
        SystemAudioSource("x.monitor").start()
    with pytest.raises(AudioError, match="pactl was not found"):
        list_monitor_sources()


@pytest.mark.parametrize("platform,advice", [("win32", "VB-CABLE"), ("darwin", "BlackHole")])
def test_other_platforms_say_what_to_do(monkeypatch, platform, advice):
    monkeypatch.setattr(sys, "platform", platform)
    with pytest.raises(AudioError, match=advice):
        SystemAudioSource()
