"""Cue fusion: each word's timing and audio folded into the tagger's mark probabilities, in both
decoders, and carried by a real model's config.json."""

import json
import shutil

import numpy as np
import pytest

from engine.events import Settled
from engine.punctuation.cue_fusion import FUSED_CUES, CueFusion
from engine.punctuation.model import ModelError, PunctuationModel
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.punctuation.word_cues import CUE_COUNT, cue_index, word_cues
from engine.words import PUNCT_LABELS, Word
from tests.scripted import UNSURE, ScriptedScorer

PERIOD = PUNCT_LABELS.index("period")


def long_pause_means_period(weight=6.0) -> CueFusion:
    weights = np.zeros((1, len(PUNCT_LABELS)))
    weights[0, PERIOD] = weight
    return CueFusion(("pause_over_0.7",), weights)


def timed(texts, long_gap_after=()):
    out, t = [], 0.0
    for k, text in enumerate(texts):
        out.append(Word(text, t, t + 0.3))
        t += 0.3 + (1.0 if k in long_gap_after else 0.05)
    return out


def test_a_word_without_cues_keeps_the_taggers_answer_exactly():
    fusion = long_pause_means_period()
    punct = np.array([UNSURE["none"], UNSURE["comma"]])
    assert fusion.fuse(punct, np.zeros((2, CUE_COUNT))) is punct
    text = word_cues([Word("hello"), Word("world")])  # typed text: no times, no audio
    np.testing.assert_array_equal(fusion.fuse(punct, text), punct)


def test_a_cue_moves_the_mark_it_is_weighted_towards():
    fusion = long_pause_means_period()
    rows = word_cues(timed(["so", "we", "left", "then"], long_gap_after={2}))
    fused = fusion.fuse(np.array([UNSURE["none"]] * 4), rows)
    np.testing.assert_allclose(fused.sum(axis=1), 1.0)
    assert fused[2].argmax() == PERIOD  # the long gap
    assert all(fused[k].argmax() == 0 for k in (0, 1, 3))


def the_next_word_pausing_before_means_period() -> CueFusion:
    weights = np.zeros((2, len(PUNCT_LABELS)))
    weights[:, PERIOD] = (40.0, -16.0)  # a short gap scores far below 0.4, a second's far above
    return CueFusion((), np.zeros((0, len(PUNCT_LABELS))), ("pause_before", "timed"), weights)


def test_the_next_words_row_counts_once_that_word_has_come():
    fusion = the_next_word_pausing_before_means_period()
    words = timed(["so", "we", "left", "then", "we", "slept"], long_gap_after={2})
    unsure = np.array([UNSURE["none"]] * 6)
    fused = fusion.fuse(unsure, word_cues(words))
    assert [PUNCT_LABELS[k] for k in fused.argmax(axis=1)] == [
        "none",
        "none",
        "period",
        "none",
        "none",
        "none",
    ]
    # before "then" has come, "left" has no next row: its own row says nothing to this fusion
    heard = word_cues(words[:3], pause_after_last=False)
    assert fusion.fuse(unsure[:1], heard, [2])[0].argmax() == 0
    # live, the decoder hands it the rows of consecutive words: the period settles a word later
    script = lambda w, lookahead, pause: UNSURE["none"]  # noqa: E731
    live = StreamingDecoder(
        ScriptedScorer(script), DecoderSettings(l_min=1, l_max=2, silence_gap=None), cue_fusion=fusion
    )
    settled = {e.position: e for w in words for e in live.push(w) if isinstance(e, Settled)}
    assert settled[2].mark == "period" and settled[2].lookahead_used >= 1
    file_marks = [
        s.mark
        for s in OfflineDecoder(ScriptedScorer(script), DecoderSettings(), cue_fusion=fusion).decode(words)
    ]
    assert file_marks[2] == "period" and file_marks.count("period") == 1


