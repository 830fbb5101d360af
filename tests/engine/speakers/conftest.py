"""Project-made speech in several voices, and the shipped speaker encoder, for the speaker tests."""

import functools
import shutil

import numpy as np
import pytest

from engine.speakers.embedding import SpeakerEncoder

# Three synthesizers, so that "different voices" is not just one engine's pitch setting.
TOOLS = {
    "espeak-ng": ("espeak-ng", "espeak-ng"),
    "festival": ("text2wave", "festival"),
    "flite": ("flite", "flite"),
}
SENTENCES = (
    "the weather is nice today and we are going to the park",
    "please send me the report before the meeting on thursday",
    "could you share your screen so everyone can see the numbers",
    "my connection dropped for a minute so i missed the last part",
)


@functools.cache
def _speak(tts: str, voice: str | None, text: str) -> np.ndarray:
    from engine.evaluation.e2e_speech import speak_with

    return speak_with(tts, text, voice).astype(np.float32) / 32768


def speak(tts: str, voice: str | None, text: str) -> np.ndarray:
    """``text`` read by ``tts`` in ``voice``, 16 kHz float32, without its silent ends; skips the
    test where the synthesizer is not installed."""
    program, package = TOOLS[tts]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (apt-get install {package}): it speaks this test's voices")
    return trim_silence(_speak(tts, voice, text))


def trim_silence(audio: np.ndarray) -> np.ndarray:
    """Without the leading and trailing 10 ms frames 40 dB below the loudest: the runtime embeds
    recognised words, not the silence a synthesizer leaves around them."""
    frames = audio[: len(audio) // 160 * 160].reshape(-1, 160)
    energy = np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1)) + 1e-12
    loud = np.flatnonzero(energy > energy.max() / 100)
    return audio[loud[0] * 160 : (loud[-1] + 1) * 160]


@pytest.fixture(scope="session")
def encoder() -> SpeakerEncoder:
    return SpeakerEncoder()
