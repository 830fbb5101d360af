"""A session in another language that cannot start (Whisper base too slow for this CPU live, or
the pack broken): the error banner offers English captions, which always start, and taking the
offer switches the settings back to English and starts."""

import pytest

from app import settings as keys
from app.workers.session_bridge import IDLE

pytestmark = [pytest.mark.gui]

TOO_SLOW = (
    "Whisper base cannot keep up with live speech on this computer (one decode takes 400% of the 1.5 s "
    "between decodes): caption English instead (--language en), or record and transcribe afterwards "
    "(`livecap transcribe FILE --language de --translate`)"
)


def test_a_language_that_cannot_start_offers_english_captions(window, settings, pack, monkeypatch):
    settings.set(keys.LANGUAGE, "de")
    settings.set(keys.TRANSLATE, True)
    started = []
    monkeypatch.setattr(window, "start", lambda: started.append(window.spec()) or True)
    assert window.bridge.state == IDLE
    window.bridge.error.emit(TOO_SLOW)  # what a start that failed reports
    banner = window.banners.banners["error"]
    assert banner.text == TOO_SLOW
    assert list(banner.buttons)[0] == "Caption English instead"
    banner.buttons["Caption English instead"].click()
    assert settings.get(keys.LANGUAGE) == "en" and not settings.get(keys.TRANSLATE)
    assert [(spec.language, spec.translate) for spec in started] == [("en", False)]
    assert window.banners.text("error") is None


def test_an_english_session_that_cannot_start_offers_no_english_instead(window, settings, pack):
    settings.set(keys.LANGUAGE, "en")
    window.bridge.error.emit("The microphone is gone")
    assert "Caption English instead" not in window.banners.banners["error"].buttons
