"""The end of input is the end of a sentence: the last word gets a period or a
question mark, by the model's choice between them, in the streaming and offline decoders, in
``repunctuate`` and in every export; nothing changes before the end."""

import pytest

from engine.events import Settled
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.session.batch import repunctuate
from engine.transcript.export import FORMATS, export
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word
from tests.scripted import SURE, UNSURE, ScriptedScorer

TEXT = "so what do you think i am not sure".split()


def script_for(last):
    return lambda w, l, pause: last if w == "sure" else SURE["none"]


def settled(events):
    return {e.position: e for e in events if isinstance(e, Settled)}


@pytest.mark.parametrize(
    "last,mark",
    [
        (SURE["none"], "period"),
        (SURE["comma"], "period"),
        ([0.5, 0.1, 0.1, 0.3], "question"),
        (SURE["question"], "question"),
    ],
)
def test_streaming_finish_ends_the_last_sentence(last, mark):
    dec = StreamingDecoder(
        ScriptedScorer(script_for(last)), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None)
    )
    events = [e for w in TEXT for e in dec.push(Word(w))]
    assert len(TEXT) - 1 not in settled(events)  # nothing about the end before the end
    marks = {p: e.mark for p, e in settled(events + dec.finish()).items()}
    assert marks[len(TEXT) - 1] == mark and all(marks[p] == "none" for p in range(len(TEXT) - 1))


def test_streaming_finish_corrects_a_last_word_that_settled_before_the_end():
    # l_min 0: a sure last word settles at once, with "none"; only finish() knows it is the last.
    dec = StreamingDecoder(
        ScriptedScorer(script_for(SURE["none"])), DecoderSettings(l_min=0, l_max=4, threshold=0.5)
    )
    events = [e for w in TEXT for e in dec.push(Word(w))]
    assert settled(events)[len(TEXT) - 1].mark == "none"
    assert dec.flush() == []  # a pause is not the end: flush leaves it alone
    assert settled(dec.finish())[len(TEXT) - 1].mark == "period"


def test_flush_at_a_pause_is_unchanged():
    dec = StreamingDecoder(
        ScriptedScorer(script_for(UNSURE["comma"])), DecoderSettings(l_min=1, l_max=4, threshold=0.5)
    )
    events = [e for w in TEXT for e in dec.push(Word(w))] + dec.flush()
    assert settled(events)[len(TEXT) - 1].mark == "comma"


@pytest.mark.parametrize("last,mark", [(SURE["none"], "period"), ([0.6, 0.0, 0.1, 0.3], "question")])
def test_offline_end_of_input_and_repunctuate(last, mark):
    dec = OfflineDecoder(ScriptedScorer(script_for(last)), DecoderSettings(pause_threshold=None))
    words = [Word(w) for w in TEXT]
    assert dec.decode(words)[-1].mark == "none"  # a piece of a longer text: no end yet
    assert dec.decode(words, end_of_input=True)[-1].mark == mark


def test_repunctuate_ends_the_session_on_a_real_model(tiny_model):
    transcript = repunctuate([Word(w) for w in TEXT], tiny_model)
    assert transcript.words[-1].mark in ("period", "question")


@pytest.mark.parametrize("fmt", ["txt", "json", "srt", "vtt"])
def test_every_export_ends_the_last_sentence(tmp_path, fmt):
    # A transcript that never went through repunctuate (a live one, a recovered journal).
    words = [TranscriptWord(w, i * 0.5, i * 0.5 + 0.4) for i, w in enumerate(TEXT)]
    transcript = Transcript(words)
    path = export(transcript, fmt, tmp_path / f"t.{fmt}")
    assert "sure." in path.read_text()
    assert transcript.words[-1].mark == "none"  # the caller's transcript is not changed
    assert "sure." not in FORMATS[fmt].render(transcript)
