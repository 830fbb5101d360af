"""DictationSwitch on a real live session: espeak-ng speech → PocketSphinx → the tiny ONNX model.
wtype is absent here, so its command lines are recorded instead of run (``FakeRunner``)."""

from __future__ import annotations

import pytest

from engine.audio.file_source import FileSource
from engine.dictation.switch import DICTATING, PAUSED, DictationSwitch
from engine.dictation.typists import WtypeTypist
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.live import LiveSession
from tests.engine.dictation.test_typists import FakeRunner
from tests.speech import write_speech_wav

pytestmark = [pytest.mark.needs_espeak]


def typed(runner: FakeRunner) -> str:
    return "".join(c[-1] for c in runner.commands if c[:2] == ["wtype", "--"])


def session_on(tmp_path, tiny_model) -> LiveSession:
    wav = write_speech_wav(tmp_path / "speech.wav", repeats=2)
    return LiveSession(FileSource(wav), PocketSphinxRecognizer(), StreamingDecoder.from_model(tiny_model))


def test_a_released_sink_types_the_session_to_its_end_and_a_closed_switch_never_types(tmp_path, tiny_model):
    runner = FakeRunner()
    switch = DictationSwitch(WtypeTypist(runner))
    session = session_on(tmp_path, tiny_model)
    assert switch.attach(session) == DICTATING and switch.attach(session) == DICTATING  # one sink
    first = switch.sink
    session.start()
    assert session.wait(60), "the file did not play to its end"
    transcript = session.stop()
    sink = switch.release()
    assert sink is first and switch.state == PAUSED and switch.sink is None
    assert sink.drain(20)
    sink.stop()
    words = [w.display for w in transcript.words]
    assert len(words) >= 4, "PocketSphinx heard too little to test with"
    assert typed(runner).split() == words  # every settled word, in order, once

    switch.close()
    assert switch.attach(session_on(tmp_path, tiny_model)) == PAUSED and switch.sink is None


def test_detach_stops_typing_at_once_and_toggle_makes_a_fresh_sink(tmp_path, tiny_model):
    runner = FakeRunner()
    switch = DictationSwitch(WtypeTypist(runner), commands=["new line"])
    session = session_on(tmp_path, tiny_model)
    assert switch.toggle(session) == DICTATING
    first = switch.sink
    assert switch.toggle(session) == PAUSED and not first.running
    assert switch.toggle(session) == DICTATING and switch.sink is not first
    switch.set_commands(["new paragraph"])
    assert switch.sink.text.commands == frozenset({"new paragraph"})  # the running sink obeys it
    switch.detach()
    session.start()
    assert session.wait(60), "the file did not play to its end"
    assert session.stop().words, "PocketSphinx heard nothing: the test proves nothing"
    assert runner.commands == []  # detached before a word was said: nothing typed
