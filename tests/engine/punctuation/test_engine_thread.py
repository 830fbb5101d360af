import threading

import pytest

from engine.events import EngineFailed, Settled
from engine.punctuation.engine_thread import PunctuationEngine
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.transcript.builder import TranscriptBuilder
from engine.words import Word
from tests.scripted import SURE, UNSURE, ScriptedScorer


def make_engine(script=lambda w, l, p: SURE["none"], **kw):
    return PunctuationEngine(
        StreamingDecoder(ScriptedScorer(script), DecoderSettings(silence_gap=None, **kw)), queue_size=8
    )


def test_engine_thread_matches_the_decoder_and_stops_cleanly():
    engine = make_engine(lambda w, l, p: SURE["period"] if w == "end" else SURE["none"])
    builder = TranscriptBuilder()
    threads = set()

    def collect(events):
        threads.add(threading.current_thread().name)
        builder.apply(events)

    engine.subscribe(collect)
    engine.start()
    for t in "this is the end and more".split():
        engine.push(Word(t))  # 6 words through a queue of 8
    engine.stop()
    assert not engine.running
    assert threads == {"punctuation-engine"}
    assert builder.all_settled and len(builder.words) == 6  # stop drained and flushed everything
    assert [w.display for w in builder.words] == ["This", "is", "the", "end.", "And", "more"]


def test_retraction_through_the_engine():
    engine = make_engine()
    builder = TranscriptBuilder()
    engine.subscribe(builder.apply)
    engine.start()
    for t in "one two three".split():
        engine.push(Word(t))
    engine.retract(1)
    engine.push(Word("tree"))
    engine.stop()
    assert [w.text for w in builder.words] == ["one", "two", "tree"] and builder.all_settled


def test_failure_is_published_not_silent():
    def broken(w, l, p):
        raise RuntimeError("model exploded")

    engine = make_engine(broken)
    got = []
    engine.subscribe(got.extend)
    engine.start()
    engine.push(Word("hi"))
    engine._thread.join(5)
    assert not engine.running
    assert any(isinstance(e, EngineFailed) and "model exploded" in e.message for e in got)
    with pytest.raises(RuntimeError, match="stopped"):
        engine.push(Word("again"))


def test_a_broken_subscriber_does_not_stop_captions():
    engine = make_engine()
    got = []
    engine.subscribe(lambda events: 1 / 0)
    engine.subscribe(got.extend)
    engine.start()
    engine.push(Word("hello"))
    engine.stop()
    assert any(isinstance(e, Settled) for e in got)


def test_threshold_changes_live():
    engine = make_engine(lambda w, l, p: UNSURE["none"], l_min=1, l_max=4, threshold=0.5)
    builder = TranscriptBuilder()
    engine.subscribe(builder.apply)
    engine.start()
    for t in "a b c".split():
        engine.push(Word(t))
    assert engine.wait_idle(5)
    assert not any(builder.settled)
    engine.set_threshold(2.0)
    engine.push(Word("d"))
    assert engine.wait_idle(5)
    assert builder.settled[:3] == [True, True, True]
    engine.stop()


def test_words_queued_while_the_engine_is_busy_share_one_inference():
    gate, busy = threading.Event(), threading.Event()
    scorer = ScriptedScorer(lambda w, l, p: SURE["period"] if w == "end" else SURE["none"])
    slow_tag = scorer.tag

    def tag(*args, **kwargs):
        busy.set()
        gate.wait(10)  # the first inference is slow: the next words queue up behind it
        return slow_tag(*args, **kwargs)

    scorer.tag = tag
    engine = PunctuationEngine(StreamingDecoder(scorer, DecoderSettings(silence_gap=None)), queue_size=16)
    builder = TranscriptBuilder()
    engine.subscribe(builder.apply)
    engine.start()
    engine.push(Word("so"))
    assert busy.wait(10)
    for t in "this is the end".split():
        engine.push(Word(t))
    gate.set()
    engine.stop()
    assert [w.display for w in builder.words] == ["So", "this", "is", "the", "end."]
    # "so" alone, then the four queued words together, then the final flush
    assert scorer.windows[:2] == [0, 4] and len(scorer.windows) <= 3


def test_words_committed_together_share_one_inference_however_the_threads_are_timed():
    scorer = ScriptedScorer(lambda w, l, p: SURE["period"] if w == "end" else SURE["none"])
    engine = PunctuationEngine(StreamingDecoder(scorer, DecoderSettings(silence_gap=None)), queue_size=4)
    builder = TranscriptBuilder()
    engine.subscribe(builder.apply)
    engine.start()
    engine.push_many([Word(t) for t in "this is the end".split()])  # one command, not four
    assert engine.wait_idle(5)
    assert scorer.windows == [3]  # one inference, on the window ending at the newest word
    many = [Word(f"w{k}") for k in range(PunctuationEngine.MAX_WORDS_PER_STEP + 3)]
    engine.push_many(many)  # more than one step takes: split, none lost
    engine.push_many([])  # nothing committed: nothing queued
    engine.stop()
    assert len(builder.words) == 4 + len(many) and builder.all_settled
    assert [w.display for w in builder.words[:5]] == ["This", "is", "the", "end.", "W0"]
