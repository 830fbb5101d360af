"""The acoustic conditions of the rooms benchmark (engine/evaluation/degrade.py): a simulated room, noise
at an SNR, a real Opus call, levels, and non-speech, each keeping the speech's timing and length."""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np
import pytest
from scipy.signal import correlate

from engine.evaluation import degrade
from engine.evaluation.corpus import train_corpus
from engine.evaluation.degrade import (
    CONDITIONS,
    NONSPEECH_KINDS,
    PRESETS,
    active_rms,
    at_level,
    clipped,
    dbfs,
    mix_at_snr,
    nonspeech,
    opus_call,
    reverberate,
)
from engine.evaluation.e2e_speech import SAMPLE_RATE

needs_pyroomacoustics = pytest.mark.skipif(
    importlib.util.find_spec("pyroomacoustics") is None, reason="pip install pyroomacoustics simulates rooms"
)
needs_opus = pytest.mark.skipif(
    importlib.util.find_spec("opuslib_next") is None, reason="pip install opuslib-next-bundled codes calls"
)


def voiced(seconds: float = 3.0, seed: int = 0) -> np.ndarray:
    """Speech-like test audio: syllables of a gliding harmonic voice (0.1–0.3 s) between short pauses."""
    rng = np.random.default_rng(seed)
    out, at = np.zeros(int(seconds * SAMPLE_RATE), np.float32), int(0.2 * SAMPLE_RATE)
    while at < len(out) - SAMPLE_RATE // 2:
        n = int(rng.uniform(0.1, 0.3) * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        f0 = rng.uniform(100, 200) * (1 + 0.2 * t)
        phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
        syllable = sum(np.sin(k * phase) / k for k in range(1, 12)) * np.hanning(n)
        out[at : at + n] = 0.2 * syllable
        at += n + int(rng.uniform(0.05, 0.25) * SAMPLE_RATE)
    return out


def lag_of(reference: np.ndarray, processed: np.ndarray) -> int:
    """Samples ``processed`` lags ``reference`` by, at the cross-correlation's peak."""
    c = correlate(processed, reference, mode="full", method="fft")
    return int(np.argmax(c)) - (len(reference) - 1)


def energy(audio: np.ndarray) -> float:
    return float(np.sum(np.square(audio, dtype=np.float64)))


@needs_pyroomacoustics
def test_a_room_keeps_the_speech_in_place_and_its_length():
    dry = voiced()
    wet = reverberate(dry, rt60=0.3, distance=1.0, seed=0)
    assert len(wet) == len(dry) and wet.dtype == np.float32
    assert abs(lag_of(dry, wet)) <= 2  # the direct sound where the dry sound was
    assert np.sqrt(np.mean(wet.astype(np.float64) ** 2)) == pytest.approx(
        np.sqrt(np.mean(dry**2.0)), rel=1e-3
    )
    assert not np.allclose(wet, dry, atol=1e-3)


@needs_pyroomacoustics
def test_a_longer_reverberation_time_rings_on_longer_after_the_sound_stops():
    burst = np.zeros(2 * SAMPLE_RATE, np.float32)
    burst[: SAMPLE_RATE // 2] = (
        np.sin(2 * np.pi * 440 * np.arange(SAMPLE_RATE // 2) / SAMPLE_RATE) * 0.3
    )  # a tone for 0.5 s, then silence
    after = slice(int(0.55 * SAMPLE_RATE), int(0.85 * SAMPLE_RATE))
    tails = [energy(reverberate(burst, rt60, 2.0)[after]) / energy(burst) for rt60 in (0.3, 0.9)]
    assert energy(burst[after]) == 0
    assert tails[0] > 1e-6 and tails[1] > 3 * tails[0]


def test_noise_is_mixed_at_the_asked_ratio_to_the_active_speech():
    speech = voiced()
    noise = degrade.pink_noise(1.3, seed=1)  # shorter than the speech: looped
    for snr in (20, 5, 0):
        mixed = mix_at_snr(speech, noise, snr)
        assert len(mixed) == len(speech)
        added = mixed.astype(np.float64) - speech
        measured = dbfs(active_rms(speech)) - dbfs(np.sqrt(np.mean(added**2)))
        assert measured == pytest.approx(snr, abs=0.5)


@needs_opus
def test_an_opus_call_changes_the_sound_but_keeps_its_timing_and_length():
    speech = voiced()
    call = opus_call(speech, kbps=12)
    assert len(call) == len(speech) and call.dtype == np.float32
    assert abs(lag_of(speech, call)) <= 5  # the codec's lookahead taken off
    error = energy(call - speech) / energy(speech)
    assert 1e-3 < error < 1.0  # coded, not copied, and still the same sound
    assert np.corrcoef(speech, call)[0, 1] > 0.5


@needs_opus
def test_lost_packets_are_concealed_and_sound_different():
    speech = voiced()
    clean_call = opus_call(speech, kbps=24)
    lossy = opus_call(speech, kbps=24, loss=0.2, seed=3)
    assert len(lossy) == len(speech)
    assert not np.allclose(lossy, clean_call, atol=1e-3)
    assert np.array_equal(lossy, opus_call(speech, kbps=24, loss=0.2, seed=3))  # seeded


def test_the_level_is_set_on_the_active_speech_and_clipping_clips():
    speech = voiced()
    assert dbfs(active_rms(at_level(speech, -50))) == pytest.approx(-50, abs=0.5)
    loud = clipped(speech, 30)
    assert np.max(np.abs(loud)) == pytest.approx(1.0) and np.mean(np.abs(loud) >= 1.0) > 0.05


@pytest.mark.parametrize("kind", NONSPEECH_KINDS)
def test_non_speech_has_the_asked_length_and_is_heard(kind):
    audio = nonspeech(kind, 3.0, seed=2)
    assert len(audio) == 3 * SAMPLE_RATE and audio.dtype == np.float32
    assert -40 < dbfs(np.sqrt(np.mean(audio.astype(np.float64) ** 2))) < -15
    assert np.max(np.abs(audio)) <= 1.0


@pytest.mark.parametrize("maker", [degrade.pink_noise, degrade.brown_noise, degrade.fan_hum, degrade.typing])
def test_noises_are_seeded(maker):
    assert np.array_equal(maker(1.0, 5), maker(1.0, 5))
    assert not np.array_equal(maker(1.0, 5), maker(1.0, 6))


@pytest.mark.needs_corpus
@pytest.mark.skipif(
    not all(shutil.which(p) for p in ("flite", "espeak-ng", "text2wave")),
    reason="babble's talkers are flite, espeak-ng and festival (apt-get install flite espeak-ng festival)",
)
@pytest.mark.skipif(not train_corpus().is_dir(), reason="shared training corpus not present")
def test_babble_is_other_voices_talking():
    audio = degrade.babble(4.0, seed=0, talkers=3)
    assert len(audio) == 4 * SAMPLE_RATE
    assert active_rms(audio) > 0.01


def test_the_registry_names_every_condition_the_presets_use():
    assert {f"room-rt{rt}-{d}m" for rt in (0.3, 0.6, 0.9) for d in (1, 2, 3)} <= set(CONDITIONS)
    assert {"babble10", "pink5", "fan0", "typing20", "opus12-loss10", "quiet", "clipped"} <= set(CONDITIONS)
    assert PRESETS["targets"] == ["clean", "room", "call", "babble10", "pink5", "hard"]
    assert set(PRESETS["full"]) == set(CONDITIONS)
    assert CONDITIONS["hard"].to_dict() == {
        "rt60": 0.7, "distance": 2.5, "noise": "babble", "snr_db": 5, "opus_kbps": 12, "loss": 0.0,
    }  # fmt: skip


def test_clean_is_the_speech_as_it_was():
    speech = voiced()
    assert np.array_equal(CONDITIONS["clean"].apply(speech, seed=0), speech)
