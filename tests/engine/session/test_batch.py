"""The batch path: its Ctrl-C (real PocketSphinx on espeak-ng speech, interrupted by a real SIGINT
sent from inside the recognizer, where a user's Ctrl-C lands most of the time), and the prosody
a file's words are measured with."""

import os
import signal

import pytest

from engine.audio.file_source import read_all
from engine.prosody.features import PROSODY_FIELDS
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.batch import Interrupted, recognize_audio, transcribe_file
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


@pytest.fixture(scope="module")
def one_sentence(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("batch") / "one.wav", repeats=1)


@pytest.mark.parametrize("when", ["at the first punctuating step", "before any punctuating step"])
def test_ctrl_c_while_punctuating_is_held_and_keeps_the_whole_file(
    one_sentence, tiny_model, monkeypatch, when
):
    """Ctrl-C after the last chunk was heard: the file's words are punctuated in full, then
    ``Interrupted`` carries them, whether it lands in a progress call or in the step before the
    first one (where it once escaped as a KeyboardInterrupt and lost the file)."""
    from engine.audio import SAMPLE_RATE
    from engine.audio.file_source import read_all
    from engine.session import batch

    whole = transcribe_file(one_sentence, PocketSphinxRecognizer(final_pass=True), tiny_model)
    assert len(whole.words) >= 4
    pressed = []

    def press():
        if not pressed:
            pressed.append(True)
            signal.raise_signal(signal.SIGINT)

    def progress(stage, done, total):
        if stage == "punctuating" and when == "at the first punctuating step":
            press()

    if when == "before any punctuating step":
        real = batch.repunctuate

        def repunctuate(*args, **kwargs):
            press()
            return real(*args, **kwargs)

        monkeypatch.setattr(batch, "repunctuate", repunctuate)
    with pytest.raises(Interrupted) as stop:
        transcribe_file(one_sentence, PocketSphinxRecognizer(final_pass=True), tiny_model, progress)
    assert pressed
    assert stop.value.complete and stop.value.seconds == len(read_all(one_sentence)) / SAMPLE_RATE
    assert stop.value.transcript == whole  # every word, punctuated as without Ctrl-C
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is given back


def test_a_files_words_hear_the_pause_before_them_across_the_recognizers_utterances(tmp_path):
    """PocketSphinx gives each utterance's words as one final; the first word of the second is
    measured from the last word of the first, as a live session measures it."""
    wav = write_speech_wav(tmp_path / "speech.wav", gap=1.5)
    words = recognize_audio(read_all(wav), PocketSphinxRecognizer())
    silence = [w.prosody[PROSODY_FIELDS.index("silence_before")] for w in words]
    second = next(j for j, w in enumerate(words) if w.start > 4.0 and j)  # the repeat's first word
    assert words[second].start - words[second - 1].end > 1.0
    assert silence[second] > 1.0  # the 1.5 s between the utterances, heard
    assert all(s == s for s in silence[1:])  # not NaN: every word after the first was measured
