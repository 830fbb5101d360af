"""The server's echo canceller, against a REAL private PulseAudio daemon.

The staging: the meeting ("Zoom") plays into the null sink ``others`` (the speakers); the
monitor of a second null sink, ``mic``, is the microphone; module-loopback carries what the
speakers play into the microphone 10 dB down and about 60 ms late, as a room would. The echo
attenuation (ERLE) is the microphone's level over the echo-cancelled source's level while only
the far end speaks.
"""

import shutil
import subprocess

import pytest
import soundfile as sf

from engine.audio.applications import list_applications
from engine.audio.echo_cancel import MODULE, EchoCanceller, EchoCancelUnavailable
from engine.audio.pulse import server_default, source_names
from engine.audio.system_audio import SystemAudioSource

from .pulse_helpers import SR, collect_together, drain, level_db, pulse_server

OTHERS, MIC = "others", "mic"


@pytest.fixture(scope="module")
def pulse():
    server = pulse_server([OTHERS, MIC])
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def far_speech(tmp_path_factory):
    if not shutil.which("espeak-ng"):
        pytest.skip("espeak-ng not installed (apt install espeak-ng): the canceller needs speech-like sound")
    path = tmp_path_factory.mktemp("echo") / "far.wav"
    text = (
        "Good morning everyone. Let us go through the agenda for today, starting with the budget "
        "and then the schedule for the next release."
    )
    subprocess.run(["espeak-ng", "-w", str(path), text], check=True, timeout=30)
    return path


def defaults():
    return server_default("source"), server_default("sink")


@pytest.mark.needs_pulse
def test_loads_and_unloads_the_module_leaving_the_defaults(pulse):
    before_modules, before_defaults = pulse.modules(), defaults()
    with EchoCanceller(f"{MIC}.monitor", OTHERS) as ec:
        assert pulse.modules().count(MODULE) == before_modules.count(MODULE) + 1
        assert ec.source in source_names()
        assert defaults() == before_defaults  # the user's default microphone and output stay
    assert pulse.modules() == before_modules and ec.source not in source_names()
    assert defaults() == before_defaults
    ec.stop()  # idempotent


@pytest.mark.needs_pulse
def test_a_missing_module_is_one_line(pulse):
    before = pulse.modules()
    ec = EchoCanceller(f"{MIC}.monitor", OTHERS, module="module-echo-cancel-that-is-not-there")
    assert not ec.available()
    assert "\n" not in ec.reason
    assert ec.reason.startswith("module-echo-cancel-that-is-not-there is not available on this sound server")
    assert ec.reason.endswith("the echo guard alone will hide repeated words")
    with pytest.raises(EchoCancelUnavailable):
        ec.start()
    assert pulse.modules() == before
    assert EchoCanceller(f"{MIC}.monitor", OTHERS).available() and pulse.modules() == before


@pytest.mark.needs_pulse
def test_a_module_left_by_a_killed_livecap_is_replaced(pulse):
    left = EchoCanceller(f"{MIC}.monitor", OTHERS).start()
    left.module_index = None  # as if the process had died without stopping it
    with EchoCanceller(f"{MIC}.monitor", OTHERS):
        assert pulse.modules().count(MODULE) == 1
    assert MODULE not in pulse.modules()


@pytest.mark.slow
@pytest.mark.needs_pulse
def test_the_echo_of_the_meeting_is_cancelled_from_the_microphone(pulse, far_speech):
    samples, rate = sf.read(str(far_speech), dtype="int16")
    meeting = pulse.play_stream(OTHERS, samples, app="Zoom", rate=rate, loop=True)
    room = pulse.load_module("module-loopback", f"source={OTHERS}.monitor", f"sink={MIC}", "latency_msec=60")
    try:
        (loop_input,) = [a.index for a in list_applications() if a.sink == MIC]
        pulse.pactl("set-sink-input-volume", str(loop_input), "-10dB")
        with EchoCanceller(f"{MIC}.monitor", OTHERS) as ec:
            assert ec.route_application("Zoom") == [meeting.sink_input()]
            sources = {"mic": SystemAudioSource(f"{MIC}.monitor"), "cancelled": ec.open_source()}
            for src in sources.values():
                src.start()
            try:
                got = collect_together(sources, 14 * SR)
            finally:
                for src in sources.values():
                    src.stop()
            # The far end alone speaks: after the canceller has adapted, its output is the
            # residual echo. Compare the last 6 s of the two recordings.
            mic, cancelled = got["mic"][-6 * SR :], got["cancelled"][-6 * SR :]
            erle = level_db(mic) - level_db(cancelled)
            levels = f"microphone {level_db(mic):.1f} dB, echo-cancelled {level_db(cancelled):.1f} dB"
            print(f"\nERLE (echo attenuation, last 6 s of 14): {erle:.1f} dB ({levels})")
            assert level_db(mic) > 40, "no echo reached the microphone"
            assert erle > 10, f"echo attenuated by only {erle:.1f} dB"
        # Stopping it moved the meeting back to the speakers it played to.
        assert [a.sink for a in list_applications() if a.name == "Zoom"] == [OTHERS]
    finally:
        pulse.unload(room)
        meeting.stop()


@pytest.mark.slow
@pytest.mark.needs_pulse
def test_the_near_end_speaker_passes_through(pulse, far_speech):
    """Cancelling echo must not cancel the user: with no far end, the microphone's own speech
    comes through at about its level."""
    with EchoCanceller(f"{MIC}.monitor", OTHERS) as ec:
        sources = {"mic": SystemAudioSource(f"{MIC}.monitor"), "cancelled": ec.open_source()}
        for src in sources.values():
            src.start()
        try:
            for src in sources.values():
                drain(src)
            samples, rate = sf.read(str(far_speech), dtype="int16")
            me = pulse.play_stream(MIC, samples, app="me", rate=rate, loop=True)
            got = collect_together(sources, 10 * SR)
            me.stop()
        finally:
            for src in sources.values():
                src.stop()
    mic, cancelled = got["mic"][-5 * SR :], got["cancelled"][-5 * SR :]
    print(f"\nnear-end loss: {level_db(mic) - level_db(cancelled):.1f} dB")
    assert level_db(mic) > 40 and level_db(mic) - level_db(cancelled) < 6
