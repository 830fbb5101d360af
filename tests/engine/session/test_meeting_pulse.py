"""A meeting on a real PulseAudio server (a private one, with null sinks): the microphone is a null
sink's monitor, the meeting application a ``pacat`` stream named "Meeting". The session is the one
``livecap listen --source mic --source app:Meeting`` builds, on the shipped Whisper tiny.en.

Each failure of one side gives one notice, for that side, and the other side keeps captioning."""

import threading
import time

import numpy as np
import pytest

from engine.audio.pausable import SourceChoice
from engine.events import SourceNotice
from engine.recognizers.whisper_rec import WhisperRecognizer
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from engine.speakers.labels import ME, OTHERS, SpeakerNames
from tests.engine.audio.pulse_helpers import pulse_server
from tests.engine.session.test_meeting import _speech, word_errors

pytestmark = [pytest.mark.slow, pytest.mark.needs_espeak]

RATE = 16_000
MIC, OUT, APP = "mic", "speakers", "Meeting"
MINE = "the council met on tuesday to discuss the budget and they agreed to meet again next month"
THEIRS = "the schedule is mostly settled and the team agrees"


@pytest.fixture(scope="module")
def pulse():
    server = pulse_server([MIC, OUT])
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def voices(tmp_path_factory):
    folder = tmp_path_factory.mktemp("voices")
    return _speech(MINE, folder, "me"), _speech(THEIRS, folder, "others")


@pytest.fixture(scope="module")
def whisper():
    return WhisperRecognizer(live=True)


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), np.int16)


class Notices:
    def __init__(self):
        self.seen: list[SourceNotice] = []
        self.lock = threading.Lock()

    def __call__(self, events) -> None:
        with self.lock:
            self.seen += [e for e in events if isinstance(e, SourceNotice)]

    def of(self, speaker: str, kind: str) -> list[SourceNotice]:
        with self.lock:
            return [n for n in self.seen if n.speaker == speaker and n.kind == kind]


def _session(whisper, echo_cancel: bool = True):
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("system", f"{MIC}.monitor"), others=SourceChoice("app", APP),
        journal=False, echo_cancel=echo_cancel,
    )  # fmt: skip
    return build_live_session(spec, resources)


def _said(transcript, side: str) -> list[str]:
    return [w.text for w in transcript.words if (w.heard.speaker == ME) == (side == ME)]


def test_a_meeting_on_a_sound_server_labels_both_sides_in_every_export(pulse, voices, whisper, tmp_path):
    from engine.transcript.export import FORMATS, export

    mine, theirs = voices
    # The meeting application plays before captioning starts, as a call does.
    others = pulse.play_stream(OUT, np.concatenate([_silence(2), theirs, _silence(4)]), app=APP)
    others.sink_input()
    session, info = _session(whisper)
    assert "echo canceller" in info.echo  # the server has module-echo-cancel: the call is routed through it
    session.start()
    # Turns, as in a call: Me answers once the others have finished.
    me = pulse.play_stream(
        MIC, np.concatenate([_silence(2 + len(theirs) / RATE + 1), mine, _silence(3)]), app="Microphone"
    )
    me.finish(60)
    others.finish(60)
    transcript = session.stop()
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.25, _said(transcript, ME)
    assert word_errors(THEIRS.split(), _said(transcript, OTHERS)) <= 0.25, _said(transcript, OTHERS)
    names = SpeakerNames(renamed={ME: "Ana"})
    for fmt in FORMATS:
        path = tmp_path / f"meeting.{fmt}"
        export(transcript, fmt, path, names=names)
        text = path.read_text()
        assert "Ana" in text and "Others" in text, (fmt, text[:400])


def test_the_application_quitting_is_said_and_my_words_go_on(pulse, voices, whisper):
    mine, _ = voices
    others = pulse.play_stream(OUT, _silence(2), app=APP, loop=True)
    others.sink_input()
    session, _ = _session(whisper, echo_cancel=False)
    notices = Notices()
    session.subscribe(notices)
    session.start()
    time.sleep(1.0)
    others.stop()  # the call ends: its application quits
    me = pulse.play_stream(MIC, np.concatenate([_silence(1), mine, _silence(3)]), app="Microphone")
    me.finish(60)
    transcript = session.stop()
    assert notices.of(OTHERS, "device_lost"), notices.seen
    assert not notices.of(ME, "device_lost")
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.25, _said(transcript, ME)


