"""Entropy threshold decoding (Algorithm 1) on scripted probabilities."""

import numpy as np

from engine.events import Appended, Provisional, Retracted, Settled, Withdrawn
from engine.punctuation.scoring import entropy_bits
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.words import Word
from tests.scripted import SURE, UNSURE, ScriptedScorer


def words(n, gap=0.1, dur=0.3):
    t, out = 0.0, []
    for i in range(n):
        out.append(Word(f"w{i}", t, t + dur))
        t += dur + gap
    return out


def run(decoder, ws):
    events = []
    for w in ws:
        events += decoder.push(w)
    return events


def settled(events):
    return {e.position: e for e in events if isinstance(e, Settled)}


def test_entropy_is_bits():
    assert abs(entropy_bits(np.full(4, 0.25)) - 2.0) < 1e-9
    assert entropy_bits(np.array(SURE["none"])) < 0.3 < 1.5 < entropy_bits(np.array(UNSURE["none"]))


def test_confident_positions_settle_at_l_min():
    scorer = ScriptedScorer(lambda w, l, pause: SURE["comma"] if w == "w2" else SURE["none"])
    dec = StreamingDecoder(scorer, DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None))
    events = run(dec, words(6))
    s = settled(events)
    assert sorted(s) == [0, 1, 2, 3, 4]  # the last word waits for its lookahead
    assert all(e.lookahead_used == 1 for e in s.values())
    assert s[2].mark == "comma" and s[1].mark == "none"
    # one batched call per word: the new word at l=0 plus the pending one at l=1
    assert [len(c) for c in scorer.calls] == [1, 2, 2, 2, 2, 2]
    assert scorer.calls[3] == [("w2", 1), ("w3", 0)]


def test_unsure_positions_wait_until_l_max():
    scorer = ScriptedScorer(lambda w, l, pause: UNSURE["period"] if w == "w1" else SURE["none"])
    dec = StreamingDecoder(scorer, DecoderSettings(l_min=1, l_max=3, threshold=0.5, silence_gap=None))
    events = run(dec, words(8))
    s = settled(events)
    assert s[1].lookahead_used == 3 and s[1].mark == "period"
    # in-order settlement: w2 was sure at l=1 but settles only after w1
    order = [e.position for e in events if isinstance(e, Settled)]
    assert order == sorted(order)
    settle_w1 = next(i for i, e in enumerate(events) if isinstance(e, Settled) and e.position == 1)
    appended_w4 = next(i for i, e in enumerate(events) if isinstance(e, Appended) and e.position == 4)
    assert appended_w4 < settle_w1  # w1 waited until its third lookahead word arrived
    assert max(len(c) for c in scorer.calls) <= 3 + 1  # at most l_max - l_min + 1 pending, plus the new word


def test_a_position_becomes_sure_with_more_context():
    # unsure at lookahead 1, sure at lookahead 2: settles at 2 with the sure answer
    def script(w, l, pause):
        if w == "w0":
            return UNSURE["none"] if l < 2 else SURE["question"]
        return SURE["none"]

    dec = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None)
    )
    s = settled(run(dec, words(5)))
    assert s[0].mark == "question" and s[0].lookahead_used == 2


def test_provisional_comes_first_and_settled_never_changes():
    def script(w, l, pause):
        return UNSURE["comma"] if l == 0 else SURE["period"]

    dec = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None)
    )
    events = run(dec, words(5)) + dec.flush()
    for p in range(5):
        mine = [
            e for e in events if getattr(e, "position", None) == p and isinstance(e, (Provisional, Settled))
        ]
        assert isinstance(mine[0], Provisional) and mine[0].mark == "comma"  # shown at once, at l = 0
        assert sum(isinstance(e, Settled) for e in mine) == 1 and isinstance(mine[-1], Settled)
        # flushed at the end with no lookahead, the last word keeps its l = 0 answer
        assert mine[-1].mark == ("period" if p < 4 else "comma")


def test_sentence_initial_capitals_follow_settled_marks():
    def script(w, l, pause):
        return SURE["period"] if w == "w1" else SURE["none"]

    dec = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=2, threshold=0.5, silence_gap=None)
    )
    s = settled(run(dec, [Word("so"), Word("yes"), Word("i"), Word("think"), Word("i'm"), Word("here")]))
    s.update(settled(dec.flush()))
    # "w1" is not one of these words, so use positions: only mark-driven capitals and "I"
    forms = [s[p].form for p in range(6)]
    assert forms == ["So", "yes", "I", "think", "I'm", "here"]


def test_flush_settles_everything_with_available_context():
    dec = StreamingDecoder(
        ScriptedScorer(lambda w, l, p: UNSURE["none"]),
        DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None),
    )
    run(dec, words(3))
    assert dec.pending == 3
    s = settled(dec.flush())
    assert sorted(s) == [0, 1, 2] and s[2].lookahead_used == 0 and s[0].lookahead_used == 2
    assert dec.pending == 0 and dec.flush() == []


