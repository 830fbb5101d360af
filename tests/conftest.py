import functools
import gc
import os
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TRAIN_EXTRA = "needs the [train] extra: pip install torch==2.13.0 && pip install -e '.[train]'"


@functools.cache
def train_extra_missing() -> bool:
    try:
        import matplotlib  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return True
    return False


def _uses_qt(item) -> bool:
    return item.get_closest_marker("gui") is not None or bool({"qtbot", "qapp"} & set(item.fixturenames))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """No cyclic collection while a Qt test runs; one between tests, where no Qt call is on the
    stack. A widget held in a reference cycle (by a slot, a fixture's closure) is freed by the
    cyclic collector, which CPython runs wherever an allocation crosses its threshold: inside
    Qt's dispatch to that widget, in another widget's constructor, on a worker thread. Qt then
    touches freed memory and the run dies (SIGSEGV) in a later, unrelated test. The app does
    the same (``app.garbage_collection``)."""
    if not _uses_qt(item):
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if "PySide6.QtWidgets" in sys.modules:
            from PySide6.QtCore import QCoreApplication, QEvent

            if QCoreApplication.instance() is not None:
                # What pytest-qt closed with deleteLater: freed by Qt now, before the collector
                # reaches their wrappers.
                QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()
        if enabled:
            gc.enable()


def pytest_runtest_setup(item):
    # The README's test command installs no torch; these tests then skip, all with the same line.
    if item.get_closest_marker("train") and train_extra_missing():
        pytest.skip(TRAIN_EXTRA)


@pytest.fixture(scope="session", autouse=True)
def _private_data_dir(tmp_path_factory):
    """livecap's data folder (models, caches, journals) in this run's temporary folder: a test that
    sets no LIVECAP_DATA_DIR of its own must not read or fill the user's ~/.local/share/livecap,
    and two xdist workers must not share one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LIVECAP_DATA_DIR", str(tmp_path_factory.mktemp("livecap-data")))
        yield


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A real ONNX model with random weights that honours the model contract."""
    from engine.evaluation.synthetic_model import write_model_dir

    return write_model_dir(tmp_path_factory.mktemp("tiny_model"), lexicon={"iphone": "iPhone"})


@pytest.fixture(scope="session")
def tiny_model(tiny_model_dir):
    from engine.punctuation.model import PunctuationModel

    return PunctuationModel(tiny_model_dir)


@pytest.fixture
def xvfb():
    """A real X server on a display number it picks itself; yields (display, process)."""
    from engine.evaluation.text_field import start_xvfb

    try:
        display, server = start_xvfb("320x240x24")
    except RuntimeError as exc:
        pytest.skip(str(exc))
    try:
        yield display, server
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(10)


@pytest.fixture
def target(xvfb, tmp_path, monkeypatch):
    """A real X11 text field with the keyboard focus, in its own process on a fresh Xvfb; this
    process's DISPLAY points there, so dictation types into it."""
    from engine.evaluation.text_field import TextField

    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (apt-get install xdotool): it types on X11")
    display, _server = xvfb
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    field = TextField(display, tmp_path / "typed.json")
    try:
        yield field
    finally:
        if field.process.poll() is None:
            field.process.kill()
