import json
from pathlib import Path

import pytest

from engine.audio.pausable import PausableSource, SourceChoice
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from tests.speech import SENTENCE, write_speech_wav


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("build") / "speech.wav", SENTENCE)


def test_a_spec_changes_only_what_it_names_in_the_recommended_settings():
    recommended = DecoderSettings(l_min=2, l_max=3, threshold=0.6, pause_threshold=0.3)
    assert SessionSpec().decoder_settings(recommended) == recommended
    changed = SessionSpec(threshold=1.1, l_max=1, casing=False, pause_threshold=0).decoder_settings(
        recommended
    )
    assert (changed.threshold, changed.l_max, changed.l_min) == (1.1, 1, 1)  # l_min follows a lower l_max
    assert changed.casing is False and changed.pause_threshold is None  # 0: no [PAUSE] tokens
    assert (
        changed.silence_gap == recommended.silence_gap
        and changed.offline_window == recommended.offline_window
    )


def test_settings_refuse_an_impossible_lookahead():
    with pytest.raises(ValueError, match="l_min <= l_max"):
        DecoderSettings(l_min=3, l_max=2)


def test_resources_load_each_model_and_recognizer_once(tiny_model_dir):
    made, loaded = [], []

    def factory(kind, model):
        made.append((kind, model))
        return PocketSphinxRecognizer(), "a notice"

    def loader(folder):
        loaded.append(folder)
        return object()

    resources = SessionResources(factory, loader)
    assert resources.punctuation_model(tiny_model_dir) is resources.punctuation_model(tiny_model_dir)
    first, info = resources.recognizer("pocketsphinx", "")
    assert resources.recognizer("pocketsphinx", "")[0] is first
    assert made == [("pocketsphinx", "")] and loaded == [Path(tiny_model_dir)]
    assert (info.name, info.notice, info.journal_model) == ("pocketsphinx", "a notice", "built-in")
    first.close()  # closed, as an isolated recognizer is when its child process died
    assert resources.recognizer("pocketsphinx", "")[0] is not first and len(made) == 2


def test_build_live_session_runs_a_file_through_to_a_settled_transcript(speech_wav, tiny_model_dir, tmp_path):
    resources = SessionResources(lambda kind, model: (PocketSphinxRecognizer(), ""))
    spec = SessionSpec(
        source=SourceChoice("file", str(speech_wav)),
        realtime=False,
        recognizer="pocketsphinx",
        model_dir=tiny_model_dir,
        journal_dir=tmp_path,
        threshold=1.5,
    )
    session, info = build_live_session(spec, resources)
    model = resources.punctuation_model(tiny_model_dir)
    assert isinstance(session.source, PausableSource) and info.name == "pocketsphinx"
    assert session.engine.decoder.settings == spec.decoder_settings(model.config.decoder)
    assert session.engine.decoder.threshold == 1.5
    session.start()
    assert session.wait(60)
    transcript = session.stop()
    assert len(transcript.words) >= 8 and session.journal.closed
    header = json.loads(session.journal.path.read_text().splitlines()[0])
    assert header["model"] == "built-in" and header["source"] == speech_wav.name
    assert header["language"] == "en-us" and info.english


def test_a_session_of_another_language_journals_it_and_ends_without_an_english_period(
    speech_wav, tiny_model_dir, tmp_path
):
    """A recognizer that hears Korean (as a Korean Vosk model declares it): its words pass through
    unmarked, the journal's header names the language, and what recover or Restore export from it
    ends as it was heard."""
    from engine.cli.recover import save
    from engine.transcript.journal import read_journal

    def korean(kind, model):
        recognizer = PocketSphinxRecognizer()
        recognizer.language = "ko"
        return recognizer, ""

    resources = SessionResources(korean)
    spec = SessionSpec(
        source=SourceChoice("file", str(speech_wav)),
        realtime=False,
        model_dir=tiny_model_dir,
        journal_dir=tmp_path / "journal",
    )
    session, info = build_live_session(spec, resources)
    assert info.language == "ko" and not info.english and info.marks == "recognizer"
    session.start()
    assert session.wait(60)
    transcript = session.stop()
    assert len(transcript.words) >= 4
    contents = read_journal(session.journal.path)
    assert contents.header["language"] == "ko" and not contents.english
    save(contents, resources.punctuation_model(tiny_model_dir), "txt", tmp_path / "out")
    (saved,) = (tmp_path / "out").glob("recovered-*.txt")
    text = saved.read_text()
    assert text.split() == [w.text for w in contents.transcript.words] and "." not in text, text


def test_a_missing_file_fails_before_any_model_loads(tmp_path):
    from engine.audio.base import AudioError

    def never(*args):
        raise AssertionError("a model was loaded for a session that cannot start")

    spec = SessionSpec(source=SourceChoice("file", str(tmp_path / "missing.wav")))
    with pytest.raises(AudioError, match="no such file"):
        build_live_session(spec, SessionResources(never, never))


def test_a_vosk_model_that_will_not_load_falls_back_to_the_built_in_recognizer_with_ways_out(
    tmp_path, monkeypatch
):
    """The app's factory: captions go on with the built-in recognizer, and the front end gets the
    three ways out as actions, each with its real command."""
    from engine.files import paths
    from engine.session.resources import SessionResources
    from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model

    name = "vosk-model-small-en-us-0.15"
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))
    model = write_tiny_vosk_model(paths.recognizer_models_dir() / name)
    final = model / "am" / "final.mdl"
    final.write_bytes(final.read_bytes()[: final.stat().st_size // 2])  # complete, but damaged
    resources = SessionResources()
    try:
        recognizer, info = resources.recognizer("auto", "")
        assert recognizer.name == info.name == "whisper"  # the built-in recognizer, embedded
        assert str(model) in info.notice and "built-in recognizer meanwhile" in info.notice
        assert "\n" not in info.notice and "livecap models" not in info.notice  # the buttons say that
        assert [(w.action, w.label) for w in info.ways_out] == [
            ("use_builtin", "Use the built-in recognizer"),
            ("download", "Download again"),
            ("remove", "Remove"),
        ]
        assert all(w.model == name for w in info.ways_out[1:])
        assert info.ways_out[1].command == f"livecap models download {name} --replace"
    finally:
        resources.close_recognizers()
