"""The speaker encoder's numpy front end, and the shipped ONNX model on real synthetic speech."""

import numpy as np
import pytest

from engine.speakers.embedding import (
    EMBEDDING_SIZE,
    MEL_CHANNELS,
    PARTIAL_FRAMES,
    SAMPLE_RATE,
    cosine,
    mel_filterbank,
    mel_spectrogram,
    normalize_volume,
    partial_slices,
    shipped_encoder_path,
)
from tests.engine.speakers.conftest import SENTENCES, speak

# Voices from three synthesizers, men and women (espeak-ng's variants, festival's kal, flite's slt).
VOICES = (("espeak-ng", "en-us+m3"), ("espeak-ng", "en-us+f2"), ("festival", None), ("flite", "slt"))


def test_the_encoder_ships_with_livecap():
    assert shipped_encoder_path().is_file()
    assert (shipped_encoder_path().parent / "LICENSE").is_file()


def test_mel_filterbank_is_slaney_triangles_over_the_whole_band():
    bank = mel_filterbank()
    assert bank.shape == (MEL_CHANNELS, 201)
    assert (bank >= 0).all()
    peaks = bank.argmax(axis=1)
    assert (
        (np.diff(peaks) >= 0).all() and peaks[0] <= 2 and peaks[-1] >= 180
    )  # 7.4 kHz: the last band ends at 8
    # Slaney's normalisation: each triangle's area is 1 (summed over the 40 Hz bins).
    assert np.allclose(bank.sum(axis=1) * SAMPLE_RATE / 400, 1.0, atol=0.05)
    # librosa.filters.mel(sr=16000, n_fft=400, n_mels=40), librosa 0.11, at a few points.
    librosa = {(0, 1): 0.0073902095, (0, 2): 0.0124045210, (10, 22): 0.0005250310, (20, 44): 0.0071919174,
               (30, 95): 0.0028740054, (39, 185): 0.0017249404, (39, 190): 0.0012151540}  # fmt: skip
    for (band, bin_), value in librosa.items():
        assert bank[band, bin_] == pytest.approx(value, rel=1e-5)


def test_mel_spectrogram_centres_a_frame_every_10_ms():
    tone = np.sin(2 * np.pi * 440 * np.arange(SAMPLE_RATE) / SAMPLE_RATE).astype(np.float32)
    mel = mel_spectrogram(tone)
    assert mel.shape == (1 + SAMPLE_RATE // 160, MEL_CHANNELS)
    assert mel.dtype == np.float32
    band = int(np.argmax(mel_filterbank()[:, round(440 / 40)]))  # the band that holds 440 Hz
    assert (mel[2:-2].argmax(axis=1) == band).all()


def test_partial_slices_are_resemblyzers():
    # resemblyzer's compute_partial_slices at rate 1.3, min coverage 0.75: a 77-frame step.
    assert partial_slices(8000) == [slice(0, PARTIAL_FRAMES)]  # 0.5 s: one padded partial
    assert partial_slices(SAMPLE_RATE) == [slice(0, 160)]
    assert partial_slices(2 * SAMPLE_RATE) == [slice(0, 160), slice(77, 237)]
    assert partial_slices(4 * SAMPLE_RATE) == [
        slice(s, s + 160) for s in (0, 77, 154, 231)
    ]  # 308 covers 57 %


def test_volume_is_raised_to_minus_30_dbfs_and_never_lowered():
    quiet = (0.001 * np.sin(np.arange(16000) / 5)).astype(np.float32)
    raised = normalize_volume(quiet)
    assert 20 * np.log10(np.sqrt(np.mean(raised.astype(np.float64) ** 2))) == pytest.approx(-30, abs=0.01)
    loud = (0.5 * np.sin(np.arange(16000) / 5)).astype(np.float32)
    assert normalize_volume(loud) is loud
    silence = np.zeros(16000, np.float32)
    assert normalize_volume(silence) is silence


def test_short_spans_int16_and_silence_embed_to_unit_or_zero_vectors(encoder):
    speech = speak("espeak-ng", "en-us+m3", SENTENCES[0])
    short = encoder.embed(speech[: SAMPLE_RATE // 2])  # one zero-padded partial
    assert short.shape == (EMBEDDING_SIZE,) and np.linalg.norm(short) == pytest.approx(1, abs=1e-5)
    as_int16 = encoder.embed(np.round(speech * 32768).clip(-32768, 32767).astype(np.int16))
    assert cosine(as_int16, encoder.embed(speech)) > 0.999
    assert np.isfinite(encoder.embed(np.zeros(SAMPLE_RATE, np.float32))).all()
    with pytest.raises(ValueError):
        encoder.embed(np.zeros(0, np.float32))


def test_one_voice_is_nearer_itself_than_any_other_voice(encoder):
    embeddings = {
        voice: [encoder.embed(speak(tts, voice, text)) for text in SENTENCES[:2]] for tts, voice in VOICES
    }
    for voice, (first, second) in embeddings.items():
        same = cosine(first, second)
        others = [cosine(first, e) for other, pair in embeddings.items() if other != voice for e in pair]
        assert same > max(others) + 0.05, (voice, same, max(others))
        assert same > 0.8
