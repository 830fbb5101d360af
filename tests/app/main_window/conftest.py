"""Fixtures for the captions window's tests: a window on the real pipeline (espeak-ng speech,
PocketSphinx, the tiny ONNX model) with its data, settings and journal in the test's folder."""

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from app.settings import AppSettings
from app.workers.session_bridge import IDLE
from engine.files import paths
from tests.speech import write_speech_wav


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("window") / "speech.wav", repeats=1, gap=1.0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))  # journals, models: nothing real touched
    return tmp_path / "data"


@pytest.fixture
def settings(tmp_path):
    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def sources_controller(qtbot, settings):
    """A ``SourcesController`` on its own window, with the test's settings."""
    from PySide6.QtWidgets import QWidget

    from app.main_window.controls import BannerArea
    from app.main_window.sources_controller import SourcesController
    from app.workers.jobs import JobRunner

    window = QWidget()
    qtbot.addWidget(window)
    return SourcesController(settings, BannerArea(window), JobRunner(window), window)


@pytest.fixture
def make_window(qtbot, settings, data_dir, tiny_model_dir, tmp_path):
    from app.main_window.window import CaptionWindow

    def make(**kwargs):
        w = CaptionWindow(
            kwargs.pop("settings", settings),
            model_dir=tiny_model_dir,
            journal_dir=tmp_path / "journal",
            **kwargs,
        )
        w.realtime = False  # files as fast as they decode; tests that need a live session turn it on
        w.confirm_on_close = False
        qtbot.addWidget(w, before_close_func=finish)
        w.show()
        return w

    def finish(w):  # before pytest-qt closes the window: end its session as a user would
        if w.bridge.state != IDLE:
            w.bridge.stop()
            qtbot.waitUntil(lambda: w.bridge.state == IDLE, timeout=30000)
        w.bridge.wait(30000)
        QThreadPool.globalInstance().waitForDone(30000)

    return make


@pytest.fixture
def window(make_window):
    return make_window()
