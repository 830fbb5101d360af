"""A change of speaker side ends the sentence in progress, in both streaming decoders; a mark
that settled before the change stays as it settled."""

from __future__ import annotations

import pytest

from engine.events import Provisional, Retracted, Settled
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.speaker_turns import side, starts_turn, turn_end_mark
from engine.punctuation.streaming import StreamingDecoder
from engine.words import Word
from tests.scripted import SURE, UNSURE, ScriptedScorer

LEANS_QUESTION = [0.5, 0.1, 0.1, 0.3]  # no mark, but a question rather than a statement if one ends here


def spoken(*words: tuple[str, str], written: bool = False, start: float = 0.0) -> list[Word]:
    """Words 0.4 s apart; ``written``: each also written by its recognizer, as Whisper does."""
    return [
        Word(text, start + k * 0.4, start + k * 0.4 + 0.3, written=text if written else "", speaker=speaker)
        for k, (text, speaker) in enumerate(words)
    ]


def settled(events) -> dict[int, tuple[str, str]]:
    return {e.position: (e.form, e.mark) for e in events if isinstance(e, Settled)}


def test_the_rule_compares_sides_as_appended():
    assert side("others:2") == side("others") == "others" and side("me") == "me" and side("") == ""
    assert starts_turn("me", "others") and starts_turn("others:1", "me")
    assert not starts_turn("others:1", "others:2") and not starts_turn("", "") and not starts_turn(None, "me")
    assert turn_end_mark("none") == "period" and turn_end_mark("comma", "question") == "question"
    assert turn_end_mark("question") == "question"


# ---- the streaming decoder (the punctuation model's marks) ---------------------------------------
def streaming(script=lambda w, l, p: UNSURE["none"], silence_gap=None) -> StreamingDecoder:
    return StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=silence_gap)
    )


def test_streaming_ends_the_sentence_where_the_other_side_speaks():
    decoder = streaming()
    events = decoder.push_many(spoken(("so", "me"), ("we", "me"), ("agree", "me")))
    assert settled(events) == {}  # unsure: waiting for context
    events = decoder.push(spoken(("yes", "others"), start=1.2)[0])
    # The other side spoke: my words settle at once, the last with a sentence end.
    assert settled(events) == {0: ("So", "none"), 1: ("we", "none"), 2: ("agree", "period")}
    assert [(e.position, e.form) for e in events if isinstance(e, Provisional)][-1] == (3, "Yes")
    events = decoder.push(spoken(("indeed", "others"), start=1.6)[0]) + decoder.flush()
    assert settled(events) == {3: ("Yes", "none"), 4: ("indeed", "none")}


def test_streaming_lets_the_model_choose_question_or_period_and_keeps_a_mark_it_made():
    def script(word, lookahead, pause):
        return {"why": LEANS_QUESTION, "sure": SURE["question"]}.get(word, UNSURE["none"])

    decoder = streaming(script)
    events = decoder.push_many(spoken(("why", "me"), ("no", "others"), ("sure", "others"), ("ok", "me")))
    events += decoder.flush()
    assert settled(events) == {
        0: ("Why", "question"),
        1: ("No", "none"),
        2: ("sure", "question"),
        3: ("Ok", "none"),
    }


def test_streaming_never_changes_a_mark_that_settled_before_the_change():
    decoder = streaming(silence_gap=1.0)
    events = decoder.push_many(spoken(("so", "me"), ("we", "me"), ("agree", "me")))
    events += decoder.advance_time(3.0)  # a silence settles them, "agree" without an end
    assert settled(events)[2] == ("agree", "none")
    events = decoder.push(spoken(("yes", "others"), start=3.5)[0]) + decoder.flush()
    assert settled(events) == {3: ("Yes", "none")}  # a capital; no mark of mine settles again


def test_streaming_voices_among_the_others_and_one_source_words_do_not_end_sentences():
    for speakers in (("others:1", "others:2"), ("", "")):
        decoder = streaming()
        words = spoken(("so", speakers[0]), ("we", speakers[0]), ("agree", speakers[1]), ("now", speakers[1]))
        assert settled(decoder.push_many(words) + decoder.flush()) == {
            0: ("So", "none"),
            1: ("we", "none"),
            2: ("agree", "none"),
            3: ("now", "none"),
        }


def test_streaming_ends_the_last_sentence_at_the_end_of_input_after_a_turn():
    decoder = streaming()
    events = decoder.push_many(spoken(("hi", "me"), ("hello", "others")))
    events += decoder.finish()
    assert settled(events) == {0: ("Hi", "period"), 1: ("Hello", "period")}


# ---- the recognizer's own marks ----------------------------------------------------------------
@pytest.mark.parametrize("settles_on_arrival", [False, True])
def test_recognizer_marks_end_the_sentence_in_one_batch(settles_on_arrival):
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=settles_on_arrival)
    words = spoken(
        ("so", "me"), ("we", "me"), ("agree", "me"), ("yes", "others"), ("indeed", "others"), written=True
    )
    events = decoder.push_many(words) + decoder.flush()
    assert settled(events) == {
        0: ("So", "none"),
        1: ("we", "none"),
        2: ("agree", "period"),
        3: ("Yes", "none"),
        4: ("indeed", "none"),
    }


def test_recognizer_marks_revised_live_end_the_sentence_when_the_other_side_speaks():
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=False)
    decoder.push_many(spoken(("why", "me"), ("not", "me"), written=True))
    events = decoder.push(spoken(("sure", "others"), written=True, start=1.0)[0])
    assert [(e.position, e.mark) for e in events if isinstance(e, Provisional)][0] == (1, "period")
    rewritten = {1: Word("not", 0.4, 0.7, written="not?", speaker="me")}  # a newer writing: a question
    events = decoder.revise_writings(rewritten, settled=3)
    assert settled(events) == {0: ("Why", "none"), 1: ("not", "question"), 2: ("Sure", "none")}


def test_recognizer_marks_settled_on_arrival_stay_and_the_next_side_still_starts_a_sentence():
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=True)
    events = decoder.push_many(spoken(("so", "me"), ("we", "me"), written=True))
    assert settled(events) == {0: ("So", "none"), 1: ("we", "none")}
    events = decoder.push(spoken(("yes", "others"), written=True, start=1.0)[0])
    assert settled(events) == {2: ("Yes", "none")}


def test_a_turn_taken_back_leaves_the_sentence_open():
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=False)
    decoder.push_many(spoken(("so", "me"), ("we", "me"), ("yes", "others"), written=True))
    events = decoder.retract(1)  # the recognizer took "yes" back
    assert isinstance(events[0], Retracted) and [(e.position, e.mark) for e in events[1:]] == [(1, "none")]
    events = decoder.push(spoken(("agree", "me"), written=True, start=0.8)[0]) + decoder.flush()
    assert settled(events) == {0: ("So", "none"), 1: ("we", "none"), 2: ("agree", "none")}


def test_words_without_a_writing_stay_unmarked_across_a_turn():
    """A language the punctuation model does not know: its words pass through as recognized."""
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=True)
    events = decoder.push_many(spoken(("안녕", "me"), ("네", "others")))
    assert settled(events) == {0: ("안녕", "none"), 1: ("네", "none")}
