"""A real X11 text field in its own process, the target typing tests type into.

    python tests/engine/dictation/text_target.py OUT.json

A Tk text widget takes the keyboard focus and records its content: on every change, a line
``{"t": <time.time()>, "text": ...}`` is appended to OUT.json.log, and on SIGTERM (or when the
window is closed) the final content is written to OUT.json atomically, then the process exits.
The window's X id is printed on stdout once it is mapped and focused, so a test knows when to
start typing and which window should hold the focus.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import tkinter as tk


def main() -> int:
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
    root.after(50, lambda: None)  # wake the loop now and then so the SIGTERM handler runs

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


if __name__ == "__main__":
    sys.exit(main())
