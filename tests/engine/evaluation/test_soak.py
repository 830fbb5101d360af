"""A short run of the soak (``python -m engine.evaluation.soak``): two minutes of generated speech and silence
through the real recognizer thread, stabiliser, engine thread and journal, faster than real time."""

import shutil

import pytest

from engine.evaluation.soak import GeneratedSpeech, run_soak


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng synthesises the soak's speech")
@pytest.mark.slow
@pytest.mark.needs_espeak
def test_two_minutes_lose_no_word_and_hold_memory(tiny_model_dir, tmp_path):
    result = run_soak(120, model_dir=tiny_model_dir, journal_dir=tmp_path)
    assert result["error"] is None
    assert result["audio_hours"] == pytest.approx(120 / 3600, abs=1e-4)
    assert result["speed_x_realtime"] > 1  # faster than real time, or it would be no soak
    assert result["recognized_words"] > 150  # two minutes of speech recognized, not silence
    assert result["words_equal"], result  # stabiliser = transcript = journal, text for text
    assert result["all_settled"] and result["journal_closed"]
    # Once warm, two minutes add a few hundred words to the transcript, nothing more.
    assert result["rss_growth_mb"] < 15, result["rss_mb"]


def test_generated_speech_is_exactly_as_long_as_asked():
    import numpy as np

    clips = [np.full(1234, 1000, np.int16), np.full(777, -1000, np.int16)]
    source = GeneratedSpeech(clips, seconds=3.05, seed=1).start()
    chunks = []
    while (chunk := source.read(0)) is not None:
        chunks.append(chunk)
    audio = np.concatenate(chunks)
    assert len(audio) == int(3.05 * 16000) and source.finished
    assert (audio != 0).any() and (audio == 0).any()  # speech and silence
    assert source.events.get_nowait().kind == "finished"
