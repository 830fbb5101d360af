"""``livecap``: the one console command. No arguments, or ``app``, opens the window; anything
else is the engine's command line, unchanged (``livecap --version``, ``livecap punctuate``...).

Qt is imported only on the GUI path (inside ``app.gui``), so the command-line tools keep
starting fast, work without a display, and the engine stays Qt-free.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    from engine.cli.main import _Parser

    p = _Parser(
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
    p.add_argument(
        "--model-dir", type=Path, default=None, help="punctuation model folder (default: the shipped one)"
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


def no_display_reason() -> str | None:
    """Why no window can open here, or None. Qt would abort the process with a core dump."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run livecap from a desktop "
        "session, or use `livecap listen` for captions in the terminal"
    )


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
        return 2
    from app.gui import run

    return run(args, started)


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] == "app":
        return run_app(argv[1:], started)
    from engine.cli.main import main as cli_main

    return cli_main(
        argv, extra_commands=[("app", "the live-captioning window (the default with no command)")]
    )


if __name__ == "__main__":
    sys.exit(main())
