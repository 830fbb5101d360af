"""Speed or accuracy (`--accuracy`, the settings' choice): "best" runs the real Whisper base told
English where the built-in Whisper would run, for files and live; live, on a CPU whose probe says
base cannot keep up, and where the pack is missing, tiny.en captions with one line saying why.
A choice the engine does not know is refused in one line that names the choices."""

import pytest

from engine.cli.main import main
from engine.recognizers import language_pack, select
from engine.recognizers.accuracy import ACCURACIES, ACCURACY_OPTION, Accuracy, accuracy, wants_base
from engine.recognizers.base import RecognizerError
from engine.recognizers.kinds import POCKETSPHINX, WHISPER, WHISPER_BASE
from engine.recognizers.select import open_recognizer
from engine.session.build import SessionSpec


def _open(choice: str, live: bool, **kw):
    return open_recognizer(None, options={ACCURACY_OPTION: choice}, models_dir=None, live=live, **kw)


def test_each_choice_is_declared_once_with_its_words():
    assert ACCURACIES == ("fast", "best", "auto")
    assert all(a.label and a.help for a in Accuracy)
    assert wants_base("best", live=False) and wants_base("best", live=True)
    assert not wants_base("fast", live=False) and not wants_base("fast", live=True)
    with pytest.raises(ValueError, match="accuracy must be one of fast, best, auto, got 'turbo'"):
        accuracy("turbo")
    with pytest.raises(ValueError, match="fast, best, auto"):
        SessionSpec(accuracy="turbo")


def test_the_spec_hands_the_choice_on_only_where_it_asks_for_base():
    assert SessionSpec(accuracy="fast").recognition.request() == ("auto", {})
    # Whisper tiny.en named: only "best" overrides the name
    assert SessionSpec(recognizer="whisper").recognition.request(live=False) == ("whisper", {})
    named_best = SessionSpec(recognizer="whisper", accuracy="best")
    assert named_best.recognition.request()[1] == {ACCURACY_OPTION: "best"}
    assert SessionSpec(accuracy="best").recognition.request(live=False) == ("auto", {ACCURACY_OPTION: "best"})
    # a recognizer chosen by name other than Whisper is what runs, whatever the accuracy
    assert SessionSpec(recognizer="pocketsphinx", accuracy="best").recognition.request() == (
        "pocketsphinx",
        {},
    )
    # another language runs base anyway: its options are the language's
    kind, options = SessionSpec(language="de", accuracy="fast").recognition.request()
    assert kind == WHISPER_BASE.name and ACCURACY_OPTION not in options


def test_best_for_a_file_runs_whisper_base_told_english(pack_data):
    opened = _open("best", live=False)
    try:
        assert opened.notice == ""
        assert opened.recognizer.name == WHISPER_BASE.name
        assert opened.recognizer.language == "en" and not opened.recognizer.detects_language
    finally:
        opened.recognizer.close()


def test_best_live_runs_base_at_its_kinds_cadence(pack_data):
    opened = _open("best", live=True)  # the languages' conftest takes this CPU as fast enough
    try:
        assert opened.recognizer.name == WHISPER_BASE.name
        assert opened.recognizer.options.cadence == WHISPER_BASE.live_cadence
        assert opened.recognizer.options.language == "en"
    finally:
        opened.recognizer.close()


def test_auto_runs_base_for_a_file_and_tiny_en_live_as_measured(pack_data):
    from engine.recognizers.accuracy import AUTO_FILE_BASE, AUTO_LIVE_BASE

    for live, base in ((False, AUTO_FILE_BASE), (True, AUTO_LIVE_BASE)):
        kind, options = SessionSpec().recognition.request(live)
        opened = open_recognizer(kind, options=options, models_dir=None, live=live)
        try:
            assert opened.recognizer.name == (WHISPER_BASE.name if base else WHISPER.name)
        finally:
            opened.recognizer.close()


def test_fast_runs_tiny_en(pack_data):
    opened = _open("fast", live=False)
    try:
        assert opened.recognizer.name == WHISPER.name and opened.notice == ""
    finally:
        opened.recognizer.close()


