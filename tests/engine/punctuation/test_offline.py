import numpy as np

from engine.punctuation.model_inputs import build_window
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.scoring import ModelScorer
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.words import Word
from tests.scripted import SURE, ScriptedScorer


def test_mask_combine_averages_the_windows_that_see_enough_context():
    # a word's answer depends on its right context in the window: sure "period" with >= 4
    # words after it, an unsure "comma" with fewer. With m_r = 4 only the former count.
    def script(w, l, pause):
        return [0.1, 0.1, 0.8, 0.0] if l >= 4 else [0.1, 0.8, 0.1, 0.0]

    words = [Word(f"w{i}") for i in range(40)]
    masked = OfflineDecoder(
        ScriptedScorer(script),
        DecoderSettings(offline_window=18, offline_stride=2, offline_min_left=0, offline_min_right=4),
    )
    punct, _ = masked.probabilities(words)
    assert np.allclose(punct[:36], [0.1, 0.1, 0.8, 0.0])  # every word with 4 words after it
    assert np.allclose(punct[-1], [0.1, 0.8, 0.1, 0.0])  # the last word: the end waives the mask
    unmasked = OfflineDecoder(
        ScriptedScorer(script),
        DecoderSettings(offline_window=18, offline_stride=2, offline_min_left=0, offline_min_right=0),
    )
    punct, _ = unmasked.probabilities(words)
    assert punct[20, 1] > 0.1  # the short-context answers now take part in the average


def test_every_word_is_covered_whatever_the_settings():
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(1, 90))
        window, stride = int(rng.integers(3, 40)), int(rng.integers(1, 20))
        m_l, m_r = int(rng.integers(0, 8)), int(rng.integers(0, 8))
        scorer = ScriptedScorer(lambda w, l, pause: SURE["comma"])
        edges = bool(rng.integers(2))
        settings = DecoderSettings(
            offline_window=window,
            offline_stride=stride,
            offline_min_left=m_l,
            offline_min_right=m_r,
            offline_edge_weighting=edges,
            pause_threshold=None,
        )
        dec = OfflineDecoder(scorer, settings)
        out = dec.decode([Word(f"w{i}") for i in range(n)])
        assert [s.position for s in out] == list(range(n)) and all(s.mark == "comma" for s in out)


def test_one_window_with_no_masks_is_one_tagger_pass(tiny_model):
    words = [Word(t) for t in "so we met on monday and i think the plan works".split()]
    dec = OfflineDecoder(
        ModelScorer(tiny_model),
        DecoderSettings(
            offline_window=64,
            offline_stride=64,
            offline_min_left=0,
            offline_min_right=0,
            offline_edge_weighting=True,
        ),
    )
    punct, case = dec.probabilities(words)
    ids = tiny_model.tokenizer.encode_words([w.text for w in words])
    [(direct, direct_case)] = tiny_model.tag([build_window(ids, len(ids) - 1, tiny_model.special)])
    # edge weights scale the one window's answer for each word, and the average undoes them
    assert np.allclose(punct, direct, atol=1e-6) and np.allclose(case, direct_case, atol=1e-6)


def test_decode_marks_case_and_progress():
    scorer = ScriptedScorer(lambda w, l, p: SURE["period"] if w == "done" else SURE["none"])
    dec = OfflineDecoder(scorer, DecoderSettings(pause_threshold=None))
    words = [Word(t) for t in "we are done so i go".split()]
    seen = []
    out = dec.decode(words, progress=lambda done, total: seen.append((done, total)))
    assert [s.form for s in out] == ["We", "are", "done", "So", "I", "go"]
    assert out[2].mark == "period" and seen[-1] == (6, 6)


def test_offline_uses_full_context_on_a_real_model(tiny_model):
    words = [Word(t, i * 0.5, i * 0.5 + 0.3) for i, t in enumerate("hello there how are you today".split())]
    out = OfflineDecoder.from_model(tiny_model).decode(words)
    assert len(out) == 6 and out[0].lookahead_used == 5 and out[-1].lookahead_used == 0
    # same words through the streaming decoder give one settled result per word too
    dec = StreamingDecoder.from_model(tiny_model)
    settled = [e for w in words for e in dec.push(w)] + dec.flush()
    assert sorted(e.position for e in settled if type(e).__name__ == "Settled") == list(range(6))


def test_streaming_settles_exactly_what_the_model_says_far_into_a_stream(tiny_model):
    # 400 words: the decoder trims its slots and hands the scorer only the reachable context;
    # every settled mark must still be the model's argmax for that position and lookahead
    # computed on the whole stream.
    import numpy as np

    from engine.events import Settled

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
    windows = [build_window(ids, e.position + e.lookahead_used, tiny_model.special) for e in settled]
    punct = np.array(
        [p[e.position - w.first] for e, w, (p, _) in zip(settled, windows, tiny_model.tag(windows))]
    )
    assert [e.mark for e in settled] == [("none", "comma", "period", "question")[k] for k in punct.argmax(1)]
    assert np.allclose([e.confidence for e in settled], punct.max(1), atol=1e-5)


def test_parallel_workers_give_exactly_the_single_worker_answer_on_a_real_model(tiny_model):
    import random

    rng = random.Random(7)
    vocab = "the a we go see plan call today will it is so and but what why how".split()
    words = [Word(rng.choice(vocab), i * 0.4, i * 0.4 + 0.3) for i in range(700)]
    one = OfflineDecoder.from_model(tiny_model, workers=1)
    seen = []
    many = OfflineDecoder.from_model(tiny_model, workers=3)
    p1, c1 = one.probabilities(words)
    p3, c3 = many.probabilities(words, progress=lambda d, t: seen.append((d, t)))
    # Chunks are summed in order, so the answer does not depend on which thread ran what.
    assert np.array_equal(p1, p3) and np.array_equal(c1, c3)
    total = len(words)
    assert len(seen) > 2 and seen[-1] == (total, total) and [d for d, _ in seen] == sorted(d for d, _ in seen)


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

    words = [Word(f"w{i}") for i in range(20 * 8 * OfflineDecoder.WINDOWS_PER_CHUNK)]
    dec = OfflineDecoder(
        ScriptedScorer(script), DecoderSettings(offline_stride=8, pause_threshold=None), workers=2
    )

    def progress(done, total):
        raise Stop()

    try:
        dec.decode(words, progress=progress)
    except Stop:
        pass
    else:
        raise AssertionError("the exception from the progress callback was swallowed")
    # Stopped after the first chunk: only the chunks already running finished, not all twenty
    # (each chunk is 16 windows of 30 words: 480 calls; all twenty would be 9,600).
    assert len(calls) <= 8 * 30 * OfflineDecoder.WINDOWS_PER_CHUNK, len(calls)