def test_config_round_trip_and_bad_config():
    grid = np.arange(len(FUSED_CUES) * 4, dtype=float).reshape(-1, 4) / 10
    fusion = CueFusion(FUSED_CUES, grid, FUSED_CUES[:3], -grid[:3])
    again = CueFusion.from_config(json.loads(json.dumps(fusion.to_config())))
    assert again.cues == fusion.cues and again.next_cues == FUSED_CUES[:3]
    np.testing.assert_allclose(again.weights, fusion.weights)
    np.testing.assert_allclose(again.next_weights, fusion.next_weights)
    own_only = CueFusion.from_config({"weights": fusion.to_config()["weights"]})  # an older config.json
    assert own_only.next_cues == () and "next_word_weights" not in own_only.to_config()
    with pytest.raises(ValueError, match="unknown cues"):
        CueFusion(("loudness",), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="next_word names unknown cues"):
        CueFusion(("pause",), np.zeros((1, 4)), ("loudness",), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="finite weights"):
        CueFusion(("pause",), np.zeros((2, 4)))


def test_both_decoders_fold_the_cues_in_and_agree():
    texts = "we came home we slept".split()
    script = lambda w, lookahead, pause: UNSURE["none"]  # noqa: E731  (the tagger never hears the gap)
    settings = DecoderSettings(l_min=1, l_max=2, threshold=0.5, silence_gap=None)
    fusion = long_pause_means_period()

    live = StreamingDecoder(ScriptedScorer(script), settings, cue_fusion=fusion)
    events = [e for w in timed(texts, long_gap_after={2}) for e in live.push(w)] + live.finish()
    live_marks = [
        e.mark for e in sorted((e for e in events if isinstance(e, Settled)), key=lambda e: e.position)
    ]
    offline = OfflineDecoder(ScriptedScorer(script), settings, cue_fusion=fusion)
    file_marks = [s.mark for s in offline.decode(timed(texts, long_gap_after={2}))]
    assert live_marks[:4] == file_marks[:4] == ["none", "none", "period", "none"]

    plain = StreamingDecoder(ScriptedScorer(script), settings)
    events = [e for w in timed(texts, long_gap_after={2}) for e in plain.push(w)] + plain.finish()
    assert [e.mark for e in events if isinstance(e, Settled)][2] == "none"


def test_a_real_model_carries_its_fusion_in_config_json(tmp_path):
    from engine.evaluation.synthetic_model import write_model_dir

    model_dir = write_model_dir(tmp_path / "model")
    config = json.loads((model_dir / "config.json").read_text())
    config["cue_fusion"] = long_pause_means_period(40.0).to_config()
    (model_dir / "config.json").write_text(json.dumps(config))
    model = PunctuationModel(model_dir)
    assert model.config.cue_fusion is not None
    decoder = StreamingDecoder.from_model(model, DecoderSettings(l_min=1, l_max=2, silence_gap=None))
    events = [e for w in timed("we came home we slept".split(), long_gap_after={2}) for e in decoder.push(w)]
    marks = {e.position: e.mark for e in events if isinstance(e, Settled)}
    assert marks[2] == "period"  # a weight this large outvotes any random tagger

    config["cue_fusion"] = {"weights": {"loudness": {m: 0.0 for m in PUNCT_LABELS}}}
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="malformed.*unknown cues"):
        PunctuationModel(broken)


