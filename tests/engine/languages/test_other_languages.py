"""Other languages and English captions of them, with the real Whisper base of the language pack:
the recognizer's language and task, the language told from the speech, the guard that keeps the
English punctuation model off other languages' words, the CLI, the journal and the exports."""

import json

import pytest

from engine.cli.main import main
from engine.events import LanguageDetected
from engine.recognizers.base import RecognizerError
from engine.recognizers.kinds import WHISPER_BASE, find_kind
from engine.recognizers.select import open_recognizer
from engine.session.build import SessionSpec
from engine.session.marks import choose_decoder, whose_marks
from engine.session.resources import RecognizerInfo
from tests.engine.languages.conftest import GERMAN


def spoken(text: str) -> list[str]:
    return [w.strip(".,!?").lower() for w in text.split()]


def right_words(reference: str, heard: list[str]) -> float:
    """The share of the reference's words that were heard (espeak-ng's German is hard to hear)."""
    heard = {w.strip(".,!?").lower() for w in heard}
    words = spoken(reference)
    return sum(w in heard for w in words) / len(words)


def transcribe(capsys, wav, out, *options) -> tuple[dict, str]:
    assert main(["transcribe", str(wav), "-o", str(out), "--overwrite", *options]) == 0
    return json.loads(out.read_text(encoding="utf-8")), capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_german_is_written_in_german_with_whispers_marks(pack_data, german_wav, tmp_path, capsys):
    data, err = transcribe(capsys, german_wav, tmp_path / "de.json", "--language", "de")
    assert data["language"] == "de" and data["translated"] is False
    forms = [w["form"] for w in data["words"]]
    assert right_words(GERMAN, forms) >= 0.5, forms
    assert data["words"][0]["form"] == "Guten"  # Whisper's capitals
    assert {w["mark"] for w in data["words"]} & {"period", "comma"}  # and its marks
    assert "whisper-base, German" in err


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_auto_tells_german_from_the_speech(pack_data, german_wav, tmp_path, capsys):
    data, err = transcribe(capsys, german_wav, tmp_path / "auto.json", "--language", "auto")
    assert data["language"] == "de"
    assert "whisper-base, German (detected)" in err


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_translate_gives_english_words(pack_data, german_wav, tmp_path, capsys):
    data, err = transcribe(capsys, german_wav, tmp_path / "en.json", "--language", "de", "--translate")
    assert data["language"] == "de" and data["translated"] is True
    words = {w["word"].lower() for w in data["words"]}
    assert {"good", "morning"} <= words, words
    assert "translating to English from German" in err


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_live_german_session_tells_its_language_once_and_never_runs_the_punctuation_model(
    pack_data, german_wav, tmp_path, monkeypatch
):
    from engine.audio.file_source import FileSource
    from engine.punctuation.model import load_model_or_shipped
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
    from engine.punctuation.streaming import StreamingDecoder
    from engine.session.build import build_live_session
    from engine.session.resources import SessionResources
    from engine.transcript.journal import read_journal

    def never(*args, **kwargs):
        raise AssertionError("the English punctuation model ran on German words")

    monkeypatch.setattr(StreamingDecoder, "from_model", classmethod(never))
    model = load_model_or_shipped(None).model
    resources = SessionResources(
        lambda kind, name, options=None: open_recognizer(kind, name, options=options, models_dir=None),
        lambda folder: model,
    )
    # "engine" asked for, and still not run: the words are not English.
    spec = SessionSpec(
        language="auto", realtime=False, marks="engine", journal_dir=tmp_path, history_index=False
    )
    session, info = build_live_session(spec, resources, source=FileSource(german_wav, realtime=False))
    assert info.name == "whisper-base" and info.language is None and not info.translating
    assert isinstance(session.engine.decoder, RecognizerMarksDecoder) and info.marks == "recognizer"
    told = []
    session.subscribe(lambda events: told.extend(e for e in events if isinstance(e, LanguageDetected)))
    session.start()
    assert session.wait(180)
    transcript = session.stop()
    assert [e.language for e in told] == ["de"] and 0 < told[0].probability <= 1
    assert session.recognizer.language == "de"
    assert right_words(GERMAN, [w.form for w in transcript.words]) >= 0.4
    contents = read_journal(session.journal.path)
    assert contents.language == "de" and not contents.translated and not contents.english
    resources.close_recognizers()


# -- without decoding ---------------------------------------------------------------------------
class Heard:
    """A recognizer's declarations, nothing decoded: what the marks' choice reads."""

    name = "whisper-base"
    writes_marks = True
    commits_words = True
    revises_writing = True
    multilingual = True

    def __init__(self, language, translating=False, detects=False):
        self.language, self.translating, self.detects_language = language, translating, detects


@pytest.mark.parametrize("marks", ["auto", "engine", "recognizer"])
@pytest.mark.parametrize("heard", [Heard("de"), Heard(None, detects=True), Heard("en", detects=True)])
def test_the_punctuation_model_never_marks_words_not_known_to_be_english(heard, marks):
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
    from engine.punctuation.settings import DecoderSettings

    decoder, notice = choose_decoder(None, DecoderSettings(), heard, marks)
    assert isinstance(decoder, RecognizerMarksDecoder)
    assert "livecap's punctuation model is English" in notice
    assert whose_marks(heard, marks, offline=True) == "recognizer"


def test_a_translation_is_english_and_keeps_whispers_marks_by_default():
    translation = Heard("de", translating=True)
    assert whose_marks(translation, "auto") == "recognizer"
    assert whose_marks(translation, "engine") == "engine"  # English words: the model may mark them
    info = RecognizerInfo("whisper-base", "", None, language="de", translating=True)
    assert info.english and info.kind is WHISPER_BASE


