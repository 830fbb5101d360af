"""A real X11 text field in its own process: what dictation types into, in tests and in
``engine.evaluation.dictation_latency``.

    python -m engine.evaluation.text_field OUT.json

A Tk text widget takes the keyboard focus and records its content: on every change, a line
``{"t": <time.time()>, "text": ...}`` is appended to OUT.json.log, and on SIGTERM (or when the
window is closed) the final content is written to OUT.json atomically, then the process exits.
The window's X id is printed on stdout once it is mapped and focused, so a test knows when to
start typing and which window should hold the focus.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    import tkinter as tk  # only the field's own process needs Tk

    out = sys.argv[1]
    root = tk.Tk()
    root.title("livecap typing target")
    text = tk.Text(root, width=80, height=20)
    text.pack()
    log = open(out + ".log", "a", encoding="utf-8")
    last = [""]

    def content() -> str:
        return text.get("1.0", "end-1c")

    def record(_event=None) -> None:
        now = content()
        if now != last[0]:
            last[0] = now
            log.write(json.dumps({"t": time.time(), "text": now}, ensure_ascii=False) + "\n")
            log.flush()
        text.edit_modified(False)

    def finish(*_args) -> None:
        record()
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"text": content()}, f, ensure_ascii=False)
        os.replace(tmp, out)
        root.destroy()

    text.bind("<<Modified>>", record)
    root.protocol("WM_DELETE_WINDOW", finish)
    signal.signal(signal.SIGTERM, lambda *a: root.after(0, finish))

    def poll() -> None:
        root.after(50, poll)

    def announce() -> None:
        root.focus_force()
        text.focus_set()
        root.update()
        print(root.winfo_id(), flush=True)

    poll()
    root.after(200, announce)
    root.mainloop()
    return 0


def start_xvfb(size: str = "640x480x24") -> tuple[str, subprocess.Popen]:
    """A real X server on a display number it picks itself: (":N", its process)."""
    if shutil.which("Xvfb") is None:
        raise RuntimeError("Xvfb is not installed (apt-get install xvfb)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", size],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as chosen:
        number = chosen.readline().strip()  # written once the server accepts connections
    if not number:
        server.kill()
        raise RuntimeError("Xvfb did not start")
    return f":{number}", server


class TextField:
    """Starts the field in its own process on X ``display`` and reads what it holds."""

    def __init__(self, display: str, out: Path):
        self.out, self.display = out, display
        env = {"DISPLAY": display, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.evaluation.text_field", str(out)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.window = self.process.stdout.readline().strip()  # printed once it has the focus
        assert self.window, "the text field did not start"
        # The X server may apply the focus a moment later: typing must not start before.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            focus = subprocess.run(["xdotool", "getwindowfocus"], capture_output=True, text=True, env=env)
            if focus.returncode == 0 and focus.stdout.strip():
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the text field never got the keyboard focus")

    def finish(self, quiet: float = 1.0, timeout: float = 15.0) -> str:
        """Close the field and return its text, once it has been unchanged for ``quiet`` seconds:
        the keystrokes a typing tool sent are X events the field handles in its own time, which
        on a loaded machine can be well after the tool returned."""
        log = self.change_log
        deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
        while time.monotonic() < deadline:
            size = log.stat().st_size if log.exists() else 0
            if size != last:
                last, since = size, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
            time.sleep(0.05)
        self.process.terminate()
        self.process.wait(20)
        return json.loads(self.out.read_text(encoding="utf-8"))["text"]

    def text_now(self) -> str:
        """What the field holds now, from its change log."""
        changes = self.changes()
        return changes[-1]["text"] if changes else ""

    @property
    def change_log(self) -> Path:
        return self.out.with_name(self.out.name + ".log")

    def changes(self) -> list[dict]:
        log = self.change_log
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


if __name__ == "__main__":
    sys.exit(main())
