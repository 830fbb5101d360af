"""The launcher's display check: a stale DISPLAY gets one line and exit 1 before
Qt starts, instead of Qt's abort (exit 134) with advice about libraries. Real sockets throughout: a
real Xvfb, a real listening Unix socket for Wayland, a real TCP listener for a remote X display."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app import launcher

ROOT = Path(__file__).resolve().parents[2]


def unused_display() -> str:
    """A display number no X server uses (other test runs may hold :99 with xvfb-run -a)."""
    for number in range(900, 1000):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not launcher.x_display_reachable(f":{number}"):
            return f":{number}"
    pytest.skip("no unused X display number in 900-999")


@pytest.fixture
def display_env(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_stale_display_gives_one_line_and_exit_1_before_qt(tmp_path):
    display = unused_display()
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(DISPLAY=display, PYTHONPATH=str(ROOT), LIVECAP_DATA_DIR=str(tmp_path / "data"))
    r = subprocess.run(
        [sys.executable, "-m", "app.launcher"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"livecap: no display reachable at {display} — use `livecap listen` for captions in the terminal"
    ]


def test_a_real_x_server_passes_and_a_killed_one_does_not(display_env, xvfb):
    display, server = xvfb
    display_env.setenv("DISPLAY", display)
    assert launcher.x_display_reachable(display) and launcher.x_display_reachable(f"unix{display}.0")
    assert launcher.no_display_reason() is None
    display_env.setenv("QT_QPA_PLATFORM", "xcb")
    assert launcher.no_display_reason() is None
    server.send_signal(signal.SIGKILL)  # as a crashed X server: its socket file stays behind
    server.wait(10)
    assert not launcher.x_display_reachable(display)
    assert f"no display reachable at {display}" in launcher.no_display_reason()


def test_wayland_needs_a_listening_compositor_socket(display_env, tmp_path):
    display_env.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    display_env.setenv("WAYLAND_DISPLAY", "wayland-7")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stale:
        stale.bind(str(tmp_path / "wayland-7"))  # the file a dead compositor leaves, no listener
    assert not launcher.wayland_reachable("wayland-7")
    assert "no display reachable at Wayland wayland-7" in launcher.no_display_reason()
    (tmp_path / "wayland-7").unlink()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as compositor:
        compositor.bind(str(tmp_path / "wayland-7"))
        compositor.listen(8)
        assert launcher.wayland_reachable("wayland-7") and launcher.no_display_reason() is None
        assert launcher.wayland_reachable(str(tmp_path / "wayland-7"))  # an absolute WAYLAND_DISPLAY


def test_a_remote_x_display_is_checked_over_tcp(display_env):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        if port <= 6000:
            pytest.skip(f"the kernel gave port {port}, below X's 6000")
        assert launcher.x_display_reachable(f"127.0.0.1:{port - 6000}")
    assert not launcher.x_display_reachable(f"127.0.0.1:{port - 6000}", timeout=0.2)


def test_headless_platforms_and_other_systems_need_no_display(display_env):
    display_env.setenv("DISPLAY", unused_display())
    for platform in ("offscreen", "minimal", "vnc:size=800x600"):
        display_env.setenv("QT_QPA_PLATFORM", platform)
        assert launcher.no_display_reason() is None
    display_env.delenv("QT_QPA_PLATFORM")
    assert launcher.no_display_reason() is not None
    display_env.setattr(sys, "platform", "darwin")
    assert launcher.no_display_reason() is None
    assert not launcher.x_display_reachable("not-a-display")
