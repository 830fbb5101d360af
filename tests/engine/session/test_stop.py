"""Stopping a live session keeps every word heard: Ctrl-C while waiting for it, and the end of the
session's last sentence. Real PocketSphinx on espeak-ng speech, the tiny ONNX model, a real
journal."""

import os
import signal
import threading
import time

import pytest

from engine.audio.file_source import FileSource
from engine.events import Appended, PartialWords
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.live import LiveSession
from engine.transcript.journal import JournalWriter, read_journal
from engine.words import SENTENCE_END_MARKS
from tests.speech import write_speech_wav

pytestmark = [pytest.mark.needs_espeak]


class SlowLastDecode(PocketSphinxRecognizer):
    """PocketSphinx whose last decode takes as long as Whisper's does on a few seconds of speech:
    the words it commits then are the ones a Ctrl-C used to lose."""

    def flush(self):
        time.sleep(1.5)
        return super().flush()


class Recorder:
    def __init__(self):
        self.events, self.lock = [], threading.Lock()

    def __call__(self, events):
        with self.lock:
            self.events.extend(events)

    def seen(self, test) -> bool:
        with self.lock:
            return any(test(e) for e in self.events)


def wait_for(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition was not met in time"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("stop") / "speech.wav", repeats=2)


def live_session(wav, recognizer, tiny_model, folder):
    journal = JournalWriter.create(folder, header={"recognizer": recognizer.name})
    session = LiveSession(
        FileSource(wav, realtime=True), recognizer, StreamingDecoder.from_model(tiny_model), journal
    )
    recorder = Recorder()
    session.subscribe(recorder)
    return session, recorder, journal


def test_ctrl_c_while_waiting_still_drains_flushes_and_keeps_every_word(speech_wav, tiny_model, tmp_path):
    """A Ctrl-C lands where ``listen`` spends its time: waiting for the session. The session must
    still run its last decode and commit those words before the engine stops."""
    session, recorder, journal = live_session(speech_wav, SlowLastDecode(), tiny_model, tmp_path)
    session.start()
    try:
        # Mid-utterance: the recognizer holds words that only its last decode commits.
        wait_for(lambda: recorder.seen(lambda e: isinstance(e, Appended)))
        wait_for(lambda: recorder.seen(lambda e: isinstance(e, PartialWords) and e.words))
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            while not session.wait(0.2):
                pass
    finally:
        transcript = session.stop()
    recognizer_thread = session.sides[0]._thread
    assert recognizer_thread not in threading.enumerate(), "stop() returned while the recognizer still ran"
    assert session.input_ended and session.error is None
    assert session.words_recognized == len(transcript.words) == journal.words > 0
    contents = read_journal(journal.path)
    assert contents.closed
    assert [w.text for w in contents.transcript.words] == [w.text for w in transcript.words]


def test_stop_ends_the_last_sentence_and_the_journal_keeps_that_mark(speech_wav, tiny_model, tmp_path):
    session, recorder, journal = live_session(speech_wav, PocketSphinxRecognizer(), tiny_model, tmp_path)
    session.start()
    try:
        wait_for(lambda: recorder.seen(lambda e: isinstance(e, Appended)))
    finally:
        transcript = session.stop()  # mid-sentence
    assert transcript.words and session.builder.all_settled
    assert transcript.words[-1].mark in SENTENCE_END_MARKS
    kept = read_journal(journal.path).transcript.words
    assert [(w.text, w.mark, w.case, w.form) for w in kept] == [
        (w.text, w.mark, w.case, w.form) for w in transcript.words
    ]
    assert all(w.settled for w in kept) and journal.words == len(kept)
