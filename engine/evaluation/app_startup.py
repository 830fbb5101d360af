"""How long the captions window takes to be ready to caption, as a user starts it.

    python -m engine.evaluation.app_startup [--runs 5] [--file talk.wav] [--display :1] [--out result.json]

Each run starts the real app in a process of its own, ``livecap app --play FILE --exit-when-done``
(through ``app.launcher``, as the ``livecap`` command does), with fresh data and settings folders,
on the current display (``DISPLAY`` or ``WAYLAND_DISPLAY``; ``--display`` chooses an X display),
else on an Xvfb of its own. The app reports its start-up itself (``--ui-report``): "window shown"
and "ready to caption" (the models are loaded: Start would caption at once), in seconds from the
launcher's first line, so the interpreter's own start is not in them. Runs are one after another,
never side by side: they would slow each other down.

Prints JSON: each run's times with their median, min and max, the recognizer the app loaded,
and the CPU. The engine does not import Qt: the app runs only as a subprocess. Timings belong
here, not in tests, which fail on a loaded machine for no fault of the code.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READY, SHOWN = "ready to caption", "window shown"
SPEECH = "the weather is nice today and we are going to the park"
RUN_TIMEOUT_S = 300  # a run that hangs is reported as failed, not waited for forever


def speech_file(folder: Path) -> Path:
    """A few seconds of espeak-ng speech: a run plays the file through before it exits."""
    if shutil.which("espeak-ng") is None:
        raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng); or pass --file")
    path = folder / "speech.wav"
    subprocess.run(["espeak-ng", "-w", str(path), "-v", "en-us", "-s", "130", SPEECH], check=True)
    return path


def one_run(audio: Path, env: dict[str, str], folder: Path) -> dict:
    """One start of the app: its reported start-up times, or why it failed."""
    folder.mkdir(parents=True)
    report = folder / "ui.json"
    command = [
        sys.executable,
        "-m",
        "app.launcher",
        "app",
        "--play",
        str(audio),
        "--exit-when-done",
        "--settings",
        str(folder / "settings.ini"),
        "--ui-report",
        str(report),
    ]
    run_env = {
        **env,
        "LIVECAP_DATA_DIR": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")])),
    }
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=run_env, cwd=ROOT, timeout=RUN_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": f"no exit within {RUN_TIMEOUT_S} s"}
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        data = {}
    times = data.get("start_up_s", {})
    if READY not in times:  # a run that got ready counts, whatever it later made of the file
        tail = done.stderr.strip().splitlines()[-3:]
        return {"error": f"never ready (exit {done.returncode}): " + " | ".join(tail)}
    return {
        "ready_s": times[READY],
        "shown_s": times.get(SHOWN),
        "recognizer": data.get("recognizer"),
        "exit": done.returncode,
    }


def summary(values: list[float]) -> dict:
    if not values:
        return {"median": None, "min": None, "max": None, "each": []}
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
        "each": [round(v, 3) for v in values],
    }


def measure(runs: int, audio: Path | None, env: dict[str, str], folder: Path) -> dict:
    played = str(audio) if audio is not None else f"espeak-ng: {SPEECH}"
    audio = audio.resolve() if audio is not None else speech_file(folder)
    results = [one_run(audio, env, folder / f"run-{i}") for i in range(runs)]
    good = [r for r in results if "error" not in r]
    return {
        "measures": "from launching `livecap app --play FILE --exit-when-done` to ready to caption",
        "runs": runs,
        "file": played,
        "ready_to_caption_s": summary([r["ready_s"] for r in good]),
        "window_shown_s": summary([r["shown_s"] for r in good if r["shown_s"] is not None]),
        "recognizer": next((r["recognizer"] for r in good), None),
        "exit_codes": [r["exit"] for r in good],  # 1: the file played, but no words were recognized
        "failures": [r["error"] for r in results if "error" in r],
    }


def display_env(display: str | None) -> tuple[dict[str, str], subprocess.Popen | None]:
    """The environment the app runs in, and the Xvfb started for it (None: a display was there)."""
    env = dict(os.environ)
    if display is not None:
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb")
        env.pop("WAYLAND_DISPLAY", None)
        return env, None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM") == "offscreen":
        return env, None
    from engine.evaluation.text_field import start_xvfb

    number, server = start_xvfb("1280x800x24")
    env.update(DISPLAY=number, QT_QPA_PLATFORM="xcb")
    return env, server


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.evaluation.app_startup", description=__doc__)
    p.add_argument("--runs", type=int, default=5, help="starts of the app, one after another (default 5)")
    p.add_argument("--file", type=Path, default=None, help="audio to play (default: a short espeak-ng clip)")
    p.add_argument(
        "--display", default=None, help="X display to run on (default: the current one, else Xvfb)"
    )
    p.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be at least 1")
    env, server = display_env(args.display)
    try:
        with tempfile.TemporaryDirectory(prefix="livecap-app-startup-") as folder:
            result = measure(args.runs, args.file, env, Path(folder))
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    from engine.machine import cpu_description

    result["display"] = env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM")
    result.update(cpu_description())
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
