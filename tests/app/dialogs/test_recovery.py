"""The recovery dialog's times: local, in the user's locale, never a raw UTC offset."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QDateTime, QLocale

from app.dialogs.recovery import describe, local_started
from engine.transcript.journal import JournalContents

pytestmark = [pytest.mark.gui]


def test_recovery_dialog_shows_the_start_in_local_time_in_the_users_locale(qapp):
    started = datetime(2026, 3, 4, 15, 6, 7, tzinfo=UTC)
    contents = JournalContents(
        Path("session.jsonl"), header={"started": started.isoformat(), "source": "mic"}
    )
    previous = QLocale()
    QLocale.setDefault(QLocale("en_US"))  # a locale with a date format of its own
    try:
        shown = describe(contents)
        stamp = QDateTime.fromSecsSinceEpoch(int(started.timestamp()))
        expected = QLocale().toString(stamp, QLocale.ShortFormat)
    finally:
        QLocale.setDefault(previous)
    assert "+00:00" not in shown and "T15" not in shown and "/26" in expected
    assert shown.startswith(expected + " — "), (shown, expected)
    assert local_started(None) == "unknown time"


def test_under_the_c_locale_the_start_is_iso_8601_not_a_guess_between_day_and_month(qapp):
    previous = QLocale()
    QLocale.setDefault(QLocale.c())  # what LANG=C.UTF-8 gives: Qt's short format reads "4 3 2026 15:06"
    try:
        started = datetime(2026, 3, 4, 15, 6, 7, tzinfo=UTC)
        assert local_started(started.isoformat()) == f"{started.astimezone():%Y-%m-%d %H:%M}"
    finally:
        QLocale.setDefault(previous)


def test_recovery_dialog_names_a_meetings_sources_as_the_user_knows_them(qapp):
    header = {
        "started": "2026-12-07T10:00:00+00:00",
        "source": "livecap_echo_cancelled",
        "others_source": "Zoom",
    }
    shown = describe(JournalContents(Path("session.jsonl"), header=header))
    assert "words from microphone + Zoom" in shown and "livecap_echo" not in shown
