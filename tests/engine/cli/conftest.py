"""What the CLI tests share."""

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def env(tmp_path):
    # Own data folder (no real models, journals or downloads touched); no sound server to reach,
    # and none autospawned.
    return {
        **os.environ,
        "LIVECAP_DATA_DIR": str(tmp_path / "data"),
        "PULSE_SERVER": f"unix:{tmp_path}/no-such-pulse-socket",
        "PYTHONPATH": str(ROOT),
    }


def livecap(env, *args, timeout=180):
    """Run the real command line in a child process, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def livecap_process(env, *args) -> subprocess.Popen:
    """The real command line running in a child process, for tests that interrupt or talk to it."""
    return subprocess.Popen(
        [sys.executable, "-m", "engine.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def read_terminal(master: int) -> bytes:
    """Everything written to a pseudo-terminal whose other end is closed (then closes ``master``)."""
    seen = b""
    try:
        while select.select([master], [], [], 0.5)[0]:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # the terminal's other end is closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    return seen