def test_a_recognizers_own_fusion_is_chosen_for_its_words_everywhere(tmp_path):
    """A fusion fitted on PocketSphinx's words is used for PocketSphinx's words, live, after Stop
    and in a file's transcript; any other recognizer (or none known) gets the default one."""
    from engine.evaluation.synthetic_model import write_model_dir
    from engine.session.batch import repunctuate
    from engine.session.marks import choose_decoder

    model_dir = write_model_dir(tmp_path / "model")
    config = json.loads((model_dir / "config.json").read_text())
    config["cue_fusion"] = long_pause_means_period(40.0).to_config()
    config["cue_fusion_by_recognizer"] = {"pocketsphinx": long_pause_means_period(-40.0).to_config()}
    (model_dir / "config.json").write_text(json.dumps(config))
    model = PunctuationModel(model_dir)
    assert model.config.cue_fusion_for("pocketsphinx").weights[0, PERIOD] == -40.0
    assert (
        model.config.cue_fusion_for("whisper") is model.config.cue_fusion_for(None) is model.config.cue_fusion
    )
    assert (
        json.loads(json.dumps(model.config.to_dict()))["cue_fusion_by_recognizer"]
        == (config["cue_fusion_by_recognizer"])
    )

    class Heard:  # what a recognizer of that kind declares (English, bare words)
        language, multilingual, detects_language, translating = "en", False, False, False
        writes_marks = revises_writing = commits_words = False

        def __init__(self, name):
            self.name = name

    words = timed("we came home we slept".split(), long_gap_after={2})
    settings = DecoderSettings(l_min=1, l_max=2, silence_gap=None)
    live = {}
    for name in ("pocketsphinx", "vosk"):
        decoder, _ = choose_decoder(model, settings, Heard(name), "engine")
        assert decoder.cue_fusion is model.config.cue_fusion_for(name)
        events = [e for w in words for e in decoder.push(w)]
        live[name] = {e.position: e.mark for e in events if isinstance(e, Settled)}[2]
    assert live["vosk"] == "period" and live["pocketsphinx"] != "period"  # its fusion forbids one there
    after_stop = {
        name: repunctuate(words, model, recognizer=name).words[2].mark for name in ("pocketsphinx", None)
    }
    assert after_stop[None] == "period" and after_stop["pocketsphinx"] != "period"

    config["cue_fusion_by_recognizer"] = {
        "pocketsphinx": {"weights": {"loudness": {m: 0.0 for m in PUNCT_LABELS}}}
    }
    (model_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="malformed.*unknown cues"):
        PunctuationModel(model_dir)

    # A misspelt kind would never be chosen: said at load, with the names that are.
    config["cue_fusion_by_recognizer"] = {"pocketshpinx": long_pause_means_period(-40.0).to_config()}
    (model_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match=r"unknown recognizers \['pocketshpinx'\].*'pocketsphinx'"):
        PunctuationModel(model_dir)


def test_the_fused_cues_are_timing_and_audio_never_the_recognizers_marks():
    assert "pause" in FUSED_CUES and "f0_slope_end" in FUSED_CUES
    assert not [n for n in FUSED_CUES if n.startswith("hint")]
    assert cue_index(FUSED_CUES[-1]) == CUE_COUNT - 1


def test_a_rows_cues_read_no_further_back_than_history_words():
    """The live decoder computes the fused cues over the pending words and HISTORY_WORDS before
    them: a word's row must be the same as over the whole session (as the fit computed it)."""
    from engine.punctuation.word_cues import HISTORY_WORDS

    rng = np.random.default_rng(3)
    words, t = [], 0.0
    for k in range(80):
        d = float(rng.uniform(0.15, 0.6))
        measured = (*rng.normal(5, 3, size=6), rng.uniform(0, 1))  # the last: the silence before it
        prosody = tuple(float(v) for v in measured) if k % 7 else None
        words.append(Word(f"w{k}", t, t + d, prosody=prosody))
        t += d + float(rng.choice([0.02, 0.1, 0.4, 0.9]))
    whole = word_cues(words, hints=False)
    tail = word_cues(words[-(HISTORY_WORDS + 4) :], hints=False)
    np.testing.assert_allclose(tail[-4:], whole[-4:], rtol=1e-6)
    short = word_cues(words[-(HISTORY_WORDS - 4) :], hints=False)  # too little history: the rows differ
    assert not np.allclose(short[-4:], whole[-4:])