def test_silence_gap_settles_pending_and_marks_a_pause():
    seen_pause = []

    def script(w, l, pause):
        seen_pause.append((w, l, pause))
        return SURE["period"] if pause else UNSURE["none"]

    dec = StreamingDecoder(
        ScriptedScorer(script),
        DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=1.2, pause_threshold=0.28),
    )
    run(dec, words(3))
    assert dec.pending == 3
    assert dec.advance_time(0.9) == []  # last word ended at 1.1: not yet silent long enough
    s = settled(dec.advance_time(2.4))
    assert sorted(s) == [0, 1, 2] and s[2].mark == "period"  # the silence became a [PAUSE] after w2
    # a word after a long gap also settles what is pending first
    run(dec, [Word("w3", 3.0, 3.2), Word("w4", 3.3, 3.5)])
    s = settled(dec.push(Word("w5", 6.0, 6.2)))
    assert 3 in s and 4 in s


def test_pauses_from_timings_reach_the_scorer():
    calls = []

    def script(w, l, pause):
        calls.append((w, pause))
        return SURE["none"]

    dec = StreamingDecoder(ScriptedScorer(script), DecoderSettings(silence_gap=None, pause_threshold=0.28))
    dec.push(Word("w0", 0.0, 0.2))
    dec.push(Word("w1", 0.6, 0.8))  # 0.4 s gap
    assert ("w0", True) in calls
    dec2 = StreamingDecoder(ScriptedScorer(script), DecoderSettings(silence_gap=None, pause_threshold=None))
    calls.clear()
    dec2.push(Word("w0", 0.0, 0.2))
    dec2.push(Word("w1", 0.6, 0.8))
    assert all(not p for _, p in calls)


def test_retraction_withdraws_settled_and_recomputes_pending():
    def script(w, l, pause):
        return SURE["none"] if w.startswith("w") else UNSURE["comma"]

    dec = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None)
    )
    run(dec, words(5))
    assert dec.first_unsettled == 4
    events = dec.retract(2)  # w3 (settled) and w4 (pending) replaced
    assert Withdrawn(3) in events and Withdrawn(4) not in events
    assert events[-1] == Retracted(3) and dec.word_count == 3 and dec.first_unsettled == 3
    events = dec.push(Word("x3", 2.0, 2.2)) + dec.push(Word("x4", 2.5, 2.7))
    appended = [e.position for e in events if isinstance(e, Appended)]
    assert appended == [3, 4]
    assert dec.pending == 2  # the replacements are unsure and wait


def test_retraction_undecides_positions_that_used_removed_context():
    # w1 is decided (sure) at l=1 but blocked behind unsure w0; retracting w2 must re-decide w1
    def script(w, l, pause):
        return UNSURE["none"] if w == "w0" else SURE["comma"]

    dec = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None)
    )
    run(dec, words(3))
    assert dec.first_unsettled == 0
    dec.retract(1)
    scorer = dec.scorer
    scorer.calls.clear()
    dec.push(Word("w9", 5.0, 5.2))
    assert ("w1", 1) in scorer.calls[0]  # recomputed with the new lookahead word


def test_long_stream_keeps_memory_bounded():
    dec = StreamingDecoder(ScriptedScorer(lambda w, l, p: SURE["none"]), DecoderSettings(silence_gap=None))
    run(dec, words(3000, gap=0.05))
    assert len(dec._slots) <= 3 * StreamingDecoder.KEEP_SETTLED
    assert dec.word_count == 3000 and dec.first_unsettled == 2999


def test_live_threshold_change():
    dec = StreamingDecoder(
        ScriptedScorer(lambda w, l, p: UNSURE["none"]),
        DecoderSettings(l_min=1, l_max=4, threshold=0.5, silence_gap=None),
    )
    run(dec, words(3))
    assert dec.first_unsettled == 0
    dec.set_threshold(2.0)  # accept anything: settle at l_min from now on
    s = settled(dec.push(Word("w3", 10.0, 10.1)))
    assert {0, 1, 2} <= set(s)


def test_words_that_arrive_together_share_one_inference_and_settle_with_more_lookahead():
    def script(w, lookahead, pause):
        if w == "end":
            return SURE["period"] if lookahead >= 2 else UNSURE["period"]
        return SURE["none"]

    ws = words(6)
    ws[3] = Word("end", ws[3].start, ws[3].end)
    one_by_one, together = ScriptedScorer(script), ScriptedScorer(script)
    apart = run(StreamingDecoder(one_by_one, DecoderSettings(silence_gap=None, l_max=3)), ws)
    decoder = StreamingDecoder(together, DecoderSettings(silence_gap=None, l_max=3))
    events = decoder.push_many(ws[:4]) + decoder.push_many(ws[4:])

    assert one_by_one.windows == [0, 1, 2, 3, 4, 5]
    assert together.windows == [3, 5]  # one window per burst, ending at its newest word
    # every word still appears and gets a provisional mark, in order
    assert [e.position for e in events if isinstance(e, Appended)] == list(range(6))
    assert sorted({e.position for e in events if isinstance(e, Provisional)}) == list(range(6))
    burst, single = settled(events), settled(apart)
    assert [e.position for e in events if isinstance(e, Settled)] == [0, 1, 2, 3, 4]  # word order
    assert {p: e.mark for p, e in burst.items()} == {p: e.mark for p, e in single.items()}
    assert burst[3].mark == "period"
    # the burst's first words were decided with the lookahead they had when it was scored
    assert [burst[p].lookahead_used for p in (0, 1, 2)] == [3, 2, 1]
    assert [single[p].lookahead_used for p in (0, 1, 2)] == [1, 1, 1]