def test_the_microphone_unplugged_is_said_and_the_others_go_on(pulse, voices, whisper):
    _, theirs = voices
    extra = pulse.add_null_sink("headset")  # a microphone that will be unplugged
    others = pulse.play_stream(OUT, np.concatenate([_silence(3), theirs, _silence(4)]), app=APP)
    others.sink_input()
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("system", "headset.monitor"), others=SourceChoice("app", APP),
        journal=False, echo_cancel=False,
    )  # fmt: skip
    session, _ = build_live_session(spec, resources)
    notices = Notices()
    session.subscribe(notices)
    session.start()
    time.sleep(1.0)
    pulse.unload(extra)  # unplugged
    others.finish(60)
    transcript = session.stop()
    assert notices.of(ME, "device_lost"), notices.seen
    assert len(notices.of(ME, "device_lost")) == 1  # one line, not one a second
    assert word_errors(THEIRS.split(), _said(transcript, OTHERS)) <= 0.25, _said(transcript, OTHERS)


def test_no_monitor_for_the_others_is_one_line_and_my_words_go_on(pulse, voices, whisper):
    mine, _ = voices
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("system", f"{MIC}.monitor"), others=SourceChoice("system", "unplugged.monitor"),
        journal=False,
    )  # fmt: skip
    session, _ = build_live_session(spec, resources)
    notices = Notices()
    session.subscribe(notices)
    session.start()  # the others' side cannot start; the session does, with mine
    me = pulse.play_stream(MIC, np.concatenate([_silence(1), mine, _silence(3)]), app="Microphone")
    me.finish(60)
    transcript = session.stop()
    lines = notices.of(OTHERS, "error")
    assert len(lines) == 1 and "unplugged.monitor" in lines[0].message and "\n" not in lines[0].message
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.25, _said(transcript, ME)


def test_no_sound_server_is_one_line_and_my_words_go_on(voices, whisper, tmp_path, monkeypatch):
    """No PulseAudio or PipeWire at all: the others' side says so; the microphone (here a
    recording of it) is captioned."""
    import soundfile as sf

    mine, _ = voices
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'no-server'}")
    wav = tmp_path / "me.wav"
    sf.write(wav, np.concatenate([_silence(1), mine, _silence(2)]), RATE, subtype="PCM_16")
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("file", str(wav)), others=SourceChoice("system"), journal=False, realtime=False
    )
    session, _ = build_live_session(spec, resources)
    notices = Notices()
    session.subscribe(notices)
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    lines = notices.of(OTHERS, "error")
    assert len(lines) == 1 and "\n" not in lines[0].message, notices.seen
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.25, _said(transcript, ME)


def test_no_echo_canceller_on_the_server_is_one_line_and_both_sides_go_on(
    pulse, voices, whisper, monkeypatch
):
    """A server without module-echo-cancel: the meeting says so in one line (the guard alone
    hides echoes) and captions both sides."""
    from engine.audio import echo_cancel

    monkeypatch.setattr(echo_cancel, "MODULE", "module-echo-cancel-that-is-not-there")
    mine, theirs = voices
    others = pulse.play_stream(OUT, np.concatenate([_silence(2), theirs, _silence(4)]), app=APP)
    others.sink_input()
    before = pulse.modules()
    session, info = _session(whisper, echo_cancel=True)
    assert "\n" not in info.echo and "module-echo-cancel-that-is-not-there is not available" in info.echo
    assert "echo guard" in info.echo
    session.start()
    me = pulse.play_stream(
        MIC, np.concatenate([_silence(2 + len(theirs) / RATE + 1), mine, _silence(3)]), app="Microphone"
    )
    me.finish(60)
    others.finish(60)
    transcript = session.stop()
    assert pulse.modules() == before  # nothing loaded, nothing left behind
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.25, _said(transcript, ME)
    assert word_errors(THEIRS.split(), _said(transcript, OTHERS)) <= 0.25, _said(transcript, OTHERS)
