"""A short run of the soak (``python -m engine.evaluation.soak``): a minute of generated speech and silence
through the real recognizer thread, stabiliser, engine thread and journal, faster than real time; and a
few seconds of it through Whisper, the default recognizer, from the command line."""

import json
import shutil

import pytest

from engine.evaluation.soak import GeneratedSpeech, lost_words, main, run_soak


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng synthesises the soak's speech")
@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_minute_loses_no_word_and_holds_memory(tiny_model_dir, tmp_path):
    result = run_soak(60, model_dir=tiny_model_dir, journal_dir=tmp_path)
    assert result["error"] is None
    assert result["audio_hours"] == pytest.approx(60 / 3600, abs=1e-4)
    assert result["recognized_words"] > 75  # a minute of speech recognized, not silence
    assert result["words_equal"], result  # stabiliser = transcript = journal, text for text
    assert result["all_settled"] and result["journal_closed"]
    # Once warm, a minute adds a hundred-odd words to the transcript, nothing more.
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


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng synthesises the soak's speech")
@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_short_whisper_soak_loses_no_word_and_reports_memory(tiny_model_dir, tmp_path, capsys):
    # A few seconds only: live Whisper decodes at about real time on a busy 2-core machine.
    status = main(
        ["--recognizer", "whisper", "--seconds", "10", "--model-dir", str(tiny_model_dir),
         "--journal-dir", str(tmp_path)]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert status == 0, result
    assert result["recognizer"] == "whisper" and result["error"] is None
    assert result["lost_words"] == 0 and result["words_equal"], result
    assert result["all_settled"] and result["journal_closed"]
    # Whisper heard the speech: most of the words of the clips said whole (a clip cut at the
    # end may add a few more).
    assert result["spoken_words"] > 0
    assert result["recognized_words"] >= 0.6 * result["spoken_words"], result
    rss, series = result["rss_mb"], result["rss_series_mb"]
    assert {"start", "median", "end"} <= rss.keys() and rss["start"] > 50  # the model is loaded
    assert min(series) <= rss["median"] <= max(series) and rss["end"] == series[-1]
    assert result["rss_growth_mb"] == pytest.approx(rss["end"] - rss["warm"], abs=0.11)


def test_a_recognizer_that_cannot_open_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path))  # no Vosk model installed there
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng): it speaks the soak's audio")
    assert main(["--recognizer", "vosk", "--seconds", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No Vosk model installed" in err[0] and "livecap models download" in err[0]


def test_an_unknown_recognizer_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--recognizer", "sphinx4", "--seconds", "1"])
    assert "pocketsphinx" in capsys.readouterr().err
    with pytest.raises(ValueError, match="whisper"):
        run_soak(1, recognizer="sphinx4")


def test_lost_words_counts_what_the_transcript_or_the_journal_lacks():
    assert lost_words(3, ["a", "b", "c"], ["a", "b", "c"]) == 0
    assert lost_words(5, ["a", "b", "c"], ["a", "b", "c"]) == 2  # committed, never in the transcript
    assert lost_words(3, ["a", "b", "c"], ["a", "c"]) == 1  # in the transcript, not in the journal
    assert lost_words(3, ["a", "b", "c"], ["a", "x", "c"]) == 1  # a word changed on its way


def test_generated_speech_counts_the_words_of_the_clips_it_said_whole():
    import numpy as np

    clips = [np.full(16000, 1000, np.int16), np.full(8000, -1000, np.int16)]
    source = GeneratedSpeech(clips, seconds=30.4, seed=2, words=[3, 1]).start()
    chunks = []
    while (chunk := source.read(0)) is not None:
        chunks.append(chunk)
    audio = np.concatenate([np.concatenate(chunks), [0]])  # a clip cut at the end has no edge
    # Silences separate the clips: each falling edge to 0 ends one clip said whole.
    ends = np.flatnonzero((audio[:-1] != 0) & (audio[1:] == 0))
    expected = sum(3 if audio[i] > 0 else 1 for i in ends[ends < len(audio) - 2])
    assert expected > 10 and source.spoken_words == expected
    with pytest.raises(ValueError, match="word counts"):
        GeneratedSpeech(clips, seconds=1, words=[3])
