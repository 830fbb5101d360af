"""Fixtures for the History window's tests: real journals written by the real ``JournalWriter``,
a real SQLite index in the test's folder, settings in an INI file there too."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from app.settings import AppSettings
from engine.events import Appended, Settled
from engine.files import paths
from engine.transcript.journal import JournalWriter
from engine.words import Word

NOW = datetime.now().astimezone().replace(microsecond=0)


def write_session(
    folder: Path, started: datetime, lines: list[tuple[str, str]], source: str = "Built-in Microphone"
) -> Path:
    """A closed session journal: ``lines`` of (speaker, sentence), spoken from ``started``, each
    word 0.4 s after the one before and a second between sentences; every word settled, each
    sentence capitalised and ended with a period. Speaker "" is a one-source session's."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / started.strftime("session-%Y%m%d-%H%M%S.jsonl")
    header = {
        "started": started.isoformat(timespec="seconds"),
        "recognizer": "whisper-tiny.en",
        "source": source,
    }
    writer = JournalWriter(path, header, fsync_interval=60)
    events, position, clock = [], 0, 0.0
    for speaker, sentence in lines:
        words = sentence.split()
        for k, text in enumerate(words):
            word = Word(text.lower(), round(clock, 2), round(clock + 0.3, 2), speaker=speaker)
            mark = "period" if k == len(words) - 1 else "none"
            case, form = ("capitalized", text.capitalize()) if k == 0 else ("lower", text.lower())
            events += [Appended(position, word), Settled(position, mark, case, 1, form)]
            position += 1
            clock += 0.4
        clock += 1.0
    writer.apply(events)
    writer.close()
    ended = started.timestamp() + clock
    os.utime(path, (ended, ended))
    return path


FILLER = [
    "we looked at the numbers for the quarter",
    "the team shipped the new onboarding flow",
    "support tickets went down a little this month",
    "next we talk about hiring for the autumn",
    "the office move is planned for spring",
    "nobody had questions about the roadmap",
]


def filler(count: int, speaker: str = "") -> list[tuple[str, str]]:
    return [(speaker, FILLER[k % len(FILLER)]) for k in range(count)]


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))  # nothing real touched
    return tmp_path / "data"


@pytest.fixture
def journal_folder(tmp_path, data_dir) -> Path:
    folder = tmp_path / "journal"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def meetings(journal_folder) -> dict[str, Path]:
    """Three sessions: last week's meeting (Me and Others, the budget phrase deep inside it), a
    one-source lecture two days ago, and this morning's stand-up."""
    week_ago = NOW - timedelta(days=7)
    budget = (
        filler(30, "me")
        + [("others:1", "the marketing budget was approved yesterday by finance")]
        + filler(30, "others:1")
    )
    return {
        "meeting": write_session(journal_folder, week_ago, budget, source="Meeting"),
        "lecture": write_session(
            journal_folder,
            NOW - timedelta(days=2),
            [("", "photosynthesis turns light into sugar")] + filler(8),
        ),
        "standup": write_session(journal_folder, NOW - timedelta(hours=3), filler(4, "me")),
    }


@pytest.fixture
def settings(tmp_path) -> AppSettings:
    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def make_window(qtbot, settings, journal_folder, tmp_path):
    from app.history.window import HistoryWindow

    def make(**kwargs):
        window = HistoryWindow(
            kwargs.pop("settings", settings),
            journal_folder=journal_folder,
            index_path=tmp_path / "history" / "index.sqlite",
            **kwargs,
        )
        qtbot.addWidget(window, before_close_func=finish)
        return window

    def finish(window):  # the index closes on its own thread before the window goes
        window.shutdown()
        window.client.wait(30000)
        QThreadPool.globalInstance().waitForDone(30000)

    return make


@pytest.fixture
def window(make_window, meetings, qtbot):
    """The window, shown, with the three sessions listed."""
    w = make_window()
    with qtbot.waitSignal(w.sessions_shown, timeout=30000):
        w.show()
    return w
