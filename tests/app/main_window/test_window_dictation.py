"""The window's "Type into other apps": a real session typed by xdotool into a real X11
text field in its own process (the window itself is offscreen), its indicator, the spoken-command
settings, and ``livecap dictate --toggle`` reaching the window through the control socket."""

import pytest

from app import settings as keys
from app.main_window.dictation_controller import spoken_commands
from engine import ControlUnavailable
from engine.dictation.control import send_command
from engine.transcript.journal import read_journal
from tests.app.main_window.test_window import play

pytestmark = [pytest.mark.gui]


@pytest.mark.needs_espeak
def test_typing_into_another_app_types_exactly_the_settled_words_and_shows_it_is_on(
    window, qtbot, target, speech_wav, tmp_path
):
    action, indicator = window.commands.type_into_apps, window.typing_indicator
    assert not action.isChecked() and not indicator.isVisible()
    action.trigger()
    qtbot.waitUntil(lambda: window.dictation.on, timeout=10000)  # the typing tool was found
    assert action.isChecked() and not indicator.isHidden() and "Typing" in indicator.text()
    play(window, qtbot, speech_wav)
    live = window.bridge.builder.transcript.words  # the settled live words, before re-punctuation
    assert len(live) >= 4, "PocketSphinx heard too little to test with"
    expected = " ".join(w.display for w in live)
    qtbot.waitUntil(lambda: target.text_now() == expected, timeout=20000)
    action.trigger()  # off: the indicator goes, and nothing more is typed
    assert not window.dictation.on and indicator.isHidden() and window.dictation.switch.sink is None
    assert target.finish() == expected
    assert window.view.toPlainText().split() == window.text.final_transcript.text().split()  # untouched
    # and the journal got every settled word, as it does without typing
    [journal] = (tmp_path / "journal").glob("session-*.jsonl")
    assert [w.text for w in read_journal(journal).transcript.words] == [w.text for w in live]


def test_without_a_way_to_type_the_toggle_is_refused_with_one_line(window, qtbot, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    window.commands.type_into_apps.trigger()
    qtbot.waitUntil(lambda: window.banners.text("dictation") is not None, timeout=10000)
    banner = window.banners.text("dictation")
    assert "livecap listen" in banner and "\n" not in banner
    assert not window.commands.type_into_apps.isChecked() and window.typing_indicator.isHidden()


def test_livecap_dictate_toggle_reaches_the_window(window, qtbot, target, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    assert window.dictation.listen() is None
    assert send_command("status") == "paused"
    assert send_command("toggle") == "dictating"
    qtbot.waitUntil(lambda: window.dictation.on, timeout=10000)
    assert window.commands.type_into_apps.isChecked() and not window.typing_indicator.isHidden()
    assert send_command("toggle") == "paused"
    qtbot.waitUntil(lambda: not window.dictation.on, timeout=10000)
    window.dictation.close()
    with pytest.raises(ControlUnavailable):
        send_command("status")


def test_the_spoken_commands_are_settings_and_off_by_default(settings):
    from app.dialogs.dictation_page import DictationPage

    assert spoken_commands(settings) == []
    page = DictationPage()
    read, write = page.controls()[keys.DICTATION_COMMANDS]
    assert read() == "" and len(page.boxes) == 3
    write("new line,scratch that")
    assert page.boxes["new line"].isChecked() and not page.boxes["new paragraph"].isChecked()
    settings.set(keys.DICTATION_COMMANDS, read())
    assert spoken_commands(settings) == ["new line", "scratch that"]
