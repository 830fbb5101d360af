"""The captions window's languages (offscreen): the settings reach the session, the status bar
names the model and the language, a detected language can be overridden, a translation is
labelled as one, the overlay's menu has the same choices, and a missing language pack says the
way out instead of failing at Start."""

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFormLayout, QMenu, QWidget

from app import settings as keys
from app.languages import fill_menu
from app.main_window import language_controller as lc
from app.workers.session_bridge import IDLE, RUNNING
from engine import LanguageDetected

pytestmark = [pytest.mark.gui]


def running(window) -> None:
    """The window as while a session runs (the state the bridge reports), without a session."""
    window.language.on_state(True)


def detect(window, qtbot, language: str, probability: float = 0.93) -> None:
    """``LanguageDetected`` from the engine's thread, through the bridge as a session's events come."""
    with qtbot.waitSignal(window.bridge.language_detected, timeout=5000) as signal:
        window.bridge._on_engine_events([LanguageDetected(language, probability)])
    assert signal.args == [language, pytest.approx(probability), None]


def test_the_language_settings_reach_the_session_spec(window, settings, pack):
    assert window.language.spec_fields() == {"language": "en", "translate": False}
    settings.set(keys.LANGUAGE, "de")
    settings.set(keys.TRANSLATE, True)
    assert window.language.spec_fields() == {"language": "de", "translate": True}
    settings.set(keys.LANGUAGE, "en")  # English captions of English: nothing to translate
    assert window.language.spec_fields()["translate"] is False
    settings.set(keys.LANGUAGE, "auto")
    spec = window.spec()
    assert (spec.language, spec.translate) == ("auto", True)


def test_the_status_bar_names_the_model_and_the_language(window, settings, pack):
    assert window.language.label.text() == "Whisper tiny.en · English"
    settings.set(keys.LANGUAGE, "de")
    window.language.refresh()
    assert window.language.label.text() == "Whisper base · German"
    settings.set(keys.TRANSLATE, True)
    running(window)
    assert window.language.label.text().startswith("Whisper base · German → English captions")
    assert "Translated to English from German" in window.language.label.text()
    assert "Translated to English from German" in window.windowTitle()
    window.language.on_state(False)  # stopped: the title is the window's own again
    assert "Translated" not in window.windowTitle()
    assert lc.status_line("en", False) == "Whisper tiny.en · English"
    assert lc.status_line("de", False) == "Whisper base · German"
    assert lc.status_line("auto", True, "de") == "Whisper base · German (detected) → English captions"
    assert lc.status_line("auto", False) == "Whisper base · detecting the language…"


def test_a_detected_language_is_shown_and_can_be_overridden(window, settings, pack, qtbot, monkeypatch):
    settings.set(keys.LANGUAGE, "auto")
    settings.set(keys.TRANSLATE, True)
    running(window)
    assert window.language.override.isHidden()
    detect(window, qtbot, "de")
    assert window.language.label.text().startswith("Whisper base · German (detected) → English captions")
    assert "Translated to English from German" in window.windowTitle()
    assert not window.language.override.isHidden()
    assert window.language.override.text() == "Not German? Choose…"
    menu = window.language.show_choices()
    offered = {a.objectName(): a for a in menu.actions()}
    assert {"language-en", "language-auto", "language-fr", "language-de", "translate"} <= set(offered)
    assert offered["language-auto"].isChecked() and offered["translate"].isChecked()
    menu.close()
    loaded = []
    monkeypatch.setattr(window, "preload", lambda: loaded.append(window.spec()))  # idle: no real session
    with qtbot.waitSignal(window.language.restart_requested, timeout=5000):
        offered["language-fr"].trigger()
    assert settings.get(keys.LANGUAGE) == "fr" and window.language.detected is None
    assert window.language.label.text().startswith("Whisper base · French → English captions")
    assert len(loaded) == 1  # idle (this test has no session): the recognizer loads for Start


class _Bridge:
    def __init__(self):
        self.state, self.stops = RUNNING, 0

    def stop(self):
        self.stops += 1
        self.state = IDLE


class _Window(QObject):
    session_done = Signal()

    def __init__(self):
        super().__init__()
        self.bridge, self.starts, self.saved = _Bridge(), 0, 0
        self.text = self
        self.messages = []

    def mark_saved(self):
        self.saved += 1

    def start(self):
        self.starts += 1

    def statusBar(self):
        return self

    def showMessage(self, text, *_):
        self.messages.append(text)


