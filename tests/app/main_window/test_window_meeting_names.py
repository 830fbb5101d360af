"""Naming a meeting's speakers (app/dialogs/meeting_page.py): the Meeting page of the settings
dialog renames the first voice among the others ("Others") and the window's captions, overlay,
exports and copies show the new name at once; the page says how echo is handled, for a running
meeting its own line, and turns the echo guard off, where the window's notice of hidden words
leads."""

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


def test_renaming_the_first_voice_shows_the_new_name_in_the_captions(make_window, settings, qtbot, tmp_path):
    window = make_window()
    speak(window, [(SPEAKER_ME, "shall we start"), (ANA, "yes please")])
    assert window.view.toPlainText() == "Me: shall we start\nOthers: yes please"
    dialog = SettingsDialog(settings, window)
    qtbot.addWidget(dialog)
    dialog.settings_changed.connect(window.apply_settings)
    page = dialog.meeting_page
    # The first voice is the others' name alone until renamed; the second is numbered.
    assert page.voices[0].placeholderText() == "Others" and page.voices[0].text() == ""
    assert page.voices[1].placeholderText() == "Others 2"
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
    assert window.view.toPlainText() == "Me: shall we start\nOthers: yes please"
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
    assert "Ana: yes gladly" in exported and "Others" not in exported


def test_the_meeting_page_says_how_echo_is_handled(make_window, settings, qtbot):
    window = make_window()
    window.open_settings()
    page = window.settings_dialog.meeting_page
    assert page.echo.text() == ECHO_WITHOUT_MEETING  # no meeting running
    assert "echo canceller" in page.echo.text() and "echo guard" in page.echo.text()
    page.show_echo("The echo canceller needs one application's audio; the echo guard hides the rest.")
    assert page.echo.text().startswith("This meeting: The echo canceller needs")
    window.settings_dialog.reject()


def test_words_hidden_as_echo_are_said_once_and_lead_to_the_guards_setting(make_window, settings, qtbot):
    from engine import WordsHidden

    window = make_window()
    assert window.spec().echo_guard is True  # on by default: calls on speakers echo
    bridge = window.bridge

    def hidden(total):
        bridge._on_engine_events([WordsHidden((Word("yes", speaker=SPEAKER_ME),), total)])
        qtbot.waitUntil(lambda: bridge._hidden_said == total, timeout=5000)

    hidden(12)
    assert window.banners.text("echo") == "12 words hidden as possible echo: Settings → Meeting"
    hidden(15)  # the same notice, kept current
    assert window.banners.text("echo") == "15 words hidden as possible echo: Settings → Meeting"
    assert list(window.banners.banners) == ["echo"]
    window.banners.banners["echo"].buttons["Open Settings → Meeting"].click()
    dialog = window.settings_dialog
    assert dialog.tabs.currentWidget() is dialog.meeting_page
    assert dialog.meeting_page.echo_guard.isChecked()
    dialog.meeting_page.echo_guard.setChecked(False)  # a headset: nothing to hide
    assert dialog.apply() and settings.get(keys.ECHO_GUARD) is False
    assert window.spec().echo_guard is False
    dialog.reject()
    # Dismissed, it is not said again in the same session.
    window.banners.hide_banner("echo")
    hidden(20)
    assert window.banners.text("echo") is None
