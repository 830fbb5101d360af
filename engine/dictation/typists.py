"""The programs that type into other applications: xdotool on X11, wtype or ydotool on Wayland.

``choose_typist`` picks the one that works on this desktop, or raises ``DictationUnavailable``
with one line saying what to install: dictation is refused rather than half-working. Each typist
builds its command lines in ``commands_for`` (checked by tests wherever the tool is missing) and
runs them in ``send``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence

from engine.dictation.typed_text import Keystroke, PressKey

Runner = Callable[[list[str]], subprocess.CompletedProcess]


class DictationUnavailable(RuntimeError):
    """No way to type into other applications here; the message says what to install."""


def _run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=10, env=env)


class Typist:
    """Sends keystrokes to the focused window with one command-line tool."""

    name = ""
    tool = ""
    # Whether ``focused_window`` can tell windows apart (on Wayland no client may know).
    knows_focus = False

    def __init__(self, runner: Runner = _run):
        self.runner = runner

    def commands_for(self, keystroke: Keystroke) -> list[list[str]]:
        raise NotImplementedError

    def send(self, keystrokes: Sequence[Keystroke]) -> None:
        for keystroke in keystrokes:
            for command in self.commands_for(keystroke):
                result = self.runner(command)
                if result.returncode != 0:
                    raise OSError(f"{self.tool} failed: {_first_line(result)}")

    def focused_window(self) -> str | None:
        return None

    def window_pid(self, window: str) -> int | None:
        return None


class XdotoolTypist(Typist):
    """X11, through XTest, by xdotool."""

    name = "X11 (xdotool)"
    tool = "xdotool"
    knows_focus = True
    # xdotool maps a character with no key to a spare keycode for each press, and the window
    # typed into reads that mapping only when it handles the press: if it handles it after the
    # next character's remapping (a busy machine), it reads the wrong character, or none. Keys
    # on the keyboard (ASCII) need no remapping and go at xdotool's own default pace; the others
    # get more time each.
    KEY_DELAY_MS = 12
    REMAPPED_KEY_DELAY_MS = 40

    def commands_for(self, keystroke: Keystroke) -> list[list[str]]:
        if isinstance(keystroke, PressKey):
            return [["xdotool", "key", "--clearmodifiers", *[keystroke.key] * keystroke.count]]
        commands, run = [], ""
        for char in keystroke.text:
            # xdotool binds a character it has no key for to a spare keycode; X then reads a
            # lone letter keysym there as lowercase, so "Ü" would arrive as "ü". Those letters
            # are pressed with Shift, on their own.
            if char.isupper() and not char.isascii() and char.lower() != char:
                if run:
                    commands += self._type(run)
                    run = ""
                # Its remapped key gets the same time as typed ones before xdotool restores
                # the map: a window read it as nothing where it had only the default pace.
                delay = str(self.REMAPPED_KEY_DELAY_MS)
                commands.append(
                    ["xdotool", "key", "--clearmodifiers", "--delay", delay, f"shift+U{ord(char):04X}"]
                )
            else:
                run += char
        if run:
            commands += self._type(run)
        return commands

    def _type(self, text: str) -> list[list[str]]:
        """Runs of ASCII and of other characters, each at its own pace."""
        runs = []
        for char in text:
            if runs and runs[-1][-1].isascii() == char.isascii():
                runs[-1] += char
            else:
                runs.append(char)
        return [
            ["xdotool", "type", "--clearmodifiers", "--delay", str(self._delay(run)), "--", run]
            for run in runs
        ]

    def _delay(self, run: str) -> int:
        return self.KEY_DELAY_MS if run.isascii() else self.REMAPPED_KEY_DELAY_MS

    def focused_window(self) -> str | None:
        result = self.runner(["xdotool", "getwindowfocus"])
        return (result.stdout.strip() or None) if result.returncode == 0 else None

    def window_pid(self, window: str) -> int | None:
        result = self.runner(["xdotool", "getwindowpid", window])
        try:
            return int(result.stdout.strip()) if result.returncode == 0 else None
        except ValueError:
            return None


class WtypeTypist(Typist):
    """Wayland compositors with the virtual-keyboard protocol (Sway, Hyprland, KDE...)."""

    name = "Wayland (wtype)"
    tool = "wtype"

    def commands_for(self, keystroke: Keystroke) -> list[list[str]]:
        if isinstance(keystroke, PressKey):
            keys = []
            for _ in range(keystroke.count):
                keys += ["-k", keystroke.key]
            return [["wtype", *keys]]
        return [["wtype", "--", keystroke.text]]


class YdotoolTypist(Typist):
    """Any Wayland compositor, through the kernel's uinput (needs the ydotoold service)."""

    name = "Wayland (ydotool)"
    tool = "ydotool"
    # Linux input key codes (linux/input-event-codes.h).
    KEY_CODES = {"Return": 28, "BackSpace": 14}

    def commands_for(self, keystroke: Keystroke) -> list[list[str]]:
        if isinstance(keystroke, PressKey):
            code = self.KEY_CODES[keystroke.key]
            presses: list[str] = []
            for _ in range(keystroke.count):
                presses += [f"{code}:1", f"{code}:0"]  # down, up
            return [["ydotool", "key", *presses]]
        return [["ydotool", "type", "--", keystroke.text]]


