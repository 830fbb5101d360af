"""The captions window's export of a translated session's transcript (offscreen): the JSON keeps
the language spoken and that the words are an English translation of it, and the WebVTT's NOTE
says so; a session told "auto" exports the language it detected."""

import json
from dataclasses import replace

import pytest

from engine import LanguageDetected
from engine.session.resources import RecognizerInfo
from engine.transcript.transcript import Transcript, TranscriptWord

pytestmark = [pytest.mark.gui]

TRANSLATING = RecognizerInfo(
    "whisper-base", "", "whisper-base", final_marks="recognizer", language="de", translating=True
)


def english_words() -> Transcript:
    tokens = ["Good", "morning.", "The", "weather", "is", "nice", "today."]
    return Transcript(
        [
            TranscriptWord(
                t.rstrip(".").lower(),
                k * 0.5,
                k * 0.5 + 0.4,
                1.0,
                "period" if t.endswith(".") else "none",
                "capitalized" if t[0].isupper() else "lower",
                t.rstrip("."),
                settled=True,
            )
            for k, t in enumerate(tokens)
        ]
    )


def export(window, qtbot, path):
    job = window.text.export_to(path)
    qtbot.waitUntil(lambda: not job.running, timeout=30000)
    assert job.error is None, job.error
    return path.read_text(encoding="utf-8")


def finish(window, qtbot, **kwargs) -> None:
    """The session stopped: its transcript shown as the finished, editable text."""
    with qtbot.waitSignal(window.text.final_shown, timeout=30000):
        window.text.show_final(english_words(), **kwargs)


def test_the_export_of_a_translated_session_keeps_the_language_and_the_translation(window, qtbot, tmp_path):
    window.bridge.ready.emit(TRANSLATING)  # the session started
    window.bridge.recognizer_info = TRANSLATING
    finish(window, qtbot)
    data = json.loads(export(window, qtbot, tmp_path / "out.json"))
    assert data["language"] == "de" and data["translated"] is True
    assert [w["word"] for w in data["words"]][:2] == ["good", "morning"]
    assert "NOTE\nEnglish translation of German speech" in export(window, qtbot, tmp_path / "out.vtt")


def test_a_session_told_auto_exports_the_language_it_detected(window, qtbot, tmp_path):
    auto = replace(TRANSLATING, language=None)
    window.bridge.ready.emit(auto)
    window.bridge.recognizer_info = auto
    with qtbot.waitSignal(window.bridge.language_detected, timeout=5000):
        window.bridge._on_engine_events([LanguageDetected("de", 0.93)])
    finish(window, qtbot)
    # The next session's recognizer is ready before the user exports: the text is still the last one's.
    window.bridge.ready.emit(RecognizerInfo("whisper-tiny.en", "", None, language="en"))
    window.bridge.recognizer_info = RecognizerInfo("whisper-tiny.en", "", None, language="en")
    data = json.loads(export(window, qtbot, tmp_path / "auto.json"))
    assert data["language"] == "de" and data["translated"] is True


def test_a_restored_journal_exports_its_own_language(window, qtbot, tmp_path):
    window.bridge.recognizer_info = RecognizerInfo("whisper-tiny.en", "", None, language="en")
    finish(window, qtbot, english=True, language="de", translated=True)
    data = json.loads(export(window, qtbot, tmp_path / "restored.json"))
    assert data["language"] == "de" and data["translated"] is True


def test_the_history_window_exports_a_sessions_language_and_translation(qtbot, tmp_path):
    from app.history.session_page import SessionPage
    from engine.transcript.journal import read_journal
    from tests.engine.languages.test_export_paths import write_journal

    path = write_journal(tmp_path / "journal", None, detected="de")  # told "auto", heard German
    page = SessionPage(None)
    qtbot.addWidget(page)
    page.contents = read_journal(path)  # as opening the session reads it
    job = page.export_to(tmp_path / "session.json")
    with qtbot.waitSignal(job.finished, timeout=30000):
        pass
    data = json.loads((tmp_path / "session.json").read_text(encoding="utf-8"))
    assert data["language"] == "de" and data["translated"] is True
