"""``livecap``: the one console command. No arguments, or ``app``, opens the window; anything
else is the engine's command line, unchanged (``livecap --version``, ``livecap punctuate``...).

Qt is imported only on the GUI path (inside ``app.gui``), so the command-line tools keep
starting fast, work without a display, and the engine stays Qt-free.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    from engine import MARK_CHOICES, RECOGNIZER_CHOICES, Accuracy, CommandParser, add_model_options

    p = CommandParser(
        prog="livecap app",
        description="The live-captioning window (the default when livecap runs without a command).",
    )
    p.add_argument(
        "--play",
        type=Path,
        default=None,
        metavar="FILE",
        help="caption an audio file (WAV, FLAC, OGG) in real time, as if it were live",
    )
    p.add_argument("--overlay", action="store_true", help="show the caption overlay too")
    p.add_argument(
        "--exit-when-done", action="store_true", help="with --play: quit once the file is captioned"
    )
    p.add_argument(
        "--screenshot",
        type=Path,
        default=None,
        metavar="PATH",
        help="with --play: save a PNG of the window when done (and PATH-overlay.png with --overlay)",
    )
    add_model_options(p, threads=False)  # the window's sessions pick their own threads
    p.add_argument(
        "--recognizer",
        choices=RECOGNIZER_CHOICES,
        default=None,
        help="speech recognizer, kept as the setting (Settings → Recognition shows it)",
    )
    p.add_argument(
        "--marks",
        choices=MARK_CHOICES,
        default=None,
        help="whose punctuation: livecap's model (engine; with Whisper it weighs Whisper's as evidence) "
        "or Whisper's, written with its words (recognizer); kept as the setting",
    )
    p.add_argument(
        "--accuracy",
        choices=[a.value for a in Accuracy],
        default=None,
        help="which Whisper captions English (Settings → Recognition → Speed or accuracy); kept as the "
        "setting",
    )
    p.add_argument(
        "--settings",
        type=Path,
        default=None,
        metavar="INI",
        help="keep settings in this INI file instead of the per-user store",
    )
    p.add_argument(
        "--ui-report",
        type=Path,
        default=None,
        metavar="JSON",
        help="write start-up timings and how late the UI thread ran (event-loop stalls) to JSON on exit",
    )
    p.add_argument("--debug", action="store_true", help="log to stderr, with start-up timings")
    return p


# Platforms that need no display server; for other Qt platforms than these and the two below
# (eglfs, vnc, linuxfb...) the launcher cannot tell, and leaves it to Qt.
_HEADLESS_PLATFORMS = ("offscreen", "minimal")
_CHECKED_PLATFORMS = ("xcb", "wayland", "wayland-egl")
_CONNECT_TIMEOUT_S = 0.5


def no_display_reason() -> str | None:
    """Why no window can open here, or None. Without this check Qt aborts the process (exit 134,
    a core dump) with advice about missing libraries, for what is only a display that is gone.
    Checked by connecting to the display's socket, without importing Qt."""
    if not sys.platform.startswith("linux"):
        return None
    wanted = [name.split(":")[0].strip() for name in os.environ.get("QT_QPA_PLATFORM", "").split(";")]
    wanted = [name for name in wanted if name]
    if any(name not in _CHECKED_PLATFORMS for name in wanted):
        return None  # offscreen/minimal need no display; others the launcher cannot judge
    check_x = not wanted or "xcb" in wanted
    check_wayland = not wanted or any(name.startswith("wayland") for name in wanted)
    display = os.environ.get("DISPLAY", "") if check_x else ""
    wayland = os.environ.get("WAYLAND_DISPLAY", "") if check_wayland else ""
    if not display and not wayland:
        return (
            "no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run livecap from a "
            "desktop session, or use `livecap listen` for captions in the terminal"
        )
    if (display and x_display_reachable(display)) or (wayland and wayland_reachable(wayland)):
        return None
    where = " or ".join(filter(None, [display, wayland and f"Wayland {wayland}"]))
    return f"no display reachable at {where} — use `livecap listen` for captions in the terminal"


def x_display_reachable(display: str, timeout: float = _CONNECT_TIMEOUT_S) -> bool:
    """Whether an X server accepts connections at ``display`` ("[host]:N[.screen]"): the local
    socket /tmp/.X11-unix/XN (and its abstract twin, which works where /tmp is private), or TCP
    port 6000+N for a host, as with ssh -X. Connecting is all: no X protocol is spoken."""
    host, sep, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not sep or not number.isdigit():
        return False  # not a display name Xlib would accept either
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        return _unix_connects("\0" + path, timeout) or _unix_connects(path, timeout)
    try:
        with socket.create_connection((host, 6000 + int(number)), timeout=timeout):
            return True
    except OSError:
        return False


def wayland_reachable(name: str, timeout: float = _CONNECT_TIMEOUT_S) -> bool:
    """Whether a Wayland compositor listens at ``name`` (a path, or a socket in XDG_RUNTIME_DIR).
    A socket file is left behind when the compositor dies, so its existence is not enough."""
    if os.path.isabs(name):
        return _unix_connects(name, timeout)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return bool(runtime) and _unix_connects(os.path.join(runtime, name), timeout)


def _unix_connects(address: str, timeout: float) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(address)
        except OSError:
            return False
        return True


def run_app(argv: list[str], started: float) -> int:
    args = build_parser().parse_args(argv)
    if (args.exit_when_done or args.screenshot) and args.play is None:
        print("livecap: --exit-when-done and --screenshot need --play FILE", file=sys.stderr)
        return 2
    if args.play is not None and not args.play.is_file():
        print(f"livecap: {args.play}: no such file", file=sys.stderr)
        return 2
    reason = no_display_reason()
    if reason:
        print(f"livecap: {reason}", file=sys.stderr)
        return 1
    from app.gui import run

    return run(args, started)


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    from engine import disable_telemetry

    disable_telemetry()  # first: neither the window nor a command may let onnxruntime phone home
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] == "app":
        return run_app(argv[1:], started)
    from engine import run_cli as cli_main

    return cli_main(
        argv, extra_commands=[("app", "the live-captioning window (the default with no command)")]
    )


if __name__ == "__main__":
    sys.exit(main())
