"""Nothing leaves the computer, and nothing is left behind outside livecap's own folders.

``punctuate``, ``transcribe`` and the app's play mode run as a user runs them, each with a fresh,
empty ``HOME`` (no ``XDG_*`` variables, so every library picks its default folders inside it);
afterwards every file in that ``HOME`` must lie in a folder ``engine/files/paths.py`` names.
ONNX Runtime used to leave ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid``
and a telemetry queue there on every run.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.onnx_runtime import TELEMETRY_ENV, disable_telemetry, import_onnxruntime
from tests.speech import write_speech_wav

ROOT = Path(__file__).resolve().parents[1]


def fresh_home_env(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "tmp").mkdir()
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "TMPDIR": str(tmp_path / "tmp"),
        "LANG": "C.UTF-8",
        "PULSE_SERVER": f"unix:{tmp_path}/no-such-pulse-socket",  # no sound server, none autospawned
    }


def own_dirs(env: dict) -> list[Path]:
    """livecap's folders as paths.own_dirs() computes them in the child's environment."""
    code = "from engine.files import paths\nfor d in paths.own_dirs(): print(d)"
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [Path(line) for line in r.stdout.splitlines()]


def run(env: dict, *args, timeout=180) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [sys.executable, *map(str, args)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def strays(env: dict) -> list[str]:
    """Files in the fresh HOME (and TMPDIR) outside livecap's own folders."""
    allowed = own_dirs(env)
    found = []
    for root in (Path(env["HOME"]), Path(env["TMPDIR"])):
        for path in root.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                continue
            if not any(path.is_relative_to(d) for d in allowed):
                found.append(str(path.relative_to(root.parent)))
    return sorted(found)


def test_punctuate_writes_nothing_outside_livecaps_folders(tmp_path):
    env = fresh_home_env(tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("so what do you think i am not sure\n")
    r = run(env, "-m", "engine.cli", "punctuate", text)
    assert r.stdout.strip()
    assert strays(env) == []


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_transcribe_writes_nothing_outside_livecaps_folders(tmp_path):
    wav = write_speech_wav(tmp_path / "talk.wav", repeats=1)
    env = fresh_home_env(tmp_path)
    run(env, "-m", "engine.cli", "transcribe", wav, "-o", tmp_path / "talk-out.txt")
    assert (tmp_path / "talk-out.txt").read_text().strip()
    assert not (Path(env["HOME"]) / ".cache" / "huggingface").exists()
    assert strays(env) == []


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_whisper_session_writes_nothing_outside_livecaps_folders(tmp_path):
    """Whisper loads by path: no hub look-up, nothing under ~/.cache/huggingface."""
    wav = write_speech_wav(tmp_path / "talk.wav", repeats=1)
    env = fresh_home_env(tmp_path)
    r = run(env, "-m", "engine.cli", "listen", "--source", wav, "--recognizer", "whisper")
    assert "park" in r.stdout.lower()
    assert any(Path(env["HOME"]).rglob("session-*.jsonl"))  # it did write: its journal
    assert not (Path(env["HOME"]) / ".cache" / "huggingface").exists()
    assert strays(env) == []


@pytest.mark.slow
@pytest.mark.gui
@pytest.mark.needs_espeak
def test_the_apps_play_mode_writes_nothing_outside_livecaps_folders(tmp_path):
    wav = write_speech_wav(tmp_path / "talk.wav", repeats=1, gap=1.0)
    env = {**fresh_home_env(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    run(env, "-m", "app.launcher", "app", "--play", wav, "--exit-when-done", timeout=240)
    # It did write: its settings and the session's journal, both in livecap's folders.
    assert any(Path(env["HOME"]).rglob("session-*.jsonl"))
    assert strays(env) == []


def test_the_switch_is_the_runtimes_own_opt_out(tmp_path, monkeypatch):
    """In-process: ``import_onnxruntime`` leaves the variable set (children inherit it), and a
    user's ``ORT_DISABLE_TELEMETRY=0`` does not turn telemetry back on."""
    monkeypatch.setenv(TELEMETRY_ENV, "0")
    disable_telemetry()
    assert os.environ[TELEMETRY_ENV] == "1"
    assert import_onnxruntime().__name__ == "onnxruntime"
