"""Fixtures shared by the recognizer tests."""

import shutil
import subprocess
import wave

import numpy as np
import pytest

from tests.engine.recognizers.test_recognizers import SENTENCE, _resample


@pytest.fixture(scope="session")
def speech(tmp_path_factory) -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng): it synthesises the test speech")
    path = tmp_path_factory.mktemp("speech") / "sentence.wav"
    subprocess.run(["espeak-ng", "-w", str(path), "-v", "en-us", "-s", "130", SENTENCE], check=True)
    with wave.open(str(path)) as w:  # espeak-ng writes 22050 Hz mono int16
        samples = np.frombuffer(w.readframes(w.getnframes()), np.int16)
        rate = w.getframerate()
    return _resample(samples, rate).astype(np.int16)
