"""The recognizer-output dev set (engine/evaluation/recognized_dev.py) and the TTS engines it reads with
(engine/evaluation/e2e_speech.py)."""

import json
import shutil

import numpy as np
import pytest

from engine.evaluation.e2e_speech import SAMPLE_RATE, Excerpt, speak_with, synthesize
from engine.evaluation.recognized_dev import build_sets, dev_excerpts, main
from engine.evaluation.recognized_sets import RecognizedSet, load_dev_sets, score_set
from engine.evaluation.whisper_marks import Writings
from engine.prosody.features import PROSODY_FIELDS
from engine.words import Word

needs_festival = pytest.mark.skipif(
    shutil.which("text2wave") is None, reason="festival is not installed (apt-get install festival)"
)
TEXT = "The ship is ready, but the crew is not. Do you want to hire more crew? We leave at dawn."
SKY = """Welcome aboard, Captain. The ship is ready, but the crew is not. Do you want to hire more
crew before we leave? We can reach the station in three jumps, if the pirates stay away. Still, the
engines work. Land on the moon, sell the cargo, and come back here. Is that clear? Good.
"""
EXCERPT = Excerpt(
    "dev/endless_sky.txt#0:0",
    "the ship is ready but the crew is not".split(),
    ["none", "none", "none", "comma", "none", "none", "none", "none", "period"],
    ["capitalized"] + ["lower"] * 8,
)


@needs_festival
def test_festival_reads_text_as_16_khz_int16_speech():
    audio = speak_with("festival", TEXT)
    assert audio.dtype == np.int16
    assert 3 < len(audio) / SAMPLE_RATE < 10
    assert np.abs(audio).max() > 5000  # speech, not silence
    slower = speak_with("festival", TEXT, speed=120)  # a speed is a pace in words per minute
    assert len(slower) > 1.1 * len(audio)


@pytest.mark.skipif(shutil.which("flite") is None, reason="flite is not installed (apt-get install flite)")
def test_flite_reads_text_as_16_khz_int16_speech():
    audio = speak_with("flite", TEXT)
    assert audio.dtype == np.int16 and np.abs(audio).max() > 5000
    assert 3 < len(audio) / SAMPLE_RATE < 10


def test_an_unknown_tts_engine_is_refused():
    with pytest.raises(ValueError, match="festival"):
        speak_with("sam", TEXT)


@needs_festival
def test_synthesize_with_festival_spans_each_excerpt():
    speech = synthesize([EXCERPT, EXCERPT], gap=1.0, tts="festival")
    (a0, b0), (a1, b1) = speech.spans
    assert 0.4 < a0 < b0 < a1 < b1 < len(speech.audio) / SAMPLE_RATE
    assert a1 - b0 >= 1.0  # the gap, plus the engine's own padding


def perfect_set() -> RecognizedSet:
    words = [
        Word(w, round(0.5 + 0.3 * i, 3), round(0.7 + 0.3 * i, 3), 0.9, w.capitalize() if i == 0 else w)
        for i, w in enumerate(EXCERPT.words)
    ]
    return RecognizedSet(
        "endless_sky",
        "whisper",
        "festival",
        [EXCERPT],
        [(0.5, 3.2)],
        [(words[:4], 2.0), (words[4:], 4.0)],
        5.0,
        3.5,
        writings=Writings({2: words[2].text}, [(1, 2, words[2].text + ",")]),
    )


def test_a_set_round_trips_through_json_and_scores(tmp_path):
    rset = perfect_set()
    path = tmp_path / "dev.json"
    path.write_text(json.dumps({"tts": "festival", "sets": [rset.to_dict()]}))
    (back,) = load_dev_sets(path)
    assert back == rset and back.writings.rewrites == [(1, 2, EXCERPT.words[2] + ",")]
    assert [w.text for w in back.words] == EXCERPT.words
    forms = ["The"] + EXCERPT.words[1:]
    scores = score_set(back, EXCERPT.marks, forms)
    assert scores["wer"] == 0 and scores["marks_f1"] == 1.0 and scores["nonlower_f1"] == 1.0
    none = score_set(back, ["none"] * 9, EXCERPT.words)
    assert none["marks_f1"] == 0 and none["per_mark_f1"]["comma"] == 0
    with pytest.raises(ValueError, match="9 words"):
        score_set(back, ["none"], ["x"])


def test_a_bad_corpus_folder_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert (
        main(["--out", str(tmp_path / "o.json"), "--corpus", str(tmp_path / "nowhere"), "--tts", "flite"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith("recognized_dev: ") and "\n" not in err


@needs_festival
def test_pocketsphinx_hears_festival_live_and_the_part_is_reused(tmp_path):
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "endless_sky.txt").write_text(SKY, encoding="utf-8")
    excerpts = dev_excerpts(dev, 1, 20, 40)
    assert list(excerpts) == ["endless_sky"] and 20 <= len(excerpts["endless_sky"][0].words) <= 40
    logged = []
    (rset,) = build_sets(excerpts, ["pocketsphinx"], "festival", tmp_path / "parts", logged.append)[0]
    assert rset.batches and all(b <= a for (_, b), (_, a) in zip(rset.batches, rset.batches[1:]))
    starts = [w.start for w in rset.words]
    assert starts == sorted(starts) and starts[-1] < rset.audio_seconds
    assert rset.cpu_seconds > 0 and all(w.written == "" for w in rset.words)
    assert rset.clock == "committed" and rset.writings == Writings({}, [])  # it writes nothing to revise
    assert score_set(rset, ["none"] * len(starts), [w.text for w in rset.words])["wer"] < 0.8
    (again,), _ = build_sets(excerpts, ["pocketsphinx"], "festival", tmp_path / "parts", logged.append)
    assert "cached" in logged[-1]
    assert [w.text for w in again.words] == [w.text for w in rset.words] and again.writings == rset.writings
    # as livecap transcribe hears a file: one batch, cached apart from the live set
    (whole,), settings = build_sets(
        excerpts, ["pocketsphinx"], "festival", tmp_path / "parts", logged.append, live=False
    )
    assert "cached" not in logged[-1] and len(whole.batches) == 1 and whole.words
    assert settings["pocketsphinx"]["live"] is False and settings["pocketsphinx"]["final_pass"] is True
    assert (tmp_path / "parts" / "endless_sky_pocketsphinx_file.json").exists()
    # The reading itself is kept beside the parts, and a saved set's words get their prosody back
    # from it, measured as a live session measures them.
    assert rset.audio_file and (tmp_path / "parts" / rset.audio_file).is_file()
    assert len(rset.audio(tmp_path / "parts")) / 16000 == pytest.approx(rset.audio_seconds, abs=0.01)
    saved = tmp_path / "dev.json"
    saved.write_text(json.dumps({"tts": "festival", "sets": [rset.to_dict()]}))
    (tmp_path / "dev.parts").symlink_to(tmp_path / "parts")
    (heard,) = load_dev_sets(saved)
    assert [w.text for w in heard.words] == [w.text for w in rset.words]
    assert all(len(w.prosody) == len(PROSODY_FIELDS) for w in heard.words)
    silences = [w.prosody[PROSODY_FIELDS.index("silence_before")] for w in heard.words]
    assert not any(np.isnan(silences[1:]))  # each word's pause heard from the word before, batch to batch
    assert all(not w.prosody for w in load_dev_sets(saved, prosody=False)[0].words)
