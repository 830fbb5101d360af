"""The test suite keeps to its own folders: nothing it imports or runs writes into the user's home
(ONNX Runtime's telemetry), no test finds another run's files in the shared temporary folder,
and its Ctrl-C tests work however pytest was started (issue 62)."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine.files import paths

ROOT = Path(__file__).resolve().parents[1]

# What the suite does when it starts (tests/conftest.py first), then what its modules import:
# ``import engine``, ``pytest.importorskip("piper")`` (piper imports onnxruntime itself) and an
# ONNX Runtime session on the shipped punctuation model.
SUITE_IMPORTS = """
import importlib.util
import tests.conftest
import engine
import onnxruntime
if importlib.util.find_spec("piper") is not None:
    import piper
from engine.punctuation.model import ModelConfig, model_folder
folder = model_folder(None)
onnxruntime.InferenceSession(str(folder / ModelConfig.load(folder).model_file))
print("ran")
"""


def fresh_user(tmp_path: Path) -> dict:
    """A user with an empty HOME, its XDG folders inside it, and livecap's data folder there too;
    only what a process needs to run is taken from this one's environment."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "tmp").mkdir()
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": str(tmp_path / "tmp"),
        "LIVECAP_DATA_DIR": str(home / "livecap-data"),
    }


def written_outside(root: Path, allowed: Path) -> list[str]:
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            if not path.is_relative_to(allowed):
                found.append(str(path.relative_to(root)))
    return sorted(found)


def test_what_the_suite_imports_writes_nothing_into_home_but_the_data_folder(tmp_path):
    """Without the switch at the top of tests/conftest.py, ``import onnxruntime`` (here, and in
    ``pytest.importorskip("piper")``) leaves ~/.cache/Microsoft/DeveloperTools/.onnxruntime/
    deviceid and a telemetry queue in the real home on every run."""
    env = fresh_user(tmp_path)
    r = subprocess.run(
        [sys.executable, "-c", SUITE_IMPORTS],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0 and r.stdout.strip() == "ran", r.stderr[-3000:]
    assert written_outside(Path(env["HOME"]), Path(env["LIVECAP_DATA_DIR"])) == []


def test_each_test_has_a_home_and_temporary_folder_of_its_own(tmp_path):
    """Not the user's: a library's cache, and livecap's ``livecap-UID`` folder in the temporary
    folder (another run's fallback journals, a control socket) stay in this run's folder."""
    run_folder = tmp_path.parent  # pytest's folder for this run (or this xdist worker)
    assert Path(tempfile.gettempdir()).parent == run_folder == Path(os.environ["TMPDIR"]).parent
    assert paths.temp_user_dir().is_relative_to(run_folder)
    assert Path.home().parent == run_folder and paths.data_dir().is_relative_to(run_folder)
    assert not any(os.environ.get(name) for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"))
    assert not list(tmp_path.iterdir())  # beside tmp_path, which is as empty as ever


_TEMP_DIRS = pytest.StashKey[list]()


@pytest.mark.parametrize("run", [1, 2])
def test_no_two_tests_share_a_temporary_folder(run, request):
    seen = request.config.stash.setdefault(_TEMP_DIRS, [])
    assert tempfile.gettempdir() not in seen
    seen.append(tempfile.gettempdir())


def test_ctrl_c_reaches_the_tests_when_pytest_starts_with_it_ignored(tmp_path):
    """``cmd &`` in a script (or nohup) starts pytest with SIGINT ignored, and an ignored signal
    stays ignored in every process it starts: the Ctrl-C tests, in this process and in a livecap
    they start, then waited for a stop that never came. Here pytest runs one test that checks
    both, in a process started that way."""
    ignored_then_exec = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    node = f"{Path(__file__).relative_to(ROOT)}::test_ctrl_c_as_in_a_terminal"
    r = subprocess.run(
        [sys.executable, "-c", ignored_then_exec, "-m", "pytest", "-p", "no:cacheprovider", node,
         "--basetemp", str(tmp_path / "run")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


def test_ctrl_c_as_in_a_terminal():
    """Run by the test above, in a pytest started with SIGINT ignored (and alone, where it passes
    too): Ctrl-C interrupts this process, and a child starts with SIGINT at its default."""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    r = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert r.stdout.strip() == "False"
