"""The ``Decoder`` interface (engine/punctuation/decoder.py): both decoders honour it, and the
same calls get the same kind of answer from each, so the engine thread takes either."""

import pytest

from engine.events import Appended, Retracted, Settled
from engine.punctuation.decoder import Decoder
from engine.punctuation.engine_thread import PunctuationEngine
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.words import Word

WORDS = [Word(t, 0.4 * i, 0.4 * i + 0.3, written=w) for i, (t, w) in enumerate(
    [("so", "So"), ("it", "it"), ("works", "works."), ("does", "Does"), ("it", "it?")]
)]  # fmt: skip


@pytest.fixture(params=["engine", "recognizer"])
def decoder(request, tiny_model):
    if request.param == "engine":
        return StreamingDecoder.from_model(tiny_model)
    return RecognizerMarksDecoder(DecoderSettings())


def test_both_decoders_honour_the_interface_and_say_whose_marks(decoder):
    assert isinstance(decoder, Decoder)
    assert decoder.marks_by == ("engine" if isinstance(decoder, StreamingDecoder) else "recognizer")


def test_the_same_calls_append_retract_and_settle_every_word_with_either(decoder):
    events = decoder.push_many(WORDS[:3]) + decoder.retract(1) + decoder.push_many(WORDS[3:])
    events += decoder.finish()
    assert [e.position for e in events if isinstance(e, Appended)] == [0, 1, 2, 2, 3]
    assert [e.from_position for e in events if isinstance(e, Retracted)] == [2]
    assert {e.position for e in events if isinstance(e, Settled)} == set(range(4))
    assert decoder.word_count == 4 and decoder.pending == 0 and decoder.first_unsettled == 4


def test_the_engine_thread_runs_either(decoder):
    got = []
    engine = PunctuationEngine(decoder)
    engine.subscribe(got.extend)
    engine.start()
    engine.push_many(WORDS)
    engine.flush()
    assert engine.wait_idle(30)
    engine.stop()
    assert engine.failed is None
    assert {e.position for e in got if isinstance(e, Settled)} == set(range(len(WORDS)))


def test_a_learned_form_writes_the_words_after_it_and_leaves_the_settled_ones(decoder):
    said = [Word("kubectl", 0.4 * i, 0.4 * i + 0.3, written="kubectl") for i in range(2)]
    before = decoder.push_many(said[:1]) + decoder.flush()
    decoder.learn_forms({"kubectl": "KubeCtl"})
    after = decoder.push_many(said[1:]) + decoder.finish()
    forms = {e.position: e.form for e in before + after if isinstance(e, Settled)}
    assert forms[0].lower() == "kubectl" and forms[0] != "KubeCtl"  # settled before: as it was
    # The engine's casing writes the learned form; the recognizer's marks keep its own writing.
    assert forms[1] == ("KubeCtl" if decoder.marks_by == "engine" else "kubectl")
