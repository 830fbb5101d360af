"""A regular install, as users make it: build the wheel, install it (no ``-e``) into a fresh
virtual environment, and use livecap from there, never from this checkout.

An editable install and the frozen build both hide a package missing from the wheel (once,
``engine.dictation``: the window and ``livecap dictate`` could not start). The fresh environment
reuses this one's dependencies through a path file, so nothing is downloaded but the build
backend, and Python's own ``.pth`` processing is not applied to them: this checkout's editable
hook stays out.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow]


def checkout_modules() -> list[str]:
    names = []
    for package in ("app", "engine"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue  # runs its command when imported; `livecap` itself is run below
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The fresh environment's folder, with livecap's wheel installed in it."""
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools keeps a build/ folder where it builds, and a stale one in the
    # checkout could hand the wheel a module that no longer exists.
    source = work / "source"
    skip = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "runs")
    shutil.copytree(ROOT, source, ignore=skip)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (work / "dist").glob("livecap-*.whl")
    env_dir = work / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(subprocess.check_output([python, "-c", where], text=True).strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "livecap-test-dependencies.pth").write_text("".join(p + "\n" for p in sorted(ours)))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return env_dir


def run(env_dir: Path, tmp_path: Path, *args, stdin: str | None = None, timeout: float = 180):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LIVECAP_PUNCT_MODEL")}
    env.update(QT_QPA_PLATFORM="offscreen", LIVECAP_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run(
        [str(a) for a in args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=tmp_path,
    )


def test_every_module_imports_from_the_installed_wheel(installed, tmp_path):
    script = (
        "import importlib, sys\n"
        "prefix, bad = sys.prefix, []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        module = importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "        continue\n"
        "    if not (module.__file__ or '').startswith(prefix):\n"
        "        bad.append(f'{name}: imported from {module.__file__}, not from the install')\n"
        "print('\\n'.join(bad))\n"
    )
    names = checkout_modules()
    assert "engine.dictation.sink" in names and "app.main_window.window" in names
    r = run(installed, tmp_path, installed / "bin" / "python", "-c", script, *names)
    assert r.returncode == 0 and r.stdout.strip() == "", r.stdout + r.stderr[-2000:]


def test_the_installed_command_helps_punctuates_and_opens_the_window(installed, tmp_path):
    livecap = installed / "bin" / "livecap"
    for args in (["--help"], ["dictate", "--help"]):
        r = run(installed, tmp_path, livecap, *args)
        assert r.returncode == 0 and "usage:" in r.stdout, r.stderr[-2000:]
    r = run(
        installed,
        tmp_path,
        livecap,
        "punctuate",
        stdin="so what do you think about the plan i think it works",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout[:1].isupper() and r.stdout.rstrip()[-1] in ".?", r.stdout

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LIVECAP_PUNCT_MODEL")}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        LIVECAP_DATA_DIR=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        PULSE_SERVER=f"unix:{tmp_path}/no-such-pulse-socket",
    )
    (tmp_path / "run").mkdir(mode=0o700)
    report = tmp_path / "ui.json"
    app = subprocess.Popen(
        [str(livecap), "app", "--debug", "--ui-report", str(report)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    seen, deadline = "", time.monotonic() + 120
    try:
        while "start-up: window shown" not in seen and time.monotonic() < deadline and app.poll() is None:
            if select.select([app.stderr], [], [], 1.0)[0]:
                seen += app.stderr.readline()
        assert "start-up: window shown" in seen, seen[-3000:]
        time.sleep(1.0)  # the window runs for a second
        assert app.poll() is None, seen[-3000:]
        app.send_signal(signal.SIGTERM)  # closes it as its close button does
        _, rest = app.communicate(timeout=60)
    finally:
        app.kill()
    assert app.returncode == 0 and "Traceback" not in seen + rest, (seen + rest)[-3000:]
    assert report.is_file()  # written on the way out: a clean exit
