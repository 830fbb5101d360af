"""One application's sound as a source, against a REAL private PulseAudio daemon.

Applications are long-lived ``pacat`` streams named like the programs a user meets ("Zoom",
"Firefox"), each playing its own tone into the same null sink, so what was recorded tells
whose sound it was.
"""

import numpy as np
import pytest

from engine.audio.applications import (
    Application,
    ApplicationAudioSource,
    _parse_json_sink_inputs,
    _parse_text_sink_inputs,
    list_applications,
)
from engine.audio.base import AudioError

from .pulse_helpers import SR, band_energy, collect, drain, parec_children, pulse_server, tone

SINK = "meeting_out"
ZOOM, FIREFOX, NEXT_CALL = 440.0, 1000.0, 660.0


@pytest.fixture(scope="module")
def pulse():
    server = pulse_server([SINK])
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def zoom(pulse):
    stream = pulse.play_stream(SINK, tone(ZOOM), app="Zoom", loop=True)
    stream.sink_input()
    yield stream
    stream.stop()


@pytest.fixture
def firefox(pulse):
    stream = pulse.play_stream(SINK, tone(FIREFOX), app="Firefox", loop=True)
    stream.sink_input()
    yield stream
    stream.stop()


def sounding(audio: np.ndarray) -> np.ndarray:
    """The part after the first sound (a fresh stream reaches a null sink's monitor late)."""
    loud = np.flatnonzero(np.abs(audio.astype(np.int32)) > 1000)
    return audio[loud[0] :] if len(loud) else audio[:0]


@pytest.mark.needs_pulse
def test_list_applications_sees_a_stream_by_its_application_name(pulse, zoom, firefox):
    apps = list_applications()
    by_name = {app.name: app for app in apps}
    assert {"Zoom", "Firefox"} <= set(by_name)
    assert by_name["Zoom"] == Application(
        name="Zoom", binary="pacat", index=zoom.sink_input(), sink=SINK, corked=False, pid=zoom.pid
    )
    # The text listing (pactl without -f json) says the same.
    sinks = {"0": SINK}
    assert _parse_text_sink_inputs(pulse.pactl("list", "sink-inputs"), sinks) == _parse_json_sink_inputs(
        pulse.pactl("-f", "json", "list", "sink-inputs"), sinks
    )
    assert by_name["Zoom"].matches("zoom") and by_name["Zoom"].matches("pacat")


@pytest.mark.needs_pulse
def test_livecaps_own_streams_are_not_offered(pulse, zoom):
    with pulse.play_stream(SINK, tone(300), app="livecap", loop=True) as own:
        own.sink_input()
        names = [app.name for app in list_applications()]
    assert "Zoom" in names and "livecap" not in names


@pytest.mark.needs_pulse
def test_records_only_that_applications_sound(pulse, zoom, firefox):
    src = ApplicationAudioSource("zoom").start()
    try:
        audio = sounding(collect(src, 5 * SR))
    finally:
        src.stop()
    assert src.name == "Zoom" and len(audio) >= SR, "Zoom's sound never arrived"
    assert audio.dtype == np.int16
    zoom_part, firefox_part = band_energy(audio, ZOOM), band_energy(audio, FIREFOX)
    assert zoom_part > 1000 * firefox_part, (zoom_part, firefox_part)
    assert parec_children() == []


@pytest.mark.needs_pulse
def test_follows_the_application_from_one_call_to_the_next(pulse, zoom, firefox):
    src = ApplicationAudioSource("Zoom", retry_seconds=0.2, check_seconds=0.3).start()
    try:
        assert len(sounding(collect(src, 3 * SR))) > 0
        zoom.stop()  # the call ends
        lost = src.events.get(timeout=10)
        assert lost.kind == "device_lost"
        assert lost.message == "Zoom stopped playing; waiting for it to play again"
        drain(src)
        waiting = collect(src, SR // 2)  # silence meanwhile, so the last sentence can end
        assert len(waiting) == SR // 2 and not waiting.any()
        next_call = pulse.play_stream(SINK, tone(NEXT_CALL), app="Zoom", loop=True)
        back = src.events.get(timeout=10)
        assert back.kind == "device_back" and "Zoom" in back.message
        assert src.index == next_call.sink_input()
        audio = sounding(collect(src, 5 * SR))
        assert len(audio) >= SR
        assert band_energy(audio, NEXT_CALL) > 1000 * band_energy(audio, FIREFOX)
        next_call.stop()
    finally:
        src.stop()
    assert parec_children() == []


@pytest.mark.needs_pulse
def test_application_quitting_mid_recording_is_a_notice_not_an_error(pulse, zoom):
    src = ApplicationAudioSource("Zoom", retry_seconds=0.2, check_seconds=0.3).start()
    try:
        collect(src, SR)
        zoom.stop()  # quits for good
        event = src.events.get(timeout=10)
        assert event.kind == "device_lost" and "\n" not in event.message
        drain(src)
        after = collect(src, 2 * SR)  # the source keeps going, with silence
        assert len(after) == 2 * SR and not after.any()
        assert src.events.empty()
    finally:
        src.stop()
    src.stop()  # idempotent
    assert parec_children() == []


@pytest.mark.needs_pulse
def test_an_unknown_application_names_those_playing(pulse, zoom, firefox):
    with pytest.raises(AudioError) as info:
        ApplicationAudioSource("Teams").start()
    message = str(info.value)
    assert "\n" not in message
    assert "no application called 'Teams' is playing sound" in message
    assert "'Zoom'" in message and "'Firefox'" in message
    with pytest.raises(AudioError, match="no application named"):
        ApplicationAudioSource("  ")
