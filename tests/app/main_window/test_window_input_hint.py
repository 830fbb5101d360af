"""The captions window shows the engine's input hint in a quiet line under the captions, and
hides it when the hint clears: offscreen, and in a real X server under Xvfb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import InputHint

pytestmark = [pytest.mark.gui]

ROOT = Path(__file__).resolve().parents[3]
CLIPPING = "The input is clipping: lower the microphone's level"


def test_the_window_shows_an_input_hint_and_hides_it_when_it_clears(window, qtbot):
    assert window.input_hint.isHidden()
    window.bridge.captions_changed.emit([InputHint("clipping", CLIPPING)], None)  # as the bridge flushes
    assert window.input_hint.isVisible() and window.input_hint.text() == CLIPPING
    window.bridge.captions_changed.emit([InputHint(None, "")], None)
    assert window.input_hint.isHidden()


# Run in a child process: this process's Qt runs offscreen, and a QApplication picks its platform once.
SHOW_AND_CLEAR = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.main_window.window import CaptionWindow
from app.settings import AppSettings
from engine import InputHint
folder = Path(sys.argv[1])
settings = AppSettings(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
window = CaptionWindow(settings, model_dir=Path(sys.argv[2]), journal_dir=folder / "journal")
window.confirm_on_close = False
window.show()
app.processEvents()
seen = {"platform": app.platformName(), "before": window.input_hint.isVisible()}
window.bridge.captions_changed.emit([InputHint("clipping", sys.argv[3])], None)
app.processEvents()
seen.update(shown=window.input_hint.isVisible(), text=window.input_hint.text(),
            height=window.input_hint.height())
window.bridge.captions_changed.emit([InputHint(None, "")], None)
app.processEvents()
seen["after"] = window.input_hint.isVisible()
window.bridge.wait(30000)
print(json.dumps(seen))
"""


def test_under_a_real_x_server_the_hint_shows_and_clears(xvfb, tmp_path, tiny_model_dir):
    display, _server = xvfb
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env.update(LIVECAP_DATA_DIR=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    env["PULSE_SERVER"] = f"unix:{tmp_path}/no-such-pulse-socket"
    r = subprocess.run(
        [sys.executable, "-c", SHOW_AND_CLEAR, str(tmp_path), str(tiny_model_dir), CLIPPING],
        capture_output=True, text=True, timeout=120, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    if r.returncode != 0 and "xcb" in r.stderr and "plugin" in r.stderr:
        pytest.skip(f"Qt's xcb platform plugin cannot start under Xvfb: {r.stderr.strip()[-300:]}")
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen["platform"] == "xcb"
    assert not seen["before"] and seen["shown"] and seen["text"] == CLIPPING and seen["height"] > 0
    assert not seen["after"]
