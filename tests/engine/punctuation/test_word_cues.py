"""Word cues (timings and recognizer hints) through the one input builder and a real ONNX session."""

import numpy as np
import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.punctuation.model import ModelConfig, ModelError, PunctuationModel
from engine.punctuation.model_inputs import build_window
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.punctuation.word_cues import CUE_COUNT, CUE_NAMES, cue_index, word_cues
from engine.words import Word


def timed(texts, gaps, per_letter=0.06):
    out, t = [], 0.0
    for text, gap in zip(texts, gaps):
        d = per_letter * (len(text) + 2)
        out.append(Word(text, t, t + d))
        t += d + gap
    return out


def test_pauses_and_their_bins_follow_the_gaps():
    words = timed(["so", "we", "met", "then", "left"], [0.05, 0.2, 0.5, 1.0, 0.0])
    cues = word_cues(words)
    pause = cues[:, cue_index("pause")]
    assert np.all(np.diff(pause[:4]) > 0)  # longer gap, larger cue
    assert cues[:4, cue_index("pause_known")].all() and cues[4, cue_index("pause_known")] == 0
    assert pause[4] == 0  # the gap after the newest word is unknown ...
    assert word_cues(words, pause_after_last=True)[4, cue_index("pause")] == pytest.approx(
        1.0
    )  # ... until silence
    bins = cues[:, [cue_index("pause_over_0.15"), cue_index("pause_over_0.35"), cue_index("pause_over_0.7")]]
    assert bins.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 0]]


def test_a_drawn_out_word_and_a_fast_speaker_show():
    words = timed(["the", "plan", "is", "fine"], [0.05] * 4)
    slow_end = words[:3] + [Word("fine", words[3].start, words[3].start + 0.06 * 6 * 2)]
    assert word_cues(slow_end)[3, cue_index("lengthening")] == pytest.approx(np.log(2), abs=0.05)
    fast = word_cues(timed(["the", "plan", "is", "fine"], [0.05] * 4, per_letter=0.03))
    slow = word_cues(timed(["the", "plan", "is", "fine"], [0.05] * 4, per_letter=0.09))
    assert fast[3, cue_index("rate")] < 0 < slow[3, cue_index("rate")]


def test_bare_text_is_all_zero_and_hints_come_from_the_written_form():
    assert not word_cues([Word("hello"), Word("there")]).any()
    words = [
        Word("budget", 0, 0.4, written="Budget,"),
        Word("ok", 0.5, 0.7, written="okay?"),
        Word("so", 0.8, 1),
    ]
    cues = word_cues(words)
    assert cues[0, cue_index("hint_comma")] == 1 and cues[0, cue_index("hint_capital")] == 1
    assert cues[1, cue_index("hint_question")] == 1 and cues[1, cue_index("hint_capital")] == 0
    assert cues[2, cue_index("hinted")] == 0  # nothing written: no hint, not a "none" hint
    assert not word_cues(words, hints=False)[:, cue_index("hinted") : cue_index("hint_capital") + 1].any()


def test_build_window_puts_each_words_cues_on_its_own_pieces(tiny_model):
    texts = "we will meet tomorrow".split()
    ids = tiny_model.tokenizer.encode_words(texts)
    cues = np.arange(len(texts) * CUE_COUNT, dtype=np.float32).reshape(len(texts), CUE_COUNT) + 1
    w = build_window(ids, 3, tiny_model.special, [False, True, False, False], 32, cues)
    assert w.cues.shape == (len(w.ids), CUE_COUNT)
    assert not w.cues[0].any() and not w.cues[-1].any()  # [CLS], [SEP]
    pause_at = w.ids.index(tiny_model.special.pause)
    assert not w.cues[pause_at].any()
    for k, carrier in enumerate(w.carriers):
        assert np.array_equal(w.cues[carrier], cues[w.first + k])
    assert build_window(ids, 3, tiny_model.special).cues is None


@pytest.fixture(scope="module")
def cue_model(tmp_path_factory):
    return PunctuationModel(write_model_dir(tmp_path_factory.mktemp("cues") / "m", cues=True))


def test_a_model_that_reads_cues_answers_differently_with_them(cue_model):
    assert cue_model.uses_cues and ModelConfig.load(cue_model.model_dir).cues == CUE_NAMES
    texts = "so what do you think about the plan".split()
    ids = cue_model.tokenizer.encode_words(texts)
    bare = build_window(ids, len(ids) - 1, cue_model.special)
    rows = word_cues(timed(texts, [0.05, 0.05, 0.6, 0.05, 0.05, 1.2, 0.05, 0.0]))
    with_cues = build_window(ids, len(ids) - 1, cue_model.special, cues=rows)
    zeros = build_window(ids, len(ids) - 1, cue_model.special, cues=np.zeros_like(rows))
    [(p_bare, _), (p_cued, _), (p_zero, _)] = cue_model.tag([bare, with_cues, zeros])
    assert np.allclose(p_bare, p_zero, atol=1e-6)  # no cues is all-zero cues
    assert not np.allclose(p_bare, p_cued, atol=1e-4)


