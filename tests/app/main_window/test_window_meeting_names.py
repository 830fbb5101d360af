"""Naming a meeting's speakers (app/dialogs/meeting_page.py): the Meeting page of the settings
dialog renames "Others 1" and the window's captions, overlay, exports and copies show the new
name at once; the page says how echo is handled, for a running meeting its own line."""

import pytest
from PySide6.QtWidgets import QApplication

from app import settings as keys
from app.dialogs import settings_pages
from app.dialogs.meeting_page import ECHO_WITHOUT_MEETING
from app.dialogs.settings_dialog import SettingsDialog
from app.workers.sources import DeviceScan
from engine import SPEAKER_ME, Appended, Settled, Word

pytestmark = [pytest.mark.gui]

ANA = "others:1"


@pytest.fixture(autouse=True)
def no_device_scan(monkeypatch):
    monkeypatch.setattr(settings_pages, "scan_devices", lambda: DeviceScan([], None, []))


def speak(window, turns):
    events, p = [], 0
    for speaker, text in turns:
        for w in text.split():
            events += [
                Appended(p, Word(w, p * 0.4, p * 0.4 + 0.3, speaker=speaker)),
                Settled(p, "none", "lower", 1, w),
            ]
            p += 1
    window.bridge.builder.apply(events)
    window.bridge.captions_changed.emit(events, None)  # as the bridge's frame: the caption feed's


def test_renaming_others_1_shows_the_new_name_in_the_captions(make_window, settings, qtbot, tmp_path):
    window = make_window()
    speak(window, [(SPEAKER_ME, "shall we start"), (ANA, "yes please")])
    assert window.view.toPlainText() == "Me: shall we start\nOthers 1: yes please"
    dialog = SettingsDialog(settings, window)
    qtbot.addWidget(dialog)
    dialog.settings_changed.connect(window.apply_settings)
    page = dialog.meeting_page
    assert page.voices[0].placeholderText() == "Others 1" and page.voices[0].text() == ""
    page.voices[0].setText("Ana")
    page.me.setText("Jo")
    assert dialog.apply()
    assert settings.get(keys.VOICE_NAMES[0]) == "Ana" and settings.get(keys.ME_NAME) == "Jo"
    assert window.view.toPlainText() == "Jo: shall we start\nAna: yes please"
    window.overlay_controller.set_visible(True)
    overlay_text = " ".join(line.text for line in window.overlay_controller.overlay.laid_out_lines())
    assert overlay_text == "Jo› shall we start Ana› yes please"
    # Exports and Copy all name the speakers the same way.
    with qtbot.waitSignal(window.text.export_to(tmp_path / "call.txt").done, timeout=60000):
        pass
    exported = (tmp_path / "call.txt").read_text()
    assert exported.startswith("Jo: ") and "Ana: " in exported
    window.text.copy_all()
    assert "Ana: " in QApplication.clipboard().text()
    # Emptied, a name is the default again.
    page.me.setText("")
    assert dialog.apply() and settings.get(keys.ME_NAME) == "Me"
    assert window.view.toPlainText().startswith("Me: shall we start")


def test_a_rename_after_stop_relabels_the_finished_text_and_keeps_the_users_edits(
    make_window, settings, qtbot, tmp_path
):
    window = make_window()
    speak(window, [(SPEAKER_ME, "shall we start"), (ANA, "yes please")])
    window.text._load_final(window.bridge.transcript.copy(), "")  # what Stop leads to
    assert not window.view.live
    assert window.view.toPlainText() == "Me: shall we start\nOthers 1: yes please"
    cursor = window.view.document().find("please")
    cursor.insertText("gladly")  # the user corrects a word of the finished text
    dialog = SettingsDialog(settings, window)
    qtbot.addWidget(dialog)
    dialog.settings_changed.connect(window.apply_settings)
    dialog.meeting_page.voices[0].setText("Ana")
    assert dialog.apply()
    assert window.view.toPlainText() == "Me: shall we start\nAna: yes gladly"
    assert window.view.edited  # still the user's edit, under the new name
    with qtbot.waitSignal(window.text.export_to(tmp_path / "call.txt").done, timeout=60000):
        pass
    exported = (tmp_path / "call.txt").read_text()
    assert "Ana: yes gladly" in exported and "Others 1" not in exported


def test_the_meeting_page_says_how_echo_is_handled(make_window, settings, qtbot):
    window = make_window()
    window.open_settings()
    page = window.settings_dialog.meeting_page
    assert page.echo.text() == ECHO_WITHOUT_MEETING  # no meeting running
    assert "echo canceller" in page.echo.text() and "echo guard" in page.echo.text()
    page.show_echo("The echo canceller needs one application's audio; the echo guard hides the rest.")
    assert page.echo.text().startswith("This meeting: The echo canceller needs")
    window.settings_dialog.reject()
