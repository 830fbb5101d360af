"""A transcript word carries the recognized ``Word`` whole (``heard``), so a field the recognizer
side adds reaches the transcript, its JSON and the journal without a field-by-field copy."""

from dataclasses import replace

import pytest

from engine.events import Appended, Settled
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word, word_from_dict, word_to_dict

HEARD = Word("budget", 1.5, 1.9, 0.8, "Budget,")


def test_the_builder_keeps_the_recognized_word_itself():
    builder = TranscriptBuilder()
    builder.apply([Appended(0, HEARD), Settled(0, "comma", "capitalized", 2, "Budget")])
    [word] = builder.words
    assert word.heard is HEARD
    assert (word.text, word.start, word.end, word.confidence, word.written) == (
        "budget",
        1.5,
        1.9,
        0.8,
        "Budget,",
    )
    assert word.display == "Budget," and word.settled


def test_replace_and_the_fields_change_the_word_without_copying_it_by_hand():
    word = TranscriptWord(heard=HEARD, mark="comma", settled=True)
    ended = replace(word, mark="period")
    assert ended.heard is HEARD and ended.settled and ended.mark == "period" and word.mark == "comma"
    word.start = 2.0  # writes through to a new Word; the recognized one is left as it was
    assert word.heard == replace(HEARD, start=2.0) and HEARD.start == 1.5
    assert TranscriptWord("budget", 1.5, 1.9, 0.8, written="Budget,") == TranscriptWord(heard=HEARD)
    with pytest.raises(TypeError, match="not both"):
        TranscriptWord("budget", heard=HEARD)
    with pytest.raises(ValueError, match="unknown mark"):
        TranscriptWord(heard=HEARD, mark="exclamation")


def test_every_field_of_the_word_goes_through_json_and_back():
    for key in ("text", "word"):  # the journal's lines, a transcript's words
        assert word_from_dict(word_to_dict(HEARD, text_key=key), text_key=key) == HEARD
    bare = word_to_dict(Word("ok", None, None))
    assert bare == {"text": "ok", "start": None, "end": None, "confidence": 1.0}  # unset: no key
    transcript = Transcript([TranscriptWord(heard=HEARD, mark="comma", case="capitalized")])
    again = Transcript.from_dict(transcript.to_dict())
    assert again.words == transcript.words and again.words[0].heard == HEARD
    # a transcript written before words carried their writing still reads
    old = {"word": "hello", "display": "Hello.", "start": 0.1, "end": 0.4, "confidence": 0.9,
           "mark": "period", "case": "capitalized", "form": None}  # fmt: skip
    assert TranscriptWord.from_dict(old).heard == Word("hello", 0.1, 0.4, 0.9)
