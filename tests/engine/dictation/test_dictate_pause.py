"""``livecap dictate --toggle`` pauses the listening, not only the typing: nothing said while
paused is recognized, typed or kept in the journal. The session is the one ``livecap dictate``
builds (espeak-ng speech → PocketSphinx → the tiny ONNX model, a real journal), and the toggle
is the one its control socket calls. A microphone is absent here: a file read as fast as it
decodes stands in for it, as a live source (audio that comes while paused is dropped). wtype
is absent too, so its command lines are recorded instead of run (``FakeRunner``)."""

from __future__ import annotations

import pytest

from engine.audio.file_source import FileSource
from engine.audio.pausable import PausableSource, SourceChoice
from engine.cli.dictate import toggle
from engine.dictation.switch import DICTATING, PAUSED, DictationSwitch
from engine.dictation.typists import WtypeTypist
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from tests.engine.dictation.test_typists import FakeRunner
from tests.speech import write_speech_wav

pytestmark = [pytest.mark.needs_espeak]


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("pause") / "speech.wav", repeats=2)


def dictation_session(speech, journal_dir, tiny_model_dir):
    spec = SessionSpec(
        source=SourceChoice("file", str(speech)),
        recognizer="pocketsphinx",
        model_dir=tiny_model_dir,
        journal_dir=journal_dir,
    )
    microphone = PausableSource(FileSource(speech, realtime=False), live=True)
    resources = SessionResources(lambda kind, model: _pocketsphinx())
    session, _ = build_live_session(spec, resources, source=microphone)
    return session


def _pocketsphinx():
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    return PocketSphinxRecognizer(), ""


def typed(runner: FakeRunner) -> str:
    return "".join(c[-1] for c in runner.commands if c[:2] == ["wtype", "--"])


def test_paused_dictation_recognizes_types_and_keeps_nothing(speech, tmp_path, tiny_model_dir):
    runner = FakeRunner()
    switch = DictationSwitch(WtypeTypist(runner))
    session = dictation_session(speech, tmp_path / "journal", tiny_model_dir)
    switch.attach(session)
    assert toggle(switch, session) == PAUSED
    session.start()
    assert session.wait(60), "the speech did not play to its end"
    transcript = session.stop()
    switch.close()
    assert transcript.words == [] and session.words_recognized == 0  # not heard at all
    assert runner.commands == []
    assert not any((tmp_path / "journal").glob("*.jsonl"))  # no words: no journal kept


def test_resumed_dictation_hears_types_and_keeps_again(speech, tmp_path, tiny_model_dir):
    runner = FakeRunner()
    switch = DictationSwitch(WtypeTypist(runner))
    session = dictation_session(speech, tmp_path / "journal", tiny_model_dir)
    switch.attach(session)
    assert toggle(switch, session) == PAUSED
    assert toggle(switch, session) == DICTATING
    session.start()
    assert session.wait(60), "the speech did not play to its end"
    transcript = session.stop()
    sink = switch.release()
    assert sink is not None and sink.drain(20)
    sink.stop()
    assert "park" in [w.text for w in transcript.words]
    assert "park" in typed(runner).lower()
    assert len(list((tmp_path / "journal").glob("*.jsonl"))) == 1
