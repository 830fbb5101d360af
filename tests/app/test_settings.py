"""The app's settings file: a key an earlier version stored under another name is read once into
its new name, on a real QSettings INI file."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from app import settings as keys
from app.settings import AppSettings

MODEL = "vosk-model-small-en-us-0.15"


def open_settings(ini) -> AppSettings:
    return AppSettings(QSettings(str(ini), QSettings.Format.IniFormat))


def test_an_earlier_versions_model_choice_moves_to_its_new_name_once(tmp_path):
    ini = tmp_path / "livecap.ini"
    # As an earlier version left it: the recognizer's model under "recognition/vosk_model".
    ini.write_text(f"[recognition]\nvosk_model={MODEL}\nmarks=engine\n")
    settings = open_settings(ini)
    assert settings.get(keys.RECOGNIZER_MODEL) == MODEL
    assert settings.get(keys.MARKS) == "engine"  # the other keys untouched
    settings.sync()
    text = ini.read_text()
    assert "vosk_model" not in text and f"model={MODEL}" in text
    # Once: the user's next choice is not overwritten by the old value on the next start.
    settings.set(keys.RECOGNIZER_MODEL, "")
    settings.sync()
    again = open_settings(ini)
    assert again.is_set(keys.RECOGNIZER_MODEL) and again.get(keys.RECOGNIZER_MODEL) == ""


def test_a_value_already_under_the_new_name_wins_over_a_left_over_old_one(tmp_path):
    ini = tmp_path / "livecap.ini"
    ini.write_text(f"[recognition]\nvosk_model=old-model\nmodel={MODEL}\n")
    settings = open_settings(ini)
    assert settings.get(keys.RECOGNIZER_MODEL) == MODEL
    assert not settings.store.contains("recognition/vosk_model")


def test_every_renamed_key_leads_to_a_key_of_its_own():
    names = {key.name for key in keys.ALL_KEYS}
    assert all(old not in names and key in keys.ALL_KEYS for old, key in keys.RENAMED.items())
