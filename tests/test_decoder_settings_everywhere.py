"""One config.json, one set of decoder settings, whichever way livecap is run.

Each entry point is run for real on a model whose config.json holds settings unlike
``DecoderSettings()``'s defaults, and every decoder it builds is recorded (the decoders' own
constructors, wrapped, then run as usual). A front end that resolved its settings anywhere but
from that file, or that kept defaults of its own, would build a decoder with other settings.
The training entry points are checked in tests/training/ (they need torch).
"""

from __future__ import annotations

import io
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.punctuation.model_config import ModelConfig
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from tests.speech import write_speech_wav

# Unlike every default of DecoderSettings(), so that a default used anywhere shows.
UNUSUAL = dict(
    l_min=2,
    l_max=3,
    threshold=0.7,
    silence_gap=0.9,
    offline={"window": 48, "stride": 12, "min_left": 3, "min_right": 5, "edge_weighting": "none"},
)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    folder = write_model_dir(tmp_path_factory.mktemp("unusual_model"))
    config = ModelConfig.load(folder)
    decoder = DecoderSettings.from_config(UNUSUAL, pause_threshold=0.4)
    replace(config, decoder=decoder).save(folder)
    return folder


@pytest.fixture(scope="module")
def configured(model_dir) -> DecoderSettings:
    settings = ModelConfig.load(model_dir).decoder
    defaults = DecoderSettings()
    same = [f for f in vars(defaults) if f != "casing" and getattr(settings, f) == getattr(defaults, f)]
    assert not same, f"the test model's config repeats the defaults for {same}: it proves nothing"
    return settings


@pytest.fixture(scope="module")
def speech(tmp_path_factory) -> Path:
    return write_speech_wav(tmp_path_factory.mktemp("speech") / "speech.wav", repeats=1)


@pytest.fixture
def built(monkeypatch, tmp_path):
    """Every decoder built while the test runs: (kind, settings)."""
    seen, lock = [], threading.Lock()
    for kind, cls in (("stream", StreamingDecoder), ("offline", OfflineDecoder)):
        original = cls.__init__

        def record(self, scorer, settings, *args, _original=original, _kind=kind, **kwargs):
            with lock:
                seen.append((_kind, settings))
            _original(self, scorer, settings, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", record)
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    return seen


def run_cli(monkeypatch, *args, stdin: str = "") -> int:
    from engine.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    return main([str(a) for a in args])


def only(built, kind: str) -> DecoderSettings:
    kinds = {k for k, _ in built}
    settings = {s for k, s in built if k == kind}
    assert kind in kinds and len(settings) == 1, built
    return settings.pop()


@pytest.mark.parametrize("mode", ["stream", "offline"])
def test_punctuate(monkeypatch, built, model_dir, configured, mode):
    code = run_cli(monkeypatch, "punctuate", "--mode", mode, "--model-dir", model_dir, stdin="so what now")
    assert code == 0 and only(built, mode) == configured


@pytest.mark.needs_espeak
def test_listen_and_transcribe(monkeypatch, built, model_dir, configured, speech, tmp_path):
    # The engine's marks on the default recognizer's words (Whisper's own are the default for it).
    engine = ("--marks", "engine")
    assert run_cli(monkeypatch, "listen", "--source", speech, "--model-dir", model_dir, *engine) == 0
    assert only(built, "stream") == configured
    built.clear()
    out = tmp_path / "talk.txt"
    assert run_cli(monkeypatch, "transcribe", speech, "-o", out, "--model-dir", model_dir, *engine) == 0
    assert out.read_text().strip() and only(built, "offline") == configured


@pytest.mark.needs_espeak
def test_dictate(monkeypatch, built, model_dir, configured, speech, xvfb):
    monkeypatch.setenv("DISPLAY", xvfb[0])
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    code = run_cli(monkeypatch, "dictate", "--source", speech, "--model-dir", model_dir, "--marks", "engine")
    if code == 2 and not any(Path(p, "xdotool").exists() for p in os.environ["PATH"].split(":")):
        pytest.skip("xdotool is not installed (apt-get install xdotool)")
    assert code == 0 and only(built, "stream") == configured


def test_bench(monkeypatch, built, model_dir, configured, capsys):
    from engine.evaluation import bench

    args = ["--model-dir", model_dir, "--stream-words", "40", "--offline-words", "80", "--repeat", "1"]
    assert bench.main([str(a) for a in args]) == 0
    assert {s for _, s in built} == {configured}


@pytest.mark.needs_espeak
def test_e2e(built, model_dir, configured, speech):
    from engine.evaluation.e2e import run_live
    from engine.punctuation.model import PunctuationModel
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    run_live(speech, PocketSphinxRecognizer(), PunctuationModel(model_dir), realtime=False)
    assert only(built, "stream") == configured


# In one process after the whole of tests/app (hundreds of windows and sessions), creating this
# window segfaulted inside QMainWindow() (2026-11-28, not yet explained; each half of tests/app
# before it passes). Users make one window per process: the test runs in a process of its own.
OWN_PROCESS = os.environ.get("LIVECAP_WINDOW_TEST_OWN_PROCESS") == "1"


@pytest.mark.needs_espeak
def test_the_window_in_a_process_of_its_own():
    import subprocess
    import sys

    test = f"{__file__}::test_the_window_live_and_after_stop"
    env = {**os.environ, "LIVECAP_WINDOW_TEST_OWN_PROCESS": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", test],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.mark.gui
@pytest.mark.needs_espeak
@pytest.mark.skipif(
    not OWN_PROCESS, reason="runs in its own process (test_the_window_in_a_process_of_its_own)"
)
def test_the_window_live_and_after_stop(qtbot, built, model_dir, configured, speech, tmp_path):
    from PySide6.QtCore import QSettings, QThreadPool

    from app import settings as keys
    from app.main_window.window import CaptionWindow
    from app.settings import AppSettings
    from app.workers.session_bridge import IDLE
    from engine.transcript.transcript import Transcript

    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    settings.set(keys.MARKS, "engine")  # the engine's marks on the default recognizer's words
    window = CaptionWindow(settings, model_dir=model_dir, journal_dir=tmp_path / "journal")
    window.realtime, window.confirm_on_close = False, False
    qtbot.addWidget(window)
    window.show()
    window.sources.picker.add_file(str(speech))
    with qtbot.waitSignal(window.session_done, timeout=60000):  # the file played, the text after Stop shown
        window.toggle_start()
    assert window.bridge.state == IDLE and only(built, "stream") == configured
    # A session that ends as this one did settles every word, so the pass after Stop keeps them all
    # and decodes nothing. It fills the words that never settled (the punctuation failed mid-session,
    # say): then the offline decoder runs, on the same settings.
    final = window.text.final_transcript
    assert final.words and not any(k == "offline" for k, _ in built)
    unsettled = Transcript([replace(w, settled=False) for w in final.words])
    with qtbot.waitSignal(window.text.final_shown, timeout=60000):
        window.text.show_final(unsettled)
    window.bridge.wait(30000)
    QThreadPool.globalInstance().waitForDone(30000)
    assert only(built, "offline") == configured
