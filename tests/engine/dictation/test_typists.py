"""Choosing and driving the typing tools (engine/dictation/typists.py).

The command lines are checked everywhere; a tool itself runs only where it is installed (and,
for the Wayland ones, where a compositor is there to take its keystrokes)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from engine.dictation.typed_text import PressKey, TypeText
from engine.dictation.typists import (
    DictationUnavailable,
    WtypeTypist,
    XdotoolTypist,
    YdotoolTypist,
    choose_typist,
)


class FakeRunner:
    """Stands in for the tools only where they are absent; records every command line."""

    def __init__(self, failing: dict[str, str] | None = None):
        self.failing = failing or {}
        self.commands: list[list[str]] = []

    def __call__(self, command):
        self.commands.append(command)
        error = self.failing.get(command[0])
        return subprocess.CompletedProcess(command, 1 if error else 0, stdout="", stderr=error or "")


def test_wtype_command_lines_keep_unicode_and_name_keys():
    typist = WtypeTypist()
    assert typist.commands_for(TypeText(" Zoë’s café?")) == [["wtype", "--", " Zoë’s café?"]]
    assert typist.commands_for(PressKey("Return", 2)) == [["wtype", "-k", "Return", "-k", "Return"]]
    assert typist.commands_for(TypeText("-k not an option")) == [["wtype", "--", "-k not an option"]]


def test_ydotool_command_lines_press_and_release_linux_key_codes():
    typist = YdotoolTypist()
    assert typist.commands_for(TypeText("hello there.")) == [["ydotool", "type", "--", "hello there."]]
    twice = [["ydotool", "key", "14:1", "14:0", "14:1", "14:0"]]
    assert typist.commands_for(PressKey("BackSpace", 2)) == twice
    assert typist.commands_for(PressKey("Return")) == [["ydotool", "key", "28:1", "28:0"]]


def test_xdotool_presses_capital_accented_letters_with_shift():
    commands = XdotoolTypist().commands_for(TypeText("Ünal and Émile"))
    assert [c[1] for c in commands] == ["key", "type", "key", "type"]
    assert commands[0][-3:] == ["--delay", "40", "shift+U00DC"]  # the remapped keys' pace
    assert commands[1][-1] == "nal and " and commands[3][-1] == "mile"


def test_xdotool_gives_characters_it_must_remap_more_time_than_keys_on_the_keyboard():
    """A busy target window read a remapped character late, as the next one: "naïve" lost its "ï"."""
    commands = XdotoolTypist().commands_for(TypeText("naïve «ω» ok"))
    runs = [(c[-1], int(c[c.index("--delay") + 1])) for c in commands]
    assert runs == [("na", 12), ("ï", 40), ("ve ", 12), ("«ω»", 40), (" ok", 12)]


def test_wayland_prefers_wtype_and_falls_back_to_ydotool_when_the_compositor_refuses():
    env = {"WAYLAND_DISPLAY": "wayland-0"}
    runner = FakeRunner()
    assert isinstance(choose_typist(env, which=lambda tool: f"/usr/bin/{tool}", runner=runner), WtypeTypist)
    refusing = FakeRunner({"wtype": "Compositor does not support the virtual keyboard protocol"})
    typist = choose_typist(env, which=lambda tool: f"/usr/bin/{tool}", runner=refusing)
    assert isinstance(typist, YdotoolTypist)
    assert refusing.commands[0][0] == "wtype" and refusing.commands[1][0] == "ydotool"


def test_with_nothing_that_works_dictation_is_refused_in_one_line_saying_what_to_install():
    with pytest.raises(DictationUnavailable) as wayland:
        choose_typist({"WAYLAND_DISPLAY": "wayland-0"}, which=lambda tool: None, runner=FakeRunner())
    message = str(wayland.value)
    assert "\n" not in message and "wtype is not installed" in message and "apt install wtype" in message
    with pytest.raises(DictationUnavailable, match="install xdotool"):
        choose_typist({"DISPLAY": ":0"}, which=lambda tool: None, runner=FakeRunner())
    with pytest.raises(DictationUnavailable, match="livecap listen"):
        choose_typist({}, which=lambda tool: "/usr/bin/" + tool, runner=FakeRunner())
    broken = FakeRunner({"xdotool": "Can't open display: :99"})
    with pytest.raises(DictationUnavailable, match="Can't open display"):
        choose_typist({"DISPLAY": ":99"}, which=lambda tool: "/usr/bin/" + tool, runner=broken)


def test_a_tool_that_fails_mid_dictation_raises_with_its_own_words():
    typist = XdotoolTypist(FakeRunner({"xdotool": "XGetWindowProperty failed"}))
    with pytest.raises(OSError, match="xdotool failed: XGetWindowProperty failed"):
        typist.send([TypeText("hello")])


@pytest.mark.parametrize("cls", [WtypeTypist, YdotoolTypist])
def test_the_real_wayland_tool_runs_where_it_is_installed(cls):
    if shutil.which(cls.tool) is None:
        pytest.skip(f"{cls.tool} is not installed here; its command lines are checked above")
    # With no compositor (or no ydotoold) the real tool must fail, and be reported as unusable.
    with pytest.raises(DictationUnavailable):
        choose_typist({"WAYLAND_DISPLAY": "livecap-test-no-such-display"}, which=shutil.which)


def test_where_the_focus_is_unknown_nothing_is_typed_while_livecap_itself_is_in_front():
    from engine.dictation.sink import DictationSink
    from engine.events import Appended, Finalized, Settled
    from engine.words import Word

    runner = FakeRunner()  # wtype is absent here: its command lines are recorded instead
    in_front = [True]
    sink = DictationSink(WtypeTypist(runner), own_window_active=lambda: in_front[0]).start()

    def say(position, text, form):
        sink([Appended(position, Word(text)), Settled(position, "period", "capitalized", 1, form)])
        sink([Finalized(position + 1)])
        assert sink.drain(10)

    say(0, "hidden", "Hidden")
    assert runner.commands == []  # livecap's window had the focus
    in_front[0] = False
    say(1, "shown", "Shown")
    sink.stop()
    assert runner.commands == [["wtype", "--", "Shown."]]