INSTALL_HINT = {
    "x11": "install xdotool (Debian/Ubuntu: sudo apt install xdotool)",
    "wayland": "install wtype, or ydotool with its ydotoold service running "
    "(Debian/Ubuntu: sudo apt install wtype ydotool)",
}


def desktop_kind(env: dict[str, str] | None = None) -> str | None:
    """ "wayland", "x11", or None (no graphical session to type into)."""
    env = os.environ if env is None else env
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    if env.get("DISPLAY"):
        return "x11"
    return None


def choose_typist(
    env: dict[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
    runner: Runner | None = None,
) -> Typist:
    """The typist that works here, checked by a harmless call; else one line on what to install.
    ``env``: the desktop's environment (default: this process's); the tools run in it."""
    kind = desktop_kind(env)
    if runner is None:
        runner = _run if env is None else (lambda command: _run(command, {**os.environ, **env}))
    if kind is None:
        raise DictationUnavailable(
            "dictation types into the windows of a desktop session, and there is none here "
            "(neither DISPLAY nor WAYLAND_DISPLAY is set); use livecap listen for captions in the terminal"
        )
    candidates: list[type[Typist]] = [WtypeTypist, YdotoolTypist] if kind == "wayland" else [XdotoolTypist]
    problems = []
    for cls in candidates:
        if which(cls.tool) is None:
            problems.append(f"{cls.tool} is not installed")
            continue
        typist = cls(runner)
        problem = probe(typist)
        if problem is None:
            return typist
        problems.append(problem)
    desktop = "Wayland" if kind == "wayland" else "X11"
    missing = any(p.endswith("is not installed") for p in problems)
    hint = f": {INSTALL_HINT[kind]}" if missing else ""
    raise DictationUnavailable(
        f"cannot type into other applications on this {desktop} desktop ({'; '.join(problems)}){hint}"
    )


def probe(typist: Typist) -> str | None:
    """None if the typist can reach the desktop, else why not, in a few words."""
    command = {
        "xdotool": ["xdotool", "getdisplaygeometry"],  # the display answers, focused window or not
        "wtype": ["wtype", ""],  # types nothing; fails where the compositor lacks virtual keyboards
        "ydotool": ["ydotool", "type", ""],  # fails when ydotoold is not running
    }[typist.tool]
    try:
        result = typist.runner(command)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{typist.tool}: {exc}"
    if result.returncode != 0:
        return f"{typist.tool}: {_first_line(result)}"
    return None


def _first_line(result: subprocess.CompletedProcess) -> str:
    lines = (result.stderr or result.stdout or "").strip().splitlines()
    return lines[0].strip() if lines else f"exit {result.returncode}"
