"""A meeting in language "auto" (offscreen window): the status bar names the language each side's
stream detected, the others' first (the meeting's language), and the others' is the one the
override and the translation label go by."""

import pytest

from app import settings as keys
from app.main_window import language_controller as lc
from engine import SPEAKER_ME, SPEAKER_OTHERS

pytestmark = [pytest.mark.gui]


def test_the_status_bar_shows_the_others_detected_language_in_a_meeting(window, settings, pack):
    settings.set(keys.LANGUAGE, "auto")
    language = window.language
    language.on_state(True)
    assert language.label.text() == "Whisper base · detecting the language…"

    language.on_detected("en", 0.88, SPEAKER_ME)  # Me spoke first: not yet the meeting's language
    assert language.label.text() == "Whisper base · Me: English (detected)"
    assert language.detected is None and language.override.isHidden()

    language.on_detected("de", 0.93, SPEAKER_OTHERS)
    assert language.label.text() == "Whisper base · Others: German (detected), Me: English (detected)"
    assert language.detected == "de" and not language.override.isHidden()
    assert language.override.text() == "Not German? Choose…"
    assert language.label.accessibleDescription() == "Others: detected German (93% sure)"

    settings.set(keys.TRANSLATE, True)  # a translation is labelled from the others' language
    language.refresh()
    assert "Translated to English from German" in window.windowTitle()

    language.on_state(False)  # the meeting ended: the next session detects anew
    assert language.sides == {} and language.detected is None
    assert language.label.text() == "Whisper base · detecting the language… → English captions"


def test_a_one_source_session_still_names_its_language_alone(window, settings, pack):
    settings.set(keys.LANGUAGE, "auto")
    window.language.on_state(True)
    window.language.on_detected("de", 0.93)
    assert window.language.label.text() == "Whisper base · German (detected)"
    assert lc.status_line("auto", False, "de", {}) == "Whisper base · German (detected)"
    assert lc.status_line("auto", True, None, {SPEAKER_OTHERS: "fr"}) == (
        "Whisper base · Others: French (detected) → English captions"
    )
