"""PocketSphinx in a child process (``IsolatedRecognizer``): the same words as in this process, and
clear errors when its model cannot load or its process dies."""

import os
import signal

import numpy as np
import pytest

from engine.recognizers import RecognizerError
from engine.recognizers.isolated import IsolatedRecognizer
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.recognizers.select import open_recognizer
from tests.engine.recognizers.test_recognizers import SENTENCE, silence, stream, word_overlap


def words_of(updates) -> list[str]:
    return [w.text for _, u in updates for w in (u.final or [])]


@pytest.fixture
def isolated():
    recognizer, notice, _ = open_recognizer("pocketsphinx", isolated=True)
    assert isinstance(recognizer, IsolatedRecognizer) and notice == ""
    yield recognizer
    recognizer.close()


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_isolated_pocketsphinx_gives_exactly_the_in_process_results(isolated, speech):
    audio = np.concatenate([silence(0.5), speech, silence(1.5), speech, silence(0.5)])
    here = PocketSphinxRecognizer()
    expected = stream(here, audio)
    got = stream(isolated, audio)
    # Same decoder, same audio, same chunks: every update identical, partials and finals, times included.
    assert [(t, u.partial, u.final) for t, u in got] == [(t, u.partial, u.final) for t, u in expected]
    assert word_overlap(SENTENCE.split() * 2, words_of(got)) >= 0.4  # the bar of test_recognizers
    assert isolated.name == "pocketsphinx" and isolated.sample_rate == 16000


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_isolated_reset_restarts_the_stream(isolated, speech):
    first = words_of(stream(isolated, np.concatenate([speech, silence(1.0)])))
    isolated.reset()
    again = stream(isolated, np.concatenate([speech, silence(1.0)]))
    assert words_of(again) == first and first
    assert again[-1][1].final is None or again[-1][1].final[0].start < 1.5  # times start from 0 again


def test_isolated_rejects_bad_audio_with_the_same_errors(isolated):
    with pytest.raises(TypeError, match="int16"):
        isolated.accept(np.zeros(1600, np.float32))  # refused before it crosses the pipe
    with pytest.raises(ValueError, match="even number"):
        isolated.accept(b"\x00\x00\x00")
    assert isolated.accept(np.zeros(1600, np.int16)).partial == []  # still usable


def test_a_model_that_cannot_load_is_reported_when_waited_for(tmp_path):
    recognizer = IsolatedRecognizer(PocketSphinxRecognizer, "pocketsphinx", hmm=str(tmp_path / "no-model"))
    with pytest.raises(RecognizerError, match="PocketSphinx could not start"):
        recognizer.wait_ready()
    assert recognizer.closed
    with pytest.raises(RecognizerError, match="closed"):
        recognizer.accept(np.zeros(1600, np.int16))


def test_a_dead_recognizer_process_is_a_clear_error_not_a_hang(isolated):
    isolated.wait_ready()
    os.kill(isolated.pid, signal.SIGKILL)
    with pytest.raises(RecognizerError, match="stopped unexpectedly.*start the session again"):
        isolated.accept(np.zeros(1600, np.int16))
    assert isolated.closed


def test_close_stops_the_process_and_is_idempotent(isolated):
    isolated.wait_ready()
    pid = isolated.pid
    isolated.close()
    isolated.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # reaped: gone, not a zombie
    with pytest.raises(RecognizerError, match="closed"):
        isolated.flush()
