"""The input check on real speech (Piper's voice, espeak-ng's where Piper is missing), degraded
the ways a user's input goes wrong: each hint comes on its own degraded audio, none on clean
speech, speech in mild noise or silence, and a hint never flickers."""

from __future__ import annotations

import functools
import shutil

import numpy as np
import pytest

from engine import InputHint
from engine.audio.input_check import HINT_MESSAGES, InputChecker
from tests.speech import piper_missing

RATE = 16000
TEXT = (
    "The weather is nice today, and we are going to the park. After lunch we will walk along the "
    "river and look at the boats. My sister wants to bring her camera, because the light is "
    "beautiful in the evening. Then we will come home and cook dinner together."
)


@functools.cache
def _voice() -> np.ndarray:
    """About 30 s of speech, float in -1..1, its speech at -20 dBFS RMS (a normal level)."""
    if not piper_missing():
        from engine.evaluation.e2e_speech import speak_piper

        clip = speak_piper(TEXT).astype(np.float32) / 32768
    elif shutil.which("espeak-ng") is not None:
        clip = _espeak(TEXT)
    else:
        pytest.skip("neither Piper (pip install -e '.[dev]') nor espeak-ng is installed: no test speech")
    return at_dbfs(np.concatenate([clip, clip]), -20.0)


def _espeak(text: str) -> np.ndarray:
    import subprocess
    import tempfile
    from pathlib import Path

    import soundfile as sf
    from scipy.signal import resample_poly

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run(["espeak-ng", "-w", str(path), "-v", "en-us", "-s", "130", text], check=True)
        data, rate = sf.read(path, dtype="float32")
    return resample_poly(data, RATE, rate).astype(np.float32)


@pytest.fixture
def voice() -> np.ndarray:
    return _voice()


