import functools
import gc
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from engine.onnx_runtime import disable_telemetry

# First of all: ONNX Runtime's telemetry off, before any test module (``pytest.importorskip
# ("piper")``) imports onnxruntime, which would write a device id and a telemetry queue into
# ~/.cache/Microsoft. Nothing imported above imports it: the switch's module imports nothing heavy.
disable_telemetry()

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Ctrl-C as in a terminal, however pytest was started. A shell starts a background job (``cmd &``
# in a script) with SIGINT ignored, and Python then leaves it ignored: the Ctrl-C tests, which
# send SIGINT to this process or to a livecap they start (an ignored signal stays ignored across
# exec), would wait for a stop that never comes. Python's own handler here means a child starts
# with SIGINT at its default, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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


# The per-user folders a library finds from the environment: unset, each defaults inside HOME.
USER_FOLDERS_ENV = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")


@pytest.fixture(scope="session", autouse=True)
def _private_data_dir(tmp_path_factory):
    """livecap's data folder (models, caches, journals), HOME and the temporary folder in this
    run's temporary folder: a test that sets none of its own must not read or fill the user's
    ~/.local/share/livecap, their home (a library's cache, a settings file) or livecap's folders
    in the shared /tmp (another run's fallback journals, its control socket); and two xdist
    workers must not share one. ``_private_temp_dir`` then gives each test a temporary folder
    of its own; this one is for the fixtures that outlive a test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LIVECAP_DATA_DIR", str(tmp_path_factory.mktemp("livecap-data")))
        patch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
        for name in USER_FOLDERS_ENV:
            patch.delenv(name, raising=False)
        _use_temp_dir(patch, tmp_path_factory.mktemp("tmp"))
        yield


@pytest.fixture(autouse=True)
def _private_temp_dir(_private_data_dir, tmp_path_factory):
    """Each test's own temporary folder (``TMPDIR``, and ``tempfile``'s, which this process read
    once): nothing a test leaves in livecap's ``livecap-UID`` folder there reaches another test.
    Beside ``tmp_path``, not in it, so a test finds its ``tmp_path`` as empty as ever; pytest's
    own folders are unaffected (it chose their place before any test ran)."""
    with pytest.MonkeyPatch.context() as patch:
        _use_temp_dir(patch, tmp_path_factory.mktemp("tmp"))
        yield


def _use_temp_dir(patch: pytest.MonkeyPatch, folder: Path) -> None:
    patch.setenv("TMPDIR", str(folder))
    patch.setattr(tempfile, "tempdir", str(folder))


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
