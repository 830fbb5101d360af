"""The typing target shared by the dictation tests: a real X11 text field under Xvfb."""

from __future__ import annotations

import shutil

import pytest

from engine.evaluation.text_field import TextField


@pytest.fixture
def target(xvfb, tmp_path, monkeypatch):
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
