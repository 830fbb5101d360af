"""What ``livecap punctuate`` accepts: text, JSON word lists, Vosk results, livecap transcripts."""

import json

import pytest

from engine.punctuation.model_inputs import pauses_from_times
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.text_input import InputError, parse_words
from engine.words import Word
from tests.scripted import SURE, ScriptedScorer

VOSK = {
    "result": [
        {"conf": 1.0, "start": 0.0, "end": 0.4, "word": "hello"},
        {"conf": 0.8, "start": 1.2, "end": 1.5, "word": "world"},
    ],
    "text": "hello world",
}


def test_text_is_stripped_of_punctuation_and_case():
    words = parse_words("Hello, World! I’m “fine” (really) — 3.5 well-known.")
    assert [w.text for w in words] == ["hello", "world", "i'm", "fine", "really", "3.5", "well-known"]
    assert all(w.start is None and w.end is None for w in words)


def test_text_that_starts_with_a_bracket_is_still_text():
    assert [w.text for w in parse_words("[laughter] so anyway")] == ["laughter", "so", "anyway"]


def test_vosk_result_object_and_list_of_results():
    one = parse_words(json.dumps(VOSK))
    assert one == [Word("hello", 0.0, 0.4, 1.0), Word("world", 1.2, 1.5, 0.8)]
    many = parse_words(
        json.dumps([VOSK, {"result": [{"word": "again", "start": 3.0, "end": 3.3, "conf": 1}]}])
    )
    assert [w.text for w in many] == ["hello", "world", "again"] and many[2].start == 3.0
    # a Vosk final result without word timings
    assert [w.text for w in parse_words('{"text": "no times here"}')] == ["no", "times", "here"]


def test_word_lists_and_livecap_transcripts():
    rows = [{"text": "Good", "start": 0, "end": 0.2, "confidence": 0.5}, "morning all"]
    assert parse_words(json.dumps(rows)) == [Word("good", 0.0, 0.2, 0.5), Word("morning"), Word("all")]
    transcript = {"version": 1, "words": [{"word": "hi", "start": 1.0, "end": 1.2}]}
    assert parse_words(json.dumps(transcript)) == [Word("hi", 1.0, 1.2)]


@pytest.mark.parametrize(
    "content,message",
    [
        ("", "no words"),
        ("?!", "no words"),
        ("[]", "holds no words"),
        ('{"foo": 1}', "neither"),
        ('[{"start": 1}]', "no 'word'"),
        ('[{"word": "a", "start": "soon"}]', "non-numeric"),
        ('[{"word": "a", "start": 2, "end": 1}]', "ends before it starts"),
        ("[3]", "neither a word object nor a string"),
    ],
)
def test_bad_input_says_why(content, message):
    with pytest.raises(InputError, match=message):
        parse_words(content, "input")


def test_vosk_timings_become_pause_tokens():
    # the 0.8 s gap after "hello" is a [PAUSE]; the scorer sees it, and the untimed text does not
    words = parse_words(json.dumps(VOSK))
    assert pauses_from_times(words, 0.28) == [True, False]
    scorer = ScriptedScorer(lambda w, l, pause: SURE["period"] if pause else SURE["none"])
    out = OfflineDecoder(scorer, DecoderSettings(pause_threshold=0.28)).decode(words)
    assert [s.mark for s in out] == ["period", "period"]  # the end of the recording is a pause too
    out = OfflineDecoder(scorer, DecoderSettings(pause_threshold=0.28)).decode(parse_words("hello world"))
    assert [s.mark for s in out] == ["none", "none"]
    out = OfflineDecoder(scorer, DecoderSettings(pause_threshold=None)).decode(words)  # --no-pauses
    assert [s.mark for s in out] == ["none", "none"]


@pytest.mark.parametrize("content", ["", "?!", "hello there", '{"broken": ', "[1, 2"])
def test_a_json_file_that_does_not_parse_is_refused_never_read_as_text(content):
    with pytest.raises(InputError, match=r"in\.json: not valid JSON \(line 1, column \d+"):
        parse_words(content, "in.json")


def test_a_symbol_in_json_words_is_kept_with_its_number_or_as_a_word():
    """Issue 62: "%" was dropped from livecap's own export ("which is 12 over plan")."""
    rows = [
        {"word": w, "start": i * 0.3, "end": i * 0.3 + 0.2}
        for i, w in enumerate("it rose 12 % today".split())
    ]
    words = parse_words(json.dumps({"words": rows}))
    assert [w.text for w in words] == ["it", "rose", "12%", "today"]
    assert (words[2].start, words[2].end) == pytest.approx((0.6, 1.1))
    spoken = parse_words(
        json.dumps(["we spent $ 8,000 & more, e.g. 12%", {"word": "+", "start": 3, "end": 4}])
    )
    assert [w.text for w in spoken] == ["we", "spent", "$8,000", "&", "more", "e.g.", "12%", "+"]


def test_a_transcript_written_before_pieces_were_joined_reads_as_whole_words():
    rows = [
        {"word": "42", "start": 0.0, "end": 0.4, "written": "42"},
        {"word": "000", "start": 0.4, "end": 0.8, "written": ",000"},
        {"word": "dollars", "start": 0.8, "end": 1.2, "written": "dollars"},
    ]
    assert [w.text for w in parse_words(json.dumps({"words": rows}))] == ["42,000", "dollars"]


def test_text_keeps_abbreviations_and_numbers_whole():
    words = parse_words("In the U.S., e.g. at 10:30, we spent 42,000 dollars (3.5 times more).")
    assert [
        w.text for w in words
    ] == "in the u.s. e.g. at 10:30 we spent 42,000 dollars 3.5 times more".split()
