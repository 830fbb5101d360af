"""``livecap dictate`` as a user runs it: a real process typing into a real X11 field under Xvfb,
paused, resumed and ended from a second ``livecap dictate`` through the control socket."""

from __future__ import annotations

import os
import signal
import stat
import time

import pytest

from engine.dictation.control import ControlServer, ControlUnavailable, send_command
from tests.engine.cli.conftest import ROOT, livecap, livecap_process
from tests.speech import write_speech_wav


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def start_dictating(tmp_path, model_dir):
    """``livecap dictate`` on a spoken file played in real time, with its own runtime and data folders."""
    speech = write_speech_wav(tmp_path / "speech.wav", repeats=4, gap=1.5)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "LIVECAP_DATA_DIR": str(tmp_path / "data"),
    }
    (tmp_path / "run").mkdir(mode=0o700)
    args = ("--source", speech, "--realtime", "--recognizer", "pocketsphinx", "--model-dir", model_dir)
    return env, livecap_process(env, "dictate", *args)


@pytest.mark.needs_espeak
@pytest.mark.slow
def test_toggle_pauses_and_resumes_a_running_dictation_and_stop_ends_it(target, tmp_path, tiny_model_dir):
    env, dictate = start_dictating(tmp_path, tiny_model_dir)
    try:
        socket_path = tmp_path / "run" / "livecap" / "control.sock"
        wait_for(socket_path.exists, 30, "the control socket")
        assert stat.S_IMODE(socket_path.stat().st_mode) == 0o600
        assert stat.S_IMODE(socket_path.parent.stat().st_mode) == 0o700
        assert livecap(env, "dictate", "--status", timeout=30).stderr.strip() == "livecap: dictating"

        first = wait_for(lambda: target.text_now(), 40, "the first typed words")
        paused = livecap(env, "dictate", "--toggle")
        assert paused.returncode == 0 and paused.stderr.strip() == "livecap: paused"
        at_pause = target.text_now()
        time.sleep(6)  # the file goes on: an utterance or more is heard, and none of it typed
        assert target.text_now() == at_pause and at_pause.startswith(first)

        resumed = livecap(env, "dictate", "--toggle")
        assert resumed.stderr.strip() == "livecap: dictating"
        wait_for(lambda: len(target.text_now()) > len(at_pause), 30, "typing to resume")
        stopped = livecap(env, "dictate", "--stop")
        assert stopped.stderr.strip() == "livecap: stopping"
        _, err = dictate.communicate(timeout=60)
    finally:
        dictate.kill()
    assert dictate.returncode == 0, err
    assert "dictating from" in err and "X11 (xdotool)" in err and "Traceback" not in err
    final = target.finish()
    assert final.startswith(at_pause) and len(final) > len(at_pause)
    # Resumed where it paused: separated by a space, never glued to the word before the pause.
    assert final[len(at_pause)] == " " and not at_pause[-1].isspace(), (at_pause, final)
    assert not socket_path.exists()  # the socket goes with the process
    r = livecap(env, "dictate", "--toggle")
    assert r.returncode != 0 and "no running livecap is listening" in r.stderr


@pytest.mark.needs_espeak
@pytest.mark.slow
def test_ctrl_c_ends_dictation_and_nothing_more_is_typed(target, tmp_path, tiny_model_dir):
    env, dictate = start_dictating(tmp_path, tiny_model_dir)
    try:
        first = wait_for(lambda: target.text_now(), 40, "the first typed words")
        dictate.send_signal(signal.SIGINT)  # what Ctrl-C in its terminal sends
        _, err = dictate.communicate(timeout=60)
    finally:
        dictate.kill()
    assert dictate.returncode == 0, err
    assert "dictation ended" in err and "Traceback" not in err
    at_exit = target.text_now()
    time.sleep(3)  # the file had more speech: none of it may arrive now
    final = target.finish()
    assert final == at_exit and final.startswith(first)
    assert not (tmp_path / "run" / "livecap" / "control.sock").exists()


