"""``livecap punctuate`` on a long text: sentences are written as they settle,
a progress bar runs on stderr only when it is a terminal, and Ctrl-C keeps what is done."""

import os
import random
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.engine.cli.conftest import ROOT, read_terminal

VOCAB = (
    "the a of and to in is it you that he was for on are with as i his they be at one have this from or "
    "had by word but what some we can out other were all there when up use your how said an each she which"
).split()


def long_text(n: int) -> str:
    rng = random.Random(8)
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def command(model_dir, mode, *extra):
    return [
        sys.executable,
        "-m",
        "engine.cli.main",
        "punctuate",
        "--model-dir",
        str(model_dir),
        "--mode",
        mode,
        *extra,
    ]


def run_env():
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.mark.parametrize("mode", ["stream", "offline"])
def test_ctrl_c_keeps_and_flushes_what_is_done(tiny_model_dir, tmp_path, mode):
    text = long_text(150_000)  # minutes of work for the stream decoder on the tiny model
    src = tmp_path / "long.txt"
    src.write_text(text)
    proc = subprocess.Popen(
        command(tiny_model_dir, mode, str(src)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=run_env(),
        cwd=ROOT,
    )
    try:
        # Sentences arrive while it works: wait for the first, then a little more, then Ctrl-C.
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "nothing was written within a minute"
        first = os.read(proc.stdout.fileno(), 1 << 16)
        time.sleep(0.5)
        assert proc.poll() is None, "finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    out = (first + rest).decode()
    assert proc.returncode == 130, err
    assert "interrupted" in err.decode() and "Traceback" not in err.decode()
    tokens = out.split()
    assert out.endswith("\n") and 0 < len(tokens) < 150_000
    # A prefix of the full result: the marks of the first words depend only on a few words after
    # them, so punctuating a little more than what was written gives the full result's beginning.
    prefix = " ".join(text.split()[: len(tokens) + 64])
    full = subprocess.run(
        command(tiny_model_dir, mode), input=prefix, capture_output=True, text=True, env=run_env(), cwd=ROOT
    )
    assert full.returncode == 0, full.stderr
    assert tokens == full.stdout.split()[: len(tokens)]


def run_with_stderr(tiny_model_dir, stderr_fd, text):
    return subprocess.run(
        command(tiny_model_dir, "offline"),
        input=text.encode(),
        stdout=subprocess.PIPE,
        stderr=stderr_fd,
        env=run_env(),
        cwd=ROOT,
        timeout=120,
    )


def test_a_progress_bar_on_a_terminal_and_none_otherwise(tiny_model_dir):
    text = long_text(3000)
    master, slave = os.openpty()
    try:
        r = run_with_stderr(tiny_model_dir, slave, text)
    finally:
        os.close(slave)
    seen = read_terminal(master)
    assert r.returncode == 0
    assert b"\r" in seen and b"[####################] 100%" in seen and b"punctuating" in seen
    assert b" words/s" in seen and b" left)" in seen  # how fast, and how long is left
    assert len(r.stdout.split()) == 3000  # the bar went to the terminal, not into the text

    piped = run_with_stderr(tiny_model_dir, subprocess.PIPE, text)
    assert piped.returncode == 0 and piped.stderr == b""
    assert piped.stdout == r.stdout


def test_ctrl_c_while_a_sentence_is_being_written_never_writes_it_twice():
    import io

    from engine.cli.punctuate import SentenceWriter
    from engine.events import Settled
    from engine.words import Word

    class InterruptedMidWrite(io.StringIO):
        def write(self, text):
            n = super().write(text)
            if "two." in text:
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands while the sentence is written
            return n

    words = [Word(t) for t in "one two three".split()]
    out = InterruptedMidWrite()
    writer = SentenceWriter(words, "text", out)
    writer.add(Settled(0, "none", "capitalized", 1, "One"))
    with pytest.raises(KeyboardInterrupt):
        writer.add(Settled(1, "period", "lower", 1, "two"))
    writer.add(Settled(2, "none", "capitalized", 1, "Three"))
    writer.close()  # as cmd_punctuate does after the interrupt
    assert out.getvalue() == "One two. Three\n" and writer.written == 3