def pause_counts_where_the_tagger_half_expects_a_mark() -> CueFusion:
    """One hidden unit: a long gap after a word moves it to a period when the tagger already gives
    a period some chance, and away from one when it gives almost none."""
    names = ("pause_over_0.7",)
    fusion = CueFusion(names, np.zeros((1, 4)), (), None, np.zeros((1 + 4, 1)), np.zeros((1, 4)))
    hidden_in = np.zeros((len(fusion.hidden_names()), 1))
    hidden_in[fusion.hidden_names().index("pause_over_0.7"), 0] = 3.0
    hidden_in[fusion.hidden_names().index("log_p:period"), 0] = 1.0
    hidden_out = np.zeros((1, 4))
    hidden_out[0, PERIOD] = 4.0
    return CueFusion(names, np.zeros((1, 4)), (), None, hidden_in, hidden_out)


def test_a_hidden_layer_reads_the_cues_with_the_taggers_answer():
    fusion = pause_counts_where_the_tagger_half_expects_a_mark()
    rows = word_cues(timed(["so", "we", "left", "then"], long_gap_after={2}))
    half = np.array([[0.5, 0.1, 0.35, 0.05]] * 4)  # the words leave a period open
    hardly = np.array([[0.9, 0.07, 0.01, 0.02]] * 4)  # the words all but rule one out
    assert fusion.fuse(half, rows)[2].argmax() == PERIOD
    assert [k.argmax() for k in fusion.fuse(half, rows)[[0, 1, 3]]] == [0, 0, 0]
    # the same gap, read against the other answer, pushes the other way: no log-linear shift can
    log_half, log_hardly = np.log(half[2:3]), np.log(hardly[2:3])
    toward_period = lambda p: fusion.shift(rows[2:3], None, p)[0, PERIOD]  # noqa: E731
    assert toward_period(log_half) > 0 > toward_period(log_hardly)
    assert fusion.fuse(hardly, rows)[2, PERIOD] < hardly[2, PERIOD]
    # text: no cues, so the hidden layer has all-zero inputs and the answer is kept exactly
    text = word_cues([Word("hello"), Word("world")])
    np.testing.assert_array_equal(fusion.fuse(half[:2], text), half[:2])
    with pytest.raises(ValueError, match="reads the tagger's log-probabilities"):
        fusion.shift(rows)


def test_a_hidden_layer_round_trips_through_config_and_a_bad_one_is_refused():
    rng = np.random.default_rng(1)
    cues = FUSED_CUES
    width = 2 * len(cues) + 4
    fusion = CueFusion(
        cues, rng.normal(size=(len(cues), 4)), cues, rng.normal(size=(len(cues), 4)),
        rng.normal(size=(width, 6)), rng.normal(size=(6, 4)),
    )  # fmt: skip
    config = json.loads(json.dumps(fusion.to_config()))
    again = CueFusion.from_config(config)
    np.testing.assert_allclose(again.hidden_in, fusion.hidden_in, atol=1e-5)
    np.testing.assert_allclose(again.hidden_out, fusion.hidden_out, atol=1e-5)
    rows = word_cues(timed(["so", "we", "left", "then"], long_gap_after={2}))
    punct = np.array([UNSURE["none"]] * 4)
    np.testing.assert_allclose(again.fuse(punct, rows), fusion.fuse(punct, rows), atol=1e-4)
    config["hidden_layer"]["inputs"] = config["hidden_layer"]["inputs"][1:]
    with pytest.raises(ValueError, match="inputs do not match its cues"):
        CueFusion.from_config(config)
    with pytest.raises(ValueError, match="needs both"):
        CueFusion(cues, fusion.weights, cues, fusion.next_weights, fusion.hidden_in, None)
    with pytest.raises(ValueError, match="hidden layer needs finite"):
        CueFusion(cues, fusion.weights, cues, fusion.next_weights, fusion.hidden_in[1:], fusion.hidden_out)
