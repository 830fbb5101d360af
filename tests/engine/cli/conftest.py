"""What the CLI tests share."""

import os
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
