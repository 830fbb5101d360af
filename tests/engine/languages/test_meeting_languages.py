"""A meeting in language "auto": each side's stream tells its own language, and both are reported
(``LanguageDetected`` with the side), the others' one too; the journal names the others' language,
the meeting's, whichever side told its language first."""

import json

import numpy as np
import pytest
import soundfile as sf

from engine.audio.pausable import SourceChoice
from engine.events import LanguageDetected
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from engine.speakers.labels import ME, OTHERS
from engine.transcript.journal import read_journal
from tests.engine.languages.conftest import speak
from tests.scripted import ScriptedRecognizer

ENGLISH = "Good morning everyone. The weather is lovely today, and we are going to the park."


def punctuation_model():
    from engine.punctuation.model import load_model_or_shipped

    return load_model_or_shipped(None).model


def meeting(me, others, factory, tmp_path):
    """A meeting session in language "auto" on two files, journaled in ``tmp_path``, with every
    ``LanguageDetected`` it publishes collected."""
    model = punctuation_model()
    resources = SessionResources(factory, lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("file", str(me)), others=SourceChoice("file", str(others)), language="auto",
        realtime=False, journal_dir=tmp_path, history_index=False,
    )  # fmt: skip
    session, info = build_live_session(spec, resources)
    told: list[LanguageDetected] = []
    session.subscribe(lambda events: told.extend(e for e in events if isinstance(e, LanguageDetected)))
    return session, told


class Telling(ScriptedRecognizer):
    """A stream that tells ``language`` from its speech at its ``after``-th chunk of audio; its
    other stream (the others' side) tells ``others_language`` at ``others_after``."""

    detects_language = multilingual = True

    def __init__(self, language, after, others_language=None, others_after=1):
        super().__init__([])
        self.told, self.after = language, after
        self.others = (others_language, others_after)
        self.on_language_detected = None

    def another_stream(self):
        return Telling(*self.others)

    def accept(self, pcm):
        if self.calls + 1 == self.after and self.on_language_detected is not None:
            self.on_language_detected(self.told, 0.9)
        return super().accept(pcm)


@pytest.fixture
def silent_files(tmp_path):
    files = []
    for name in ("me", "others"):
        files.append(tmp_path / f"{name}.wav")
        sf.write(files[-1], np.zeros(16000 * 2, np.int16), 16000, subtype="PCM_16")
    return files


@pytest.mark.parametrize("me_after, others_after", [(1, 5), (5, 1)], ids=["me-first", "others-first"])
def test_both_sides_report_their_language_and_the_journal_names_the_others(
    silent_files, tmp_path, me_after, others_after
):
    recognizer = Telling("en", me_after, "de", others_after)
    session, told = meeting(*silent_files, lambda kind, name, options=None: (recognizer, ""), tmp_path)
    session.start()
    assert session.wait(60)
    journal = session.journal.path
    contents = read_journal(journal)  # read while open: a journal with no words goes at close
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    session.stop()
    assert sorted((e.speaker, e.language) for e in told) == [(ME, "en"), (OTHERS, "de")]
    assert contents.language == "de" and contents.skipped_lines == 0  # the meeting's: the others'
    spoken = [(r["speaker"], r["language"]) for r in lines if r["t"] == "language"]
    assert set(spoken) == {(ME, "en"), (OTHERS, "de")} and spoken[-1] == (OTHERS, "de")


def test_a_one_source_session_reports_its_language_without_a_side(silent_files, tmp_path):
    from engine.audio.file_source import FileSource

    recognizer = Telling("de", 1)
    model = punctuation_model()
    resources = SessionResources(lambda kind, name, options=None: (recognizer, ""), lambda folder: model)
    spec = SessionSpec(language="auto", realtime=False, journal_dir=tmp_path, history_index=False)
    session, _ = build_live_session(spec, resources, source=FileSource(silent_files[0], realtime=False))
    told = []
    session.subscribe(lambda events: told.extend(e for e in events if isinstance(e, LanguageDetected)))
    session.start()
    assert session.wait(60)
    lines = session.journal.path.read_text(encoding="utf-8").splitlines()
    session.stop()
    assert told == [LanguageDetected("de", 0.9)] and told[0].speaker is None
    (line,) = [json.loads(line) for line in lines if '"t": "language"' in line]
    assert line == {"t": "language", "language": "de", "probability": 0.9}  # as before meetings


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_real_meeting_tells_each_sides_language_with_whisper_base(pack_data, german_wav, tmp_path):
    """Real Whisper base, one model and two streams: English on the microphone, German from the
    others; each side's language is told from its own speech and reported with its side."""
    from engine.recognizers.select import open_recognizer

    english_wav = speak(tmp_path / "english.wav", ENGLISH, "en")
    opened = []

    def factory(kind, name, options=None):
        opened.append(open_recognizer(kind, name, options=options, models_dir=None))
        return opened[-1]

    session, told = meeting(english_wav, german_wav, factory, tmp_path)
    try:
        session.start()
        assert session.wait(300)
        language = read_journal(session.journal.path).language
        session.stop()
    finally:
        for recognizer, *_ in opened:
            recognizer.close()
    assert sorted((e.speaker, e.language) for e in told) == [(ME, "en"), (OTHERS, "de")], told
    assert all(0 < e.probability <= 1 for e in told)
    assert language == "de"  # the meeting's language, the others'