def test_status_with_nothing_running_answers_not_running_and_exits_0(tmp_path):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_RUNTIME_DIR": str(run)}
    r = livecap(env, "dictate", "--status")
    assert r.returncode == 0 and r.stderr == "livecap: not running\n"
    r = livecap(env, "dictate", "--toggle")  # toggling nothing is still an error, with a way out
    assert r.returncode != 0 and "no running livecap is listening" in r.stderr


def test_dictate_without_a_desktop_is_refused_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env.update(PYTHONPATH=str(ROOT), LIVECAP_DATA_DIR=str(tmp_path / "data"))
    r = livecap(env, "dictate")
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "livecap listen" in r.stderr
    assert not (tmp_path / "data").exists()  # refused before any session or journal


def test_unknown_spoken_commands_are_refused(tmp_path, xvfb):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISPLAY": xvfb[0], "LIVECAP_DATA_DIR": str(tmp_path)}
    env.pop("WAYLAND_DISPLAY", None)
    r = livecap(env, "dictate", "--commands", "new-line,delete-all")
    if "xdotool" in r.stderr and "install" in r.stderr:
        pytest.skip("xdotool is not installed (apt-get install xdotool)")
    assert r.returncode != 0 and "unknown spoken command 'delete-all'" in r.stderr


def test_the_control_socket_answers_its_owner_and_replaces_a_stale_one(tmp_path):
    path = tmp_path / "run" / "livecap" / "control.sock"
    calls = []
    server = ControlServer({"toggle": lambda: calls.append("t") or "paused"}, path).start()
    try:
        assert send_command("toggle", path) == "paused" and calls == ["t"]
        assert "unknown command" in send_command("explode", path)
        with pytest.raises(ControlUnavailable, match="already listening"):
            ControlServer({}, path).start()
    finally:
        server.stop()
    assert not path.exists()
    path.write_bytes(b"")  # left behind by a livecap that crashed
    server = ControlServer({"status": lambda: "dictating"}, path).start()
    try:
        assert send_command("status", path) == "dictating"
    finally:
        server.stop()


def _loaded(pid: int, library: str) -> bool:
    """Whether the process has mapped ``library`` (it is that far into its start-up)."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            return library in maps.read()
    except OSError:
        return False


@pytest.mark.needs_espeak
def test_ctrl_c_while_dictate_starts_is_a_stop_asked_for_and_exits_0(xvfb, tmp_path, tiny_model_dir):
    """Ctrl-C is how a user stops dictating, whenever it comes: here while the models load (in
    the middle of ONNX Runtime's own start-up, where an interrupt used to end in a traceback)."""
    import shutil

    if shutil.which("xdotool") is None:
        pytest.skip("xdotool is not installed (apt-get install xdotool): it types on X11")
    if not os.path.exists(f"/proc/{os.getpid()}/maps"):
        pytest.skip("needs /proc to see how far the process has started")
    speech = write_speech_wav(tmp_path / "speech.wav", repeats=1)
    (tmp_path / "run").mkdir(mode=0o700)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DISPLAY": xvfb[0],
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "LIVECAP_DATA_DIR": str(tmp_path / "data"),
    }
    env.pop("WAYLAND_DISPLAY", None)
    args = ("--source", speech, "--recognizer", "pocketsphinx", "--model-dir", tiny_model_dir)
    dictate = livecap_process(env, "dictate", *args)
    try:
        # The punctuation model loads first (ONNX Runtime), the recognizer after it.
        wait_for(lambda: _loaded(dictate.pid, "onnxruntime") or dictate.poll() is not None, 60, "the models")
        dictate.send_signal(signal.SIGINT)
        _, err = dictate.communicate(timeout=60)
    finally:
        dictate.kill()
    assert dictate.returncode == 0, err
    assert "Traceback" not in err and "livecap: interrupted" not in err
    assert "stopped before dictation began" in err and "dictating from" not in err
    assert not (tmp_path / "run" / "livecap" / "control.sock").exists()
    assert not any((tmp_path / "data").glob("journal/*.jsonl"))  # no words: no journal left