def test_the_spec_chooses_whisper_base_for_another_language_or_a_translation():
    assert SessionSpec().recognition.request() == ("auto", {})
    assert SessionSpec(recognizer="vosk").recognition.request() == ("vosk", {})
    assert SessionSpec(language="DE").recognition.request() == (
        "whisper-base",
        {"language": "de", "task": "transcribe"},
    )
    assert SessionSpec(language="auto", translate=True).recognition.request() == (
        "whisper-base",
        {"language": None, "task": "translate"},
    )
    # English speech has nothing to translate: English transcription, on English's recognizer.
    english = SessionSpec(translate=True)
    assert not english.translate and english.recognition.request() == ("auto", {})
    with pytest.raises(ValueError, match="livecap models list --languages"):
        SessionSpec(language="klingon")


def test_whisper_base_is_declared_in_the_registry_and_not_a_recognizer_choice():
    from engine.recognizers.kinds import CHOICES, LANGUAGE_PACK

    kind = find_kind("whisper-base")
    assert kind is WHISPER_BASE and kind.writes_marks and kind.commits_words and kind.marks_by_default
    assert kind.language == "multilingual" and kind.models == (LANGUAGE_PACK,)
    assert "whisper-base" not in CHOICES  # chosen by the language


def test_without_the_pack_whisper_base_says_how_to_install_it(data_dir, monkeypatch):
    from engine.recognizers import language_pack

    monkeypatch.setattr(language_pack, "_part_file", lambda dist, name: None)
    with pytest.raises(RecognizerError) as caught:
        open_recognizer("whisper-base", None, options={"language": "de"}, models_dir=None)
    assert str(caught.value).startswith(
        "livecap's language pack is not installed: pip install 'livecap[languages]'"
    )


@pytest.mark.parametrize(
    "options, says",
    [
        (["--language", "klingon"], "unknown language 'klingon'"),
        (["--language", "de", "--recognizer", "vosk"], "--language de runs Whisper base"),
        (["--language", "auto", "--translate", "--recognizer", "whisper"], "--translate runs Whisper base"),
    ],
)
def test_a_bad_language_choice_is_one_line(options, says, tmp_path, capsys):
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"")
    code = main(["transcribe", str(wav), *options])
    err = capsys.readouterr().err.strip()
    assert code != 0 and says in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("command", ["listen", "dictate", "transcribe"])
def test_every_live_command_takes_language_and_translate(command):
    from engine.cli.main import build_parser

    args = build_parser().parse_args(
        [command, *(["x.wav"] if command == "transcribe" else []), "--language", "fr", "--translate"]
    )
    assert args.language == "fr" and args.translate


def test_models_list_shows_the_language_pack(data_dir, installed_pack, capsys):
    assert main(["models", "list"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if "whisper-base" in line]
    assert "145 MB" in row and "language pack, installed" in row and not row.startswith("*")
    assert main(["models", "list", "--lang", "fr"]) == 0
    assert any("whisper-base" in line and "French" in line for line in capsys.readouterr().out.splitlines())
    assert main(["models", "list", "--languages"]) == 0
    assert "de   German" in capsys.readouterr().out


def test_a_translated_export_says_so():
    from engine.transcript.export import render
    from engine.transcript.transcript import Transcript, TranscriptWord

    t = Transcript([TranscriptWord("hello", 0.5, 0.9, 1.0, mark="period", case="capitalized")])
    data = json.loads(render(t, "json", language="de", translated=True))
    assert data["language"] == "de" and data["translated"] is True
    assert "NOTE\nEnglish translation of German speech" in render(t, "vtt", language="de", translated=True)
    assert "NOTE" not in render(t, "vtt", language="de") and "language" not in json.loads(render(t, "json"))
    assert render(t, "txt", language="de", translated=True) == render(t, "txt")


def test_the_journal_records_the_translation_and_the_detected_language(tmp_path):
    from engine.transcript.journal import JournalWriter, read_journal

    writer = JournalWriter.create(
        tmp_path, header={"recognizer": "whisper-base", "language": None, "translated": True}
    )
    writer.record_language("de", 0.91)
    contents = read_journal(writer.path)  # read while open: a journal with no words goes at close
    writer.close()
    assert contents.language == "de" and contents.translated and contents.english


def test_auto_decides_on_ten_seconds_of_speech_or_the_first_utterance_end_and_then_keeps_it(pack_data):
    import numpy as np

    from engine.recognizers.silero_vad import FRAME
    from engine.recognizers.whisper_rec import DETECT_AFTER

    recognizer, _, _ = open_recognizer("whisper-base", None, options={"language": None}, models_dir=None)
    try:
        told = []
        recognizer.on_language_detected = lambda language, probability: told.append(language)
        recognizer._transcribe = lambda audio, offset, prompt=None: []  # the detection alone
        recognizer._detect_language = lambda audio: (
            setattr(recognizer, "language", "de"),
            recognizer.on_language_detected("de", 0.9),
        )
        audio = np.zeros(16000, np.float32)
        recognizer._buffer.speech_frames = int((DETECT_AFTER - 1) * 16000 / FRAME)
        recognizer._decode(audio)  # nine seconds of speech, the utterance going on: not yet
        assert recognizer.language is None and told == []
        recognizer._buffer.speech_frames = int(DETECT_AFTER * 16000 / FRAME) + 1
        recognizer._decode(audio)
        recognizer._decode(audio, utterance_end=True)
        assert recognizer.language == "de" and told == ["de"]  # once, then kept
        recognizer.reset()  # a new stream is told anew
        assert recognizer.language is None and recognizer.detects_language
        recognizer._decode(audio, utterance_end=True)  # a short first utterance decides
        assert told == ["de", "de"]
    finally:
        recognizer.close()
