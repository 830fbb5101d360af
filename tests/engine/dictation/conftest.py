"""The typing target shared by the dictation tests: a real X11 text field under Xvfb."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TARGET = Path(__file__).with_name("text_target.py")


class TextTarget:
    """The Tk text field, focused, in its own process on the test's X display."""

    def __init__(self, display: str, out: Path):
        self.out = out
        env = {"DISPLAY": display, "PATH": "/usr/bin:/bin"}
        self.process = subprocess.Popen(
            [sys.executable, str(TARGET), str(out)], stdout=subprocess.PIPE, text=True, env=env
        )
        self.window = self.process.stdout.readline().strip()  # printed once it has the focus
        assert self.window, "the text field did not start"
        # The X server may apply the focus a moment later: typing must not start before.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            focus = subprocess.run(["xdotool", "getwindowfocus"], capture_output=True, text=True, env=env)
            if focus.returncode == 0 and focus.stdout.strip():
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the text field never got the keyboard focus")

    def finish(self) -> str:
        self.process.terminate()
        self.process.wait(20)
        return json.loads(self.out.read_text(encoding="utf-8"))["text"]

    def text_now(self) -> str:
        """What the field holds now, from its change log."""
        changes = self.changes()
        return changes[-1]["text"] if changes else ""

    def changes(self) -> list[dict]:
        log = self.out.with_name(self.out.name + ".log")
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def target(xvfb, tmp_path, monkeypatch):
    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (apt-get install xdotool): it types on X11")
    display, _server = xvfb
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    field = TextTarget(display, tmp_path / "typed.json")
    try:
        yield field
    finally:
        if field.process.poll() is None:
            field.process.kill()
