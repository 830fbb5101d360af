"""The live session end to end: espeak-ng speech → FileSource → PocketSphinx → stabiliser →
punctuation engine (the tiny ONNX model) → journal and subscribers."""

import difflib
import threading
import time

import pytest

from engine.audio.file_source import FileSource
from engine.events import Appended, AudioLevel, PartialWords, Settled, SourceNotice
from engine.prosody.features import PROSODY_FIELDS
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.batch import transcribe_file
from engine.session.live import LiveSession
from engine.transcript.journal import JournalWriter, read_journal
from engine.words import CASE_LABELS, PUNCT_LABELS
from tests.speech import SENTENCE, write_speech_wav

pytestmark = [pytest.mark.needs_espeak]


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("session") / "speech.wav")


@pytest.fixture(scope="module")
def recognizer():
    return PocketSphinxRecognizer()


def overlap(reference: list[str], hypothesis: list[str]) -> float:
    blocks = difflib.SequenceMatcher(a=reference, b=hypothesis, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) / len(reference)


class Recorder:
    def __init__(self):
        self.events, self.lock = [], threading.Lock()

    def __call__(self, events):
        with self.lock:
            self.events.extend(events)

    def of(self, kind):
        with self.lock:
            return [e for e in self.events if isinstance(e, kind)]


def make_session(path, recognizer, tiny_model, journal_dir, realtime=False):
    journal = JournalWriter.create(journal_dir, header={"recognizer": recognizer.name, "model": "built-in"})
    session = LiveSession(
        FileSource(path, realtime=realtime), recognizer, StreamingDecoder.from_model(tiny_model), journal
    )
    recorder = Recorder()
    session.subscribe(recorder)
    return session, recorder, journal


@pytest.mark.slow
def test_a_whole_file_flows_through_and_every_mark_settles(speech_wav, recognizer, tiny_model, tmp_path):
    session, recorder, journal = make_session(speech_wav, recognizer, tiny_model, tmp_path)
    session.start()
    assert session.wait(60), "the recognizer thread did not reach the end of the file"
    transcript = session.stop()

    texts = [w.text for w in transcript.words]
    assert len(texts) >= 12
    # Live PocketSphinx decodes in one pass: 11 of these 24 words (see test_recognizers)
    assert overlap(SENTENCE.split() * 2, texts) >= 0.4, texts
    assert session.error is None
    # Every mark settled, and every word carries a valid decision and its times.
    assert session.builder.all_settled
    assert all(w.mark in PUNCT_LABELS and w.case in CASE_LABELS for w in transcript.words)
    duration = FileSource(speech_wav).duration
    assert all(w.has_times and 0 <= w.start < w.end <= duration for w in transcript.words)
    settled = {e.position for e in recorder.of(Settled)}
    assert settled >= set(range(len(texts)))
    # No word lost or invented on the way: stabiliser = transcript = journal, text for text.
    contents = read_journal(journal.path)
    assert contents.closed and contents.skipped_lines == 0
    assert session.words_recognized == len(texts) == journal.words
    assert [w.text for w in contents.transcript.words] == texts
    assert [(w.mark, w.form) for w in contents.transcript.words] == [
        (w.mark, w.form) for w in transcript.words
    ]
    # The session's own events reached the subscriber too.
    assert len(recorder.of(Appended)) >= len(texts)
    assert recorder.of(PartialWords), "no unstable words were shown while speaking"
    levels = [e.rms for e in recorder.of(AudioLevel)]
    assert max(levels) > 0.01 and min(levels) == 0.0  # speech and the silences around it
    assert any(n.kind == "finished" for n in recorder.of(SourceNotice))
    # Whichever thread published it, every event a subscriber got is one of engine.events'.
    assert {type(e).__module__ for e in recorder.events} == {"engine.events"}
    assert session.stop() is transcript  # stopping twice is harmless


def test_stop_mid_speech_drains_and_settles(speech_wav, recognizer, tiny_model, tmp_path):
    session, recorder, journal = make_session(speech_wav, recognizer, tiny_model, tmp_path, realtime=True)
    session.start()
    deadline = time.monotonic() + 6
    while not recorder.of(Appended) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert recorder.of(Appended), "no word within 6 s of real-time speech"
    transcript = session.stop()  # mid-file: the first sentence may still be in progress
    assert not session.input_ended or session.wait(0)
    assert transcript.words and session.builder.all_settled
    contents = read_journal(journal.path)
    assert contents.closed
    assert [w.text for w in contents.transcript.words] == [w.text for w in transcript.words]
    assert session.words_recognized == len(transcript.words)


def test_a_session_whose_source_fails_to_start_leaves_no_open_journal(tmp_path, recognizer, tiny_model):
    class Broken(FileSource):
        def start(self):
            raise OSError("device vanished")

    path = write_speech_wav(tmp_path / "s.wav", repeats=1)
    journal = JournalWriter.create(tmp_path / "j")
    session = LiveSession(Broken(path), recognizer, StreamingDecoder.from_model(tiny_model), journal)
    with pytest.raises(OSError):
        session.start()
    assert journal.closed and not session.engine.running


@pytest.mark.slow
def test_transcribe_file_uses_final_words_and_the_offline_decoder(speech_wav, tiny_model):
    stages = []
    batch = PocketSphinxRecognizer(final_pass=True)  # what `livecap transcribe` uses
    transcript = transcribe_file(
        speech_wav,
        batch,
        tiny_model,
        lambda stage, done, total: stages.append((stage, done, total)),
    )
    texts = [w.text for w in transcript.words]
    assert overlap(SENTENCE.split() * 2, texts) >= 0.5, texts
    assert transcript.has_times and all(
        a.start <= b.start for a, b in zip(transcript.words, transcript.words[1:])
    )
    assert {s for s, _, _ in stages} == {"recognizing", "punctuating"}
    last = [s for s in stages if s[0] == "recognizing"][-1]
    assert last[1] == pytest.approx(last[2])  # progress reaches the end of the audio


def test_the_words_reaching_the_engine_carry_their_prosody(speech_wav, recognizer, tiny_model, tmp_path):
    """The side measures each committed word on the audio it heard (engine.prosody), so the
    punctuation engine gets the pitch and energy beside the words and their times."""
    import math

    class Watching(StreamingDecoder):
        def push_many(self, words):
            fed.extend(words)
            return super().push_many(words)

    fed = []
    journal = JournalWriter.create(tmp_path, header={"recognizer": recognizer.name, "model": "built-in"})
    session = LiveSession(FileSource(speech_wav), recognizer, Watching.from_model(tiny_model), journal)
    session.start()
    assert session.wait(60)
    session.stop()
    assert len(fed) >= 12
    assert all(len(w.prosody) == len(PROSODY_FIELDS) for w in fed if w.has_times)
    silence = PROSODY_FIELDS.index("silence_before")
    # Heard since the word before: every word but the stream's first, which PocketSphinx may commit,
    # retract and commit again ("so where" → "the weather", from 0.51 s), each time with none before.
    first = min(w.start for w in fed if w.has_times)
    later = [w for w in fed if w.has_times and w.start > first + 0.1]
    assert len(later) >= 10
    assert all(not math.isnan(w.prosody[silence]) for w in later), [
        (w.text, w.start, w.end, w.prosody[silence]) for w in fed
    ]
    voiced = [w for w in fed if not math.isnan(w.prosody[1])]  # a final pitch was found
    assert len(voiced) >= len(fed) // 2
    assert all(-30 < w.prosody[1] < 30 for w in voiced)  # semitones around 100 Hz: a voice
