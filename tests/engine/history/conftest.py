"""What the history tests share: journals written by the real ``JournalWriter``, word by word
as the engine settles them, each word 0.5 s after the one before (word k starts at k / 2 s)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from engine.events import Appended, Settled
from engine.transcript.journal import JournalWriter
from engine.words import Word

WORD_SECONDS = 0.5
MARKS = {".": "period", "?": "question", ",": "comma"}


def settle(writer: JournalWriter, position: int, token: str, speaker: str = "") -> None:
    """Journal ``token`` ("Budget," → form Budget, mark comma) at ``position``, as the engine would."""
    mark = MARKS.get(token[-1], "none")
    form = token.rstrip(".,?")
    word = Word(form.lower(), position * WORD_SECONDS, position * WORD_SECONDS + 0.4, speaker=speaker)
    case = "capitalized" if form[:1].isupper() else "lower"
    writer.apply([Appended(position, word), Settled(position, mark, case, 1, form)])


def write_session(
    folder: Path,
    turns: list[tuple[str, str]],
    started: datetime | None = None,
    observer=None,
    close: bool = True,
) -> JournalWriter:
    """A session of ``turns`` ((speaker id, text), "" for a one-source session) started at
    ``started`` (default: now), closed unless ``close`` is False."""
    started = started or datetime.now().astimezone().replace(microsecond=0)
    header = {"started": started.isoformat(), "recognizer": "vosk", "model": "test", "source": "mic"}
    if any(speaker for speaker, _ in turns):
        header["others_source"] = "app:Meeting"
    folder.mkdir(parents=True, exist_ok=True)
    name = f"session-{started:%Y%m%d-%H%M%S}.jsonl"
    writer = JournalWriter(folder / name, header, fsync_interval=3600, observer=observer)
    position = 0
    for speaker, text in turns:
        for token in text.split():
            settle(writer, position, token, speaker)
            position += 1
    if close:
        writer.close()
    return writer


def days_ago(days: float) -> datetime:
    return (datetime.now().astimezone() - timedelta(days=days)).replace(microsecond=0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    """livecap's data folder for this test alone: the default journal folder and index live here."""
    folder = tmp_path / "data"
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def journal_dir(data_dir) -> Path:
    from engine.files import paths

    folder = paths.journal_dir()
    folder.mkdir(parents=True)
    return folder
