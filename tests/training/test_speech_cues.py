"""Timing and hint statistics from aligned readings, and the windows drawn from them."""

import numpy as np
import pytest

from engine.punctuation.word_cues import CUE_COUNT, cue_index
from training.speech_cues import SpeechCues, stats_from_readings


def reading(recognizer, seed=0, n=400):
    """A reading whose gaps grow with the mark (none < comma < period) and whose written marks
    are right four times in five, as a recognizer's are."""
    rng = np.random.default_rng(seed)
    words, t = [], 0.0
    for j in range(n):
        mark = ["none", "none", "none", "comma", "none", "period"][j % 6]
        gap = {"none": 0.03, "comma": 0.25, "period": 0.7}[mark] * rng.uniform(0.7, 1.3)
        d = 0.06 * 6 * (1.4 if mark != "none" else 1.0)
        shown = mark if rng.random() < 0.8 else "none"
        written = (
            ""
            if recognizer != "whisper"
            else ("Word" if j % 6 == 0 else "word") + {"none": "", "comma": ",", "period": "."}[shown]
        )
        words.append({"text": "word", "start": t, "end": t + d, "written": written, "ref_mark": mark,
                      "ref_case": "capitalized" if j % 6 == 0 else "lower", "ref_index": j})  # fmt: skip
        t += d + gap
    return {"recognizer": recognizer, "tts": "espeak-ng", "voice": "en-us", "speed": 170, "words": words}


@pytest.fixture(scope="module")
def stats():
    return stats_from_readings([reading("whisper"), reading("pocketsphinx", 1)])


def test_statistics_keep_the_gap_and_hint_distributions(stats):
    whisper = stats["recognizers"]["whisper"]
    median = {m: whisper["gap"][m][len(whisper["gap"][m]) // 2] for m in ("none", "comma", "period")}
    assert median["none"] < median["comma"] < median["period"]
    assert whisper["lengthening"]["period"][20] > whisper["lengthening"]["none"][20]
    hints = stats["hints"]["mark_given_true_mark"]
    assert hints["period"]["period"] == pytest.approx(0.8, abs=0.08)
    assert hints["none"]["none"] == 1.0
    assert stats["hints"]["capital_given_true_case"]["capitalized"] == 1.0
    assert "hints" not in stats["recognizers"]["pocketsphinx"]


def test_drawn_windows_pause_where_the_marks_are(stats):
    cues = SpeechCues(stats)
    rng = np.random.default_rng(0)
    marks = np.array([0, 0, 1, 0, 2] * 40)
    cases = np.zeros(len(marks), dtype=int)
    rows, gaps = cues.draw(np.full(len(marks), 6), marks, cases, rng, hints=False, last_gap_known=False)
    assert np.isnan(gaps[-1]) and rows[-1, cue_index("pause_known")] == 0
    pause = rows[:-1, cue_index("pause")]
    assert pause[marks[:-1] == 2].mean() > pause[marks[:-1] == 1].mean() > pause[marks[:-1] == 0].mean()
    assert not rows[:, cue_index("hinted")].any()
    hinted, _ = cues.draw(np.full(len(marks), 6), marks, cases, rng, hints=True, last_gap_known=True)
    assert hinted[:, cue_index("hinted")].all()
    agree = hinted[marks == 2, cue_index("hint_period")].mean()
    assert 0.6 < agree < 0.95  # corrupted as measured, neither perfect nor absent
    assert hinted[marks == 0, cue_index("hint_period")].mean() < 0.3


def test_windows_draw_cues_only_when_timed(stats, tmp_path):
    from engine.evaluation.synthetic_model import build_vocab, write_tokenizer
    from engine.punctuation.labelled_text import prepare_folder
    from engine.punctuation.model_inputs import WordTokenizer
    from training.dataset import Noise, WindowMaker, build_stream

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "talk.txt").write_text(
        "Is this the plan? Yes, it is. We meet on Monday, then we talk. " * 30
    )
    write_tokenizer(tmp_path / "tokenizer.json", build_vocab())
    tok = WordTokenizer(tmp_path / "tokenizer.json", "[unused1]", "[unused2]")
    stream = build_stream(prepare_folder(tmp_path / "data"), tok)
    maker = WindowMaker(stream, tok.special, Noise(pause_dropout=0.0, hints=1.0), SpeechCues(stats))
    rng = np.random.default_rng(0)
    timed = [maker.make(e, 32, rng) for e in range(20, 60)]
    assert all(w.cues.shape == (len(w.ids), CUE_COUNT) for w in timed)
    assert all(w.cues[:, cue_index("timed")].any() and w.cues[:, cue_index("hinted")].any() for w in timed)
    # [PAUSE] follows the drawn gaps: after a period far more often than after a plain word
    assert sum(tok.special.pause in w.ids for w in timed) > 10
    bare = maker.make(30, 32, rng, pauses=False)
    assert not bare.cues.any() and tok.special.pause not in bare.ids


def test_stretched_windows_pause_longer_and_still_rank_the_marks(stats):
    from training.dataset import stretch_factor

    cues = SpeechCues(stats)
    marks = np.array([0, 0, 1, 0, 2] * 40)
    cases = np.zeros(len(marks), dtype=int)
    letters = np.full(len(marks), 6)
    _, measured = cues.draw(letters, marks, cases, np.random.default_rng(3), hints=False, last_gap_known=True)
    _, stretched = cues.draw(
        letters, marks, cases, np.random.default_rng(3), hints=False, last_gap_known=True, gap_scale=2.5
    )
    assert np.allclose(stretched, measured * 2.5)  # the same draws, each gap 2.5 times as long
    rows, _ = cues.draw(letters, marks, cases, np.random.default_rng(3), hints=False, last_gap_known=True,
                        gap_scale=2.5)  # fmt: skip
    long_bin = rows[:, cue_index("pause_over_0.7")]
    assert long_bin[marks == 2].mean() > 0.8 and long_bin[marks == 0].mean() < 0.1
    rng = np.random.default_rng(0)
    factors = np.array([stretch_factor((0.5, 2.0), rng) for _ in range(2000)])
    assert factors.min() >= 0.5 and factors.max() <= 2.0
    assert np.median(factors) == pytest.approx(1.0, abs=0.08)  # log-uniform: the geometric middle
    state = rng.bit_generator.state
    assert stretch_factor((1.0, 1.0), rng) == 1.0 and rng.bit_generator.state == state  # no draw