def test_live_where_base_cannot_keep_up_tiny_en_captions_and_one_line_says_why(pack_data, monkeypatch):
    # The CPU is the absent hardware here: its probe reports base's decode at twice the cadence,
    # tiny.en's at a tenth.
    monkeypatch.setattr(
        select, "live_load", lambda recognizer: 2.0 if recognizer.name == WHISPER_BASE.name else 0.1
    )
    opened = _open("best", live=True)
    try:
        assert opened.recognizer.name == WHISPER.name
        assert opened.notice.startswith("Whisper base cannot keep up with live speech on this computer (")
        assert "live captions use Whisper tiny.en" in opened.notice and "\n" not in opened.notice
    finally:
        opened.recognizer.close()
    # a file is never refused: it waits for its decodes
    opened = _open("best", live=False)
    try:
        assert opened.recognizer.name == WHISPER_BASE.name
    finally:
        opened.recognizer.close()


def test_where_neither_whisper_keeps_up_live_pocketsphinx_captions_and_both_reasons_are_given(
    pack_data, monkeypatch
):
    # base refused by its probe must not skip tiny.en's own: this CPU is too slow for both.
    probed = []
    monkeypatch.setattr(select, "live_load", lambda recognizer: probed.append(recognizer.name) or 2.0)
    opened = _open("best", live=True)
    try:
        assert probed == [WHISPER_BASE.name, WHISPER.name]
        assert opened.recognizer.name == POCKETSPHINX.name
        assert opened.notice.startswith("Whisper cannot keep up with live speech on this computer")
    finally:
        opened.recognizer.close()


def test_without_the_pack_best_says_how_to_install_it_and_auto_says_nothing(data_dir, monkeypatch):
    missing = language_pack.LanguagePackStatus(False, False, None, language_pack.NOT_INSTALLED)
    monkeypatch.setattr(language_pack, "language_pack_status", lambda: missing)
    for choice, says in (("best", True), ("auto", False)):
        opened = _open(choice, live=False)
        try:
            assert opened.recognizer.name == WHISPER.name
            assert (language_pack.INSTALL in opened.notice) is says
        finally:
            opened.recognizer.close()


def test_an_unknown_accuracy_is_one_line(capsys):
    with pytest.raises(RecognizerError, match="accuracy must be one of fast, best, auto"):
        _open("turbo", live=False)
    with pytest.raises(SystemExit):
        main(["transcribe", "x.wav", "--accuracy", "turbo"])
    err = capsys.readouterr().err
    assert "invalid choice: 'turbo'" in err and "fast" in err


@pytest.mark.needs_espeak
def test_transcribe_with_best_writes_base_english_words(pack_data, tmp_path, capsys):
    from tests.engine.languages.conftest import speak

    wav = speak(tmp_path / "english.wav", "Good morning. The weather is lovely today.", "en")
    out = tmp_path / "out.txt"
    assert main(["transcribe", str(wav), "--accuracy", "best", "-o", str(out)]) == 0
    assert "livecap: whisper-base, English" in capsys.readouterr().err
    text = out.read_text().lower()
    assert "morning" in text and "lovely today" in text


def test_the_window_and_the_command_line_take_the_same_choices():
    from app.launcher import build_parser

    window = build_parser()
    assert window.parse_args(["--accuracy", "best"]).accuracy == "best"
    assert window.parse_args([]).accuracy is None  # the stored setting stays as it is
    with pytest.raises(SystemExit):
        window.parse_args(["--accuracy", "turbo"])


def test_a_pack_that_will_not_open_leaves_tiny_en_captioning_and_says_why(data_dir, monkeypatch):
    def damaged(*args, **kwargs):
        raise language_pack.LanguagePackError("the language pack is damaged: " + language_pack.REINSTALL)

    monkeypatch.setattr(language_pack, "ensure_language_pack", damaged)
    opened = _open("best", live=False)
    try:
        assert opened.recognizer.name == WHISPER.name
        assert opened.notice.startswith("the language pack is damaged") and "tiny.en" in opened.notice
    finally:
        opened.recognizer.close()
