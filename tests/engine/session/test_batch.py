"""The batch path's Ctrl-C: real PocketSphinx on espeak-ng speech, interrupted by a real SIGINT
sent from inside the recognizer, where a user's Ctrl-C lands most of the time."""

import os
import signal

import pytest

from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.batch import Interrupted, transcribe_file
from tests.speech import SENTENCE, write_speech_wav

pytestmark = [pytest.mark.needs_espeak]


class CtrlCInsideTheRecognizer(PocketSphinxRecognizer):
    """Sends itself SIGINT as an utterance ends, in the middle of ``accept``. A
    KeyboardInterrupt raised there once left the decoder between ``end_utt`` and the
    recognizer's own state, and the flush that followed crashed the process (SIGSEGV)."""

    def __init__(self):
        super().__init__(final_pass=True)
        self.sent = self.survived = 0

    def _end_utterance(self):
        if not self.sent:
            self.sent += 1
            os.kill(os.getpid(), signal.SIGINT)
            self.survived += 1  # not reached if the interrupt is raised where it lands
        return super()._end_utterance()


def test_ctrl_c_inside_the_recognizer_stops_at_a_chunk_boundary_and_keeps_the_words(tmp_path, tiny_model):
    wav = write_speech_wav(tmp_path / "three.wav", repeats=3)
    recognizer = CtrlCInsideTheRecognizer()
    with pytest.raises(Interrupted) as stop:
        transcribe_file(wav, recognizer, tiny_model)
    assert recognizer.survived == 1, "the interrupt cut into the recognizer"
    heard = [w.text for w in stop.value.transcript.words]
    assert heard, "the words heard before Ctrl-C were lost"
    assert len(heard) < 3 * len(SENTENCE.split()), "it went on to the end instead of stopping"
    assert 0 < stop.value.seconds < 3 * 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is given back
