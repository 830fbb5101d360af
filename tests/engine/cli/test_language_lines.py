"""What ``listen`` and ``transcribe`` say of the language: plain words, and no translation
announced where there is nothing to translate. Nothing is decoded: the lines are made from a
recognizer's declarations, as the commands make them."""

from __future__ import annotations

import pytest

from engine.cli.common import describe_recognizer
from engine.cli.transcribe import whose_marks_in_files
from engine.punctuation.settings import DecoderSettings
from engine.session.marks import choose_decoder


class Heard:
    """A Whisper recognizer's declarations: what the notices read."""

    name = "whisper-base"
    writes_marks = True
    commits_words = True
    revises_writing = True
    multilingual = True

    def __init__(self, language, translating=False, detects=False):
        self.language, self.translating, self.detects_language = language, translating, detects


@pytest.mark.parametrize("detected", [False, True])
def test_translate_on_english_speech_says_there_is_nothing_to_translate(detected):
    line = describe_recognizer("whisper-base", "en", translating=True, detected=detected)
    assert "from English" not in line, line
    assert line.startswith("whisper-base, English speech") and line.endswith(
        "the captions are in English; nothing to translate"
    )
    german = describe_recognizer("whisper-base", "de", translating=True, detected=detected)
    assert german.startswith("whisper-base, translating to English from German")


def test_a_language_told_from_the_first_words_is_said_in_plain_words(capsys):
    _, notice = choose_decoder(None, DecoderSettings(), Heard(None, detects=True))
    assert notice.startswith("The language is detected from the first words spoken. "), notice
    whose_marks_in_files(Heard(None, detects=True), "auto")  # what ``transcribe`` says
    said = capsys.readouterr().err
    assert said.startswith("livecap: the language is detected from the first words spoken; "), said
    for words in (notice, said):
        assert "tells from" not in words and "hears a language" not in words
    _, notice = choose_decoder(None, DecoderSettings(), Heard("de"))
    assert notice.startswith("The speech is German. livecap's punctuation model is English only")