def speech_rms(x: np.ndarray) -> float:
    """RMS over the frames that hold speech (within 30 dB of the loudest)."""
    frames = x[: len(x) // 1600 * 1600].reshape(-1, 1600)
    power = (frames**2).mean(axis=1)
    return float(np.sqrt(power[power > power.max() * 1e-3].mean()))


def at_dbfs(x: np.ndarray, dbfs: float) -> np.ndarray:
    return (x * (10 ** (dbfs / 20) / speech_rms(x))).astype(np.float32)


def pink_noise(n: int, seed: int = 1) -> np.ndarray:
    spectrum = np.fft.rfft(np.random.default_rng(seed).standard_normal(n))
    k = np.arange(len(spectrum))
    k[0] = 1
    noise = np.fft.irfft(spectrum / np.sqrt(k), n)
    return (noise / noise.std()).astype(np.float32)


def with_noise(x: np.ndarray, snr_db: float, noise: np.ndarray) -> np.ndarray:
    return x + noise[: len(x)] * (speech_rms(x) / 10 ** (snr_db / 20) / speech_rms(noise))


def hints_of(x: np.ndarray, block: int = 1600) -> tuple[list[InputHint], InputChecker]:
    """Every hint change, fed as a session feeds it: int16 blocks of 100 ms."""
    pcm = (np.clip(x, -1, 1) * 32767).astype(np.int16)
    checker, changes = InputChecker(), []
    for start in range(0, len(pcm), block):
        hint = checker.feed(pcm[start : start + block])
        if hint is not None:
            changes.append(hint)
    return changes, checker


def kinds(changes: list[InputHint]) -> list[str | None]:
    return [hint.kind for hint in changes]


# ---- no hint where the input is fine -------------------------------------------------------------
def test_clean_speech_at_a_normal_level_gets_no_hint(voice):
    changes, checker = hints_of(voice)
    assert changes == []
    levels = checker.levels
    assert -25 < levels.speech_dbfs < -5 and levels.snr_db > 30 and levels.clipped_share == 0
    assert levels.rt60_seconds is not None and levels.rt60_seconds < 0.3  # dry speech falls fast


def test_speech_in_mild_noise_gets_no_hint(voice):
    changes, checker = hints_of(with_noise(voice, 20, pink_noise(len(voice))))
    assert changes == [] and checker.levels.snr_db > 18


@pytest.mark.parametrize("level", [None, -70.0, -45.0])
def test_silence_and_a_steady_noise_floor_get_no_hint(level):
    n = RATE * 20
    x = np.zeros(n, np.float32) if level is None else pink_noise(n, seed=3) * 10 ** (level / 20)
    changes, checker = hints_of(x)
    assert changes == [] and not checker.levels.speech  # no speech: nothing to judge


# ---- each hint on its own degraded audio -----------------------------------------------------------
def test_speech_at_minus_50_dbfs_is_very_quiet(voice):
    changes, checker = hints_of(at_dbfs(voice, -50))
    assert kinds(changes) == ["quiet"] and changes[0].message == HINT_MESSAGES["quiet"]
    assert checker.levels.speech_dbfs < -40


def test_speech_with_20_db_of_gain_is_clipping(voice):
    changes, checker = hints_of(np.clip(voice * 10, -1, 1))
    assert kinds(changes) == ["clipping"] and "clipping" in changes[0].message
    assert checker.levels.clipped_share > 0.01


@pytest.mark.parametrize("snr_db", [0, 5])
def test_speech_in_pink_noise_at_0_to_5_db_snr_is_noisy(voice, snr_db):
    changes, checker = hints_of(with_noise(voice, snr_db, pink_noise(len(voice))))
    assert kinds(changes) == ["noisy"] and checker.levels.snr_db < 13


def test_speech_in_babble_at_0_db_snr_is_noisy(voice):
    # Babble: five talkers, the same voice reversed (its words are no words of the speech) and
    # shifted apart, so their pauses do not line up.
    babble = sum(np.roll(voice[::-1], RATE * shift) for shift in (3, 7, 11, 17, 23))
    changes, _ = hints_of(with_noise(voice, 0, babble))
    assert kinds(changes) == ["noisy"]


def test_speech_from_across_a_reverberant_room_is_echoey(voice):
    pra = pytest.importorskip("pyroomacoustics", reason="pyroomacoustics is not installed: no room")
    room_size = [8, 6, 3]
    absorption, max_order = pra.inverse_sabine(0.9, room_size)  # RT60 0.9 s
    room = pra.ShoeBox(room_size, fs=RATE, materials=pra.Material(absorption), max_order=max_order)
    room.add_source([2, 3, 1.5], signal=voice)
    room.add_microphone([5, 3, 1.5])  # 3 m from the talker
    room.simulate()
    reverberant = at_dbfs(room.mic_array.signals[0][: len(voice)].astype(np.float32), -20)
    changes, checker = hints_of(reverberant)
    assert kinds(changes) == ["noisy"]  # noise and echo share a hint: the remedy is the same
    assert checker.levels.rt60_seconds > 0.55 and checker.levels.snr_db > 16  # the room, not noise


# ---- never flickers --------------------------------------------------------------------------------
def test_a_level_that_alternates_around_the_threshold_changes_the_hint_at_most_once_each_way(voice):
    """Speech at -38 and -42 dBFS in turn, every 2 s: around the quiet threshold (-40) for a
    minute. The hint may come once and go once; it does not come and go with each stretch."""
    stretches = [at_dbfs(voice, -38.0), at_dbfs(voice, -42.0)]
    x = np.concatenate([stretches[i % 2][i * 2 * RATE : (i + 1) * 2 * RATE] for i in range(14)] * 2)
    changes, _ = hints_of(x)
    assert kinds(changes).count("quiet") <= 1 and kinds(changes).count(None) <= 1


def test_a_hint_clears_only_after_longer_fine_speech_and_does_not_return_at_once(voice):
    quiet, fine = at_dbfs(voice, -50), voice
    changes, checker = hints_of(np.concatenate([quiet[: RATE * 15], fine[: RATE * 15], quiet[: RATE * 15]]))
    assert kinds(changes) == ["quiet", None]  # quiet again within REPEAT_SECONDS: not said again
    assert changes[1].message == ""


def test_blocks_of_any_size_give_the_same_hints(voice):
    x = at_dbfs(voice, -50)
    assert kinds(hints_of(x, block=512)[0]) == kinds(hints_of(x, block=4000)[0]) == ["quiet"]
