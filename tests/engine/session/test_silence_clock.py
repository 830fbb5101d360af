"""The clock a session hands the punctuation decoder: silence settles marks, so it runs only as far
as every side has committed its words (``SidesMerger`` with the real engine thread and decoder)."""

from types import SimpleNamespace

from engine.events import Settled
from engine.punctuation.engine_thread import PunctuationEngine
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.stabiliser import StabiliserOutput
from engine.session.merge import SidesMerger
from engine.words import Word
from tests.scripted import UNSURE, ScriptedScorer


def timed(texts, start, step=0.3):
    return [
        Word(t, round(start + k * step, 3), round(start + k * step + 0.25, 3)) for k, t in enumerate(texts)
    ]


def session_parts():
    # Never sure, and lookahead far off: only a silence settles the newest words.
    decoder = StreamingDecoder(
        ScriptedScorer(lambda word, lookahead, pause: UNSURE["none"]),
        DecoderSettings(l_max=6, silence_gap=1.2),
    )
    engine = PunctuationEngine(decoder).start()
    settled = []
    engine.subscribe(lambda events: settled.extend(e.position for e in events if isinstance(e, Settled)))
    merger = SidesMerger(engine, [""], emit=lambda events: None)
    return engine, merger, settled


def test_words_still_being_decoded_are_no_pause():
    engine, merger, settled = session_parts()
    side = SimpleNamespace(index=0)
    committed = timed(["we", "met", "on", "tuesday"], start=0.5)
    # The audio is 4 s on, 2.6 s past the last committed word, but the recognizer still holds
    # words from 2.0 s in its hypothesis: the speaker did not stop.
    merger.deliver(
        side, StabiliserOutput(commit=committed, unstable=timed(["to"], 2.0), committed_through=2.0), 4.0
    )
    merger.deliver(side, StabiliserOutput(unstable=timed(["to", "discuss"], 2.0), committed_through=2.0), 4.5)
    assert engine.wait_idle(10)
    assert settled == []  # settled at stop, not before
    engine.stop()


def test_a_real_pause_settles_the_last_words():
    engine, merger, settled = session_parts()
    side = SimpleNamespace(index=0)
    committed = timed(["we", "met", "on", "tuesday"], start=0.5)
    merger.deliver(side, StabiliserOutput(commit=committed, committed_through=2.0), 2.0)
    # Everything heard is committed, and 1.3 s of it after "tuesday" is silence.
    merger.deliver(side, StabiliserOutput(committed_through=1.65 + 1.3), 3.0)
    assert engine.wait_idle(10)
    assert sorted(settled) == [0, 1, 2, 3]
    engine.stop()
