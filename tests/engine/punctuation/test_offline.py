import numpy as np

from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.words import Word
from tests.scripted import SURE, ScriptedScorer


def test_views_are_averaged():
    # lookahead 4 says period, lookahead 3 says comma more weakly: the average picks period
    def script(w, l, pause):
        return [0.1, 0.3, 0.6, 0.0] if l == 4 else [0.1, 0.5, 0.4, 0.0]

    scorer = ScriptedScorer(script)
    dec = OfflineDecoder(scorer, views=[(4, 32), (3, 32)], pause_threshold=None)
    punct, _ = dec.probabilities([Word(f"w{i}") for i in range(10)])
    assert np.allclose(punct[0], [0.1, 0.4, 0.5, 0.0])
    assert sum(len(c) for c in scorer.calls) == 20  # every word, in every view


def test_decode_marks_case_and_progress():
    scorer = ScriptedScorer(lambda w, l, p: SURE["period"] if w == "done" else SURE["none"])
    dec = OfflineDecoder(scorer, views=[(4, 32)], pause_threshold=None)
    words = [Word(t) for t in "we are done so i go".split()]
    seen = []
    out = dec.decode(words, progress=lambda done, total: seen.append((done, total)))
    assert [s.form for s in out] == ["We", "are", "done", "So", "I", "go"]
    assert out[2].mark == "period" and seen[-1] == (6, 6)


def test_offline_uses_full_context_on_a_real_model(tiny_model):
    words = [Word(t, i * 0.5, i * 0.5 + 0.3) for i, t in enumerate("hello there how are you today".split())]
    out = OfflineDecoder.from_model(tiny_model).decode(words)
    assert len(out) == 6 and out[0].lookahead_used == 4 and out[-1].lookahead_used == 0
    # same words through the streaming decoder give one settled result per word too
    dec = StreamingDecoder.from_model(tiny_model)
    settled = [e for w in words for e in dec.push(w)] + dec.flush()
    assert sorted(e.position for e in settled if type(e).__name__ == "Settled") == list(range(6))


def test_streaming_settles_exactly_what_the_model_says_far_into_a_stream(tiny_model):
    # 400 words: the decoder trims its slots and hands the scorer only the reachable context;
    # every settled mark must still be the model's argmax for that position and lookahead
    # computed on the whole stream.
    import numpy as np

    from engine.punctuation.model_inputs import build_sample
    from engine.punctuation.streaming import Settled

    texts = (
        "so we met on monday and i think the plan works but what about the budget "
        "nobody knows yet maybe next week"
    ).split()
    words = [Word(texts[i % len(texts)]) for i in range(400)]
    dec = StreamingDecoder.from_model(tiny_model)
    settled = [e for w in words for e in dec.push(w) if isinstance(e, Settled)]
    settled += [e for e in dec.flush() if isinstance(e, Settled)]
    assert [e.position for e in settled] == list(range(400))
    ids = tiny_model.tokenizer.encode_words([w.text for w in words])
    samples = [build_sample(ids, e.position, e.lookahead_used, tiny_model.special) for e in settled]
    punct, _ = tiny_model.predict(samples)
    assert [e.mark for e in settled] == [("none", "comma", "period", "question")[k] for k in punct.argmax(1)]
    assert np.allclose([e.confidence for e in settled], punct.max(1), atol=1e-5)


def test_parallel_workers_give_exactly_the_single_worker_answer_on_a_real_model(tiny_model):
    import random

    rng = random.Random(7)
    vocab = "the a we go see plan call today will it is so and but what why how".split()
    words = [Word(rng.choice(vocab), i * 0.4, i * 0.4 + 0.3) for i in range(3 * OfflineDecoder.CHUNK + 17)]
    one = OfflineDecoder.from_model(tiny_model, workers=1)
    seen = []
    many = OfflineDecoder.from_model(tiny_model, workers=3)
    p1, c1 = one.probabilities(words)
    p3, c3 = many.probabilities(words, progress=lambda d, t: seen.append((d, t)))
    # Chunks are summed in order, so the answer does not depend on which thread ran what.
    assert np.array_equal(p1, p3) and np.array_equal(c1, c3)
    total = len(words) * len(many.views)
    assert seen[-1] == (total, total) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_a_progress_callback_that_raises_cancels_the_remaining_chunks():
    import threading
    import time

    class Stop(Exception):
        pass

    calls, lock = [], threading.Lock()

    def script(w, l, pause):
        time.sleep(0.0003)  # a chunk takes ~40 ms, like a real model's
        with lock:
            calls.append(w)
        return SURE["none"]

    words = [Word(f"w{i}") for i in range(20 * OfflineDecoder.CHUNK)]
    dec = OfflineDecoder(ScriptedScorer(script), views=[(4, 32)], pause_threshold=None, workers=2)

    def progress(done, total):
        raise Stop()

    try:
        dec.decode(words, progress=progress)
    except Stop:
        pass
    else:
        raise AssertionError("the exception from the progress callback was swallowed")
    # Stopped after the first chunk: only the chunks already running finished, not all twenty.
    assert len(calls) <= 4 * OfflineDecoder.CHUNK, len(calls)