def test_decoders_hand_the_words_times_to_a_cue_model(cue_model):
    texts = "we will meet next week then we can talk about the plan".split()
    slow = timed(texts, [0.05] * len(texts))
    paused = timed(texts, [0.9 if k % 3 == 2 else 0.05 for k in range(len(texts))])
    outs = []
    for words in (slow, paused):
        decoder = StreamingDecoder.from_model(cue_model)
        events = [e for w in words for e in decoder.push(w)] + decoder.flush()
        outs.append([round(getattr(e, "confidence", 0.0), 5) for e in events])
        offline = OfflineDecoder.from_model(cue_model).decode(words)
        outs.append([round(s.confidence, 5) for s in offline])
    assert outs[0] != outs[2] and outs[1] != outs[3]  # the same words, timed differently


def test_a_config_naming_other_cues_is_refused_with_one_line(tmp_path):
    import json

    folder = write_model_dir(tmp_path / "m", cues=True)
    config = json.loads((folder / "config.json").read_text())
    config["cues"] = ["timed", "pitch"]
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="re-export"):
        PunctuationModel(folder)
    config.pop("cues")  # the ONNX graph still has the input: the two disagree
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="disagree on the word_cues input"):
        PunctuationModel(folder)


def test_repunctuating_a_session_keeps_whispers_writing_as_hints(cue_model):
    from engine.session.batch import repunctuate

    texts = "we will meet next week then we can talk about the plan".split()
    written = [Word(w.text, w.start, w.end, written=w.text.title() + ",") for w in timed(texts, [0.05] * 12)]
    bare = [Word(w.text, w.start, w.end) for w in written]
    hinted, plain = repunctuate(written, cue_model), repunctuate(bare, cue_model)
    assert [w.text for w in hinted.words] == texts  # the words are the recognizer's, unmarked
    # the hints reach the model: its probabilities (and so, for this random model, some answers) move
    offline = OfflineDecoder.from_model(cue_model)
    assert not np.allclose(offline.probabilities(written)[0], offline.probabilities(bare)[0])
    assert len(plain.words) == len(hinted.words)


def with_prosody(words, rows, silences=None):
    """``rows``: (f0_start, f0_end, slope, energy_db, drop_db, final_syllable) per word, or None;
    ``silences``: each word's silence before it (default: not measured)."""
    silences = silences or [float("nan")] * len(rows)
    return [
        Word(w.text, w.start, w.end, prosody=(*r, q) if r else ()) for w, r, q in zip(words, rows, silences)
    ]


def test_the_audio_columns_read_each_word_against_the_speakers_recent_voice():
    words = timed(["we", "went", "home", "then", "slept"], [0.05, 0.05, 0.6, 0.05, 0.0])
    nan = float("nan")
    rows = [
        (2.0, 2.0, 0.0, -15.0, -2.0, 0.10),
        (2.0, 2.0, 0.0, -15.0, -2.0, 0.10),
        (3.0, -4.0, -30.0, -15.0, -18.0, 0.30),  # "home.": a fall, a drop, a drawn-out end
        (6.0, 5.0, 0.0, -15.0, -2.0, 0.10),  # "then": the next phrase starts high
        (nan, nan, nan, -40.0, -1.0, nan),  # unvoiced: only its energy
    ]
    cues = word_cues(with_prosody(words, rows))
    col = lambda name: cues[:, cue_index(name)]  # noqa: E731
    assert col("prosody_known").tolist() == [1, 1, 1, 1, 1]
    assert col("f0_slope_end")[2] == pytest.approx(-1.0)  # -30 semitones/s on a scale of 30
    assert col("energy_drop")[2] < col("energy_drop")[1] < 0
    assert col("final_lengthening")[2] > 0.5 > abs(col("final_lengthening")[1])
    assert col("f0_end_level")[2] < 0  # ends below the voice so far
    assert col("pitch_reset")[2] == pytest.approx((6.0 - (-4.0)) / 6.0, abs=1e-5)  # clipped at 2
    assert col("pitch_reset")[4] == 0  # nothing after the newest word yet
    assert col("f0_slope_end")[4] == 0 and col("f0_end_level")[4] == 0  # unvoiced: unknown, 0
    assert col("pause_before")[3] == pytest.approx(col("pause")[2])  # "then" follows the pause
    assert col("silence").tolist() == pytest.approx(col("pause").tolist())  # none heard: the gaps


