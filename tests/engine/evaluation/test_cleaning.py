"""The input-cleaning benchmark (engine/evaluation/cleaning.py): its baseline leaves the audio alone,
a cleaner whose library is missing is skipped with the line that installs it, its cleaners keep the
audio's length and timing, and one short real run reports a WER per condition and cleaner."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from engine.evaluation import cleaning
from engine.evaluation.corpus import dev_corpus
from tests.speech import PIPER_EXTRA, piper_missing


def test_the_baseline_returns_the_audio_unchanged():
    audio = np.random.default_rng(0).uniform(-0.5, 0.5, 16000).astype(np.float32)
    assert np.array_equal(cleaning.CLEANERS["none"](audio), audio)
    assert cleaning.skip_reason("none") is None


def test_a_cleaner_whose_library_is_missing_is_skipped_with_one_line(monkeypatch):
    monkeypatch.setitem(cleaning.LIBRARIES, "rnnoise", ("no_such_module_here", "no-such-package"))
    reason = cleaning.skip_reason("rnnoise")
    assert reason == "no_such_module_here is not installed: pip install no-such-package"
    assert "\n" not in reason
    assert cleaning._loaded(["none", "rnnoise"]) == {"rnnoise": reason}


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    from tests.speech import piper

    return piper("the weather is nice today, and we are going to the park").astype(np.float32) / 32768


@pytest.mark.parametrize("name", [n for n in cleaning.CLEANERS if cleaning.skip_reason(n) is None])
def test_each_installed_cleaner_keeps_the_speechs_length_and_timing(name, speech):
    """The scorer splits a transcript by the excerpts' times: a cleaner must not shift the speech
    (the frame delays of RNNoise, DeepFilterNet and WebRTC's suppressor are taken off)."""
    out = cleaning.CLEANERS[name](speech)
    assert len(out) == len(speech) and out.dtype == np.float32
    from scipy.signal import correlate

    full = correlate(out.astype(np.float64), speech.astype(np.float64), mode="full", method="fft")
    assert abs(int(np.argmax(full)) - (len(speech) - 1)) <= 16  # 1 ms


@pytest.mark.slow
@pytest.mark.needs_corpus
@pytest.mark.skipif(piper_missing(), reason=PIPER_EXTRA)
@pytest.mark.skipif(importlib.util.find_spec("pyroomacoustics") is None, reason="pip install pyroomacoustics")
@pytest.mark.skipif(not (dev_corpus() / "chitchat.txt").exists(), reason="shared dev corpus not present")
def test_one_voice_in_one_room_reports_a_wer_per_cleaner(tmp_path, capsys):
    out = tmp_path / "cleaning.json"
    argv = ["--voice", "piper", "--condition", "room-rt0.3-1m", "--cleaner", "none", "--excerpts", "1",
            "--words", "20", "--min-words", "20", "--max-words", "40", "--nonspeech-minutes", "0.1",
            "--out", str(out)]  # fmt: skip
    assert cleaning.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == result
    scores = result["voices"]["piper"]["conditions"]["room-rt0.3-1m"]["none"]
    assert isinstance(scores["wer_pct"], float) and 0 <= scores["wer_pct"] < 60
    assert scores["loops"] == []
    assert set(result["cleaners"]) == {"none"}
    assert result["cleaners"]["none"]["cpu_per_audio_second"] is not None
    kinds = set(result["nonspeech"]["cleaners"]["none"])
    assert kinds == {"noise", "music", "typing", "room_tone", "total_words"}