def test_choosing_a_language_mid_session_starts_it_again_in_that_language(qtbot):
    window = _Window()
    lc.restart_in_language(window)
    assert window.bridge.stops == 1 and window.starts == 0
    window.session_done.emit()  # the first seconds' text is shown: start again, without asking
    assert (window.starts, window.saved) == (1, 1)
    window.session_done.emit()  # once only
    assert window.starts == 1


def test_the_overlay_menu_has_the_language_submenu_and_translate_updates_the_setting(
    window, settings, pack, qtbot
):
    settings.set(keys.LANGUAGE, "de")
    overlay = window.overlay_controller.overlay
    menu = overlay.context_menu()
    language = next(m for m in menu.findChildren(QMenu) if m.objectName() == "language")
    assert language.title().replace("&", "") == "Language"
    actions = {a.objectName(): a for a in language.actions()}
    assert actions["language-de"].isChecked() and not actions["translate"].isChecked()
    assert "language-pack" not in actions  # installed: no way-out line
    with qtbot.waitSignal(window.language.restart_requested, timeout=5000):
        actions["translate"].trigger()
    assert settings.get(keys.TRANSLATE) is True
    assert window.language.label.text() == "Whisper base · German → English captions"
    menu.deleteLater()


def test_a_missing_language_pack_shows_the_way_out(qtbot, settings, pack):
    from app.dialogs.language_choice import LanguageChoice

    pack(False, "not installed")
    page = QWidget()
    qtbot.addWidget(page)
    choice = LanguageChoice()
    choice.add_rows(QFormLayout(page))
    assert "pip install 'livecap[languages]'" in choice.pack.text() and not choice.pack.isHidden()
    labels = {
        choice.language.itemData(i): choice.language.itemText(i) for i in range(choice.language.count())
    }
    assert labels["en"] == "English (Whisper tiny.en)"
    assert "needs the language pack" in labels["de"] and "needs the language pack" in labels["auto"]
    assert choice.validate() is None  # English needs no pack
    choice.language.setCurrentIndex(choice.language.findData("de"))
    widget, message = choice.validate()
    assert widget is choice.language and "pip install 'livecap[languages]'" in message
    # The menus say it too, and offer only English.
    menu = QMenu()
    fill_menu(menu, settings)
    actions = {a.objectName(): a for a in menu.actions()}
    assert "pip install 'livecap[languages]'" in actions["language-pack"].text()
    assert actions["language-en"].isEnabled() and not actions["language-de"].isEnabled()
    assert not actions["translate"].isEnabled()


def test_an_installed_pack_not_yet_unpacked_says_the_first_start_takes_longer(qtbot, pack, monkeypatch):
    import engine
    from app.dialogs.language_choice import LanguageChoice

    status = engine.LanguagePackStatus(True, False, None, "installed; unpacked at first use")
    monkeypatch.setattr(engine, "language_pack_status", lambda: status)
    choice = LanguageChoice()
    qtbot.addWidget(choice.pack)
    assert "unpacked the first time" in choice.pack.text() and "pip install" not in choice.pack.text()
    choice.language.setCurrentIndex(choice.language.findData("de"))
    assert choice.validate() is None


def test_the_settings_dialog_saves_the_language(qtbot, settings, pack, tmp_path, monkeypatch):
    import app.dialogs.settings_pages as pages
    from app.dialogs.settings_dialog import SettingsDialog
    from app.workers.sources import DeviceScan

    monkeypatch.setattr(pages, "scan_devices", lambda: DeviceScan([], None, []))  # no PortAudio here

    dialog = SettingsDialog(settings, catalogue=(), models_dir=tmp_path / "m", cache_dir=tmp_path / "c")
    qtbot.addWidget(dialog)
    page = dialog.recognition_page.languages
    assert page.language.currentData() == "en" and not page.translate.isEnabled()
    page.language.setCurrentIndex(page.language.findData("auto"))
    page.translate.setChecked(True)
    with qtbot.waitSignal(dialog.settings_changed) as changed:
        assert dialog.apply()
    assert set(changed.args[0]) == {keys.LANGUAGE.name, keys.TRANSLATE.name}
    assert settings.get(keys.LANGUAGE) == "auto" and settings.get(keys.TRANSLATE) is True


def test_start_without_the_language_pack_says_the_way_out_instead_of_failing(window, settings, pack):
    settings.set(keys.LANGUAGE, "de")
    pack(False, "not installed")
    assert not window.start()
    assert window.bridge.state == IDLE
    assert "pip install 'livecap[languages]'" in window.banners.text("error")