def test_the_silence_after_a_word_is_heard_before_the_next_one_and_known_with_it():
    words = timed(["we", "went", "home", "then"], [0.0, 0.0, 0.0, 0.0])  # the times show no gaps
    rows = [(2.0, 2.0, 0.0, -15.0, -2.0, 0.10)] * 4
    heard = with_prosody(words, rows, [float("nan"), 0.02, 0.05, 0.55])  # "home" ends a sentence
    cues = word_cues(heard)
    col = lambda name: cues[:, cue_index(name)]  # noqa: E731
    assert not col("pause").any()
    assert col("silence")[2] == pytest.approx(np.log1p(0.55 / 0.05) / np.log1p(3.0 / 0.05))
    assert col("silence_over_0.35").tolist() == [0, 0, 1, 0] and col("silence_over_0.7").sum() == 0
    assert col("silence_over_0.15").tolist() == [0, 0, 1, 0]
    assert col("silence")[3] == 0  # the newest word's: not heard until the next word comes
    silent = word_cues(heard, pause_after_last=True)  # a silence began after "then"
    assert silent[3, cue_index("silence_over_0.7")] == 1 and silent[3, cue_index("silence")] == 1.0


def test_a_words_audio_cues_do_not_move_when_later_words_arrive_but_its_reset_does():
    words = timed(["one", "two", "three", "four"], [0.05] * 4)
    rows = [(1.0, 0.0, -5.0, -15.0, -3.0, 0.1), (2.0, 1.0, -5.0, -15.0, -3.0, 0.12),
            (0.0, -1.0, -9.0, -15.0, -8.0, 0.2), (4.0, 3.0, 2.0, -15.0, -1.0, 0.1)]  # fmt: skip
    words = with_prosody(words, rows)
    before, after = word_cues(words[:3]), word_cues(words)
    steady = [cue_index(n) for n in ("f0_slope_end", "f0_end_level", "energy_drop", "final_lengthening")]
    np.testing.assert_allclose(before[:3][:, steady], after[:3][:, steady])
    assert before[2, cue_index("pitch_reset")] == 0 != after[2, cue_index("pitch_reset")]


def test_text_and_unmeasured_words_leave_the_audio_columns_at_zero():
    audio = [
        cue_index(n)
        for n in CUE_NAMES[cue_index("prosody_known") :]
        if n != "pause_before" and not n.startswith("silence")
    ]
    assert not word_cues([Word("typed"), Word("text")])[:, audio + [cue_index("silence")]].any()
    assert not word_cues(timed(["timed", "only"], [0.3, 0.0]))[:, audio].any()


def test_where_no_silence_was_heard_the_recognizers_gap_stands_in_for_it():
    """A journal's words keep their times but not their audio: the fusion, fitted with the heard
    silence, must still see the pause."""
    cues = word_cues(timed(["timed", "only", "here"], [0.5, 0.0, 0.0]))
    for pause, silence in (("pause", "silence"), ("pause_over_0.35", "silence_over_0.35")):
        np.testing.assert_array_equal(cues[:, cue_index(silence)], cues[:, cue_index(pause)])
    assert cues[0, cue_index("silence_over_0.35")] == 1
    row = (2.0, 2.0, 0.0, -15.0, -2.0, 0.1)
    heard = with_prosody(timed(["we", "went"], [0.5, 0.0]), [row, row], [0.0, 0.05])
    assert word_cues(heard)[0, cue_index("silence_over_0.15")] == 0  # heard: 0.05 s, not the gap


def speaker(sentence_pause, comma_pause, sentences=4):
    """A speaker's words: sentences of six words with a comma after the third, as the recognizer's
    times give them (the gaps are the pauses)."""
    texts, gaps = [], []
    for _ in range(sentences):
        texts += ["we", "went", "home", "and", "then", "slept"]
        gaps += [0.0, 0.0, comma_pause, 0.0, 0.0, sentence_pause]
    return timed(texts, gaps)


def test_a_pause_is_also_read_against_the_speakers_recent_long_pauses():
    relative = lambda words: word_cues(words)[:, cue_index("silence_relative")]  # noqa: E731
    slow, brisk = relative(speaker(0.8, 0.25)), relative(speaker(0.4, 0.12))
    # By the last sentence, a sentence end reads the same for a speaker who pauses twice as long,
    # while in seconds the brisk one's sentence end is hardly longer than the slow one's comma.
    assert slow[-7] == pytest.approx(brisk[-7], abs=0.02)
    assert slow[-4] == pytest.approx(brisk[-4], abs=0.02) and slow[-4] < 0.5 * slow[-7]
    bins = word_cues(speaker(0.4, 0.12))[
        :, [cue_index("silence_relative_over_0.5"), cue_index("silence_relative_over_0.8")]
    ]
    assert bins[-7].tolist() == [1, 1] and bins[-4].tolist() == [0, 0]


def test_the_first_long_pause_is_read_against_a_typical_one_not_against_itself():
    words = timed(["we", "went", "home", "then"], [0.0, 0.0, 0.8, 0.0])
    cues = word_cues(words)
    assert cues[2, cue_index("silence_relative")] == pytest.approx(0.8 / 0.4 / 3.0)  # TYPICAL: 0.4 s
    # A word's relative pause is fixed once the next word came: later pauses do not move it.
    later = word_cues(timed(["we", "went", "home", "then", "and", "slept"], [0.0, 0.0, 0.8, 1.5, 0.0, 0.0]))
    assert later[2, cue_index("silence_relative")] == pytest.approx(cues[2, cue_index("silence_relative")])
