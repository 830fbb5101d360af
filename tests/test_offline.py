import numpy as np

from engine.decoder import StreamingDecoder
from engine.offline import OfflineDecoder
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
