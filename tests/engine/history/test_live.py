"""The running session, searchable as its words settle: ``LiveIndexer`` beside the journal writer.

What it writes must be what reading the journal whole gives (the full index is the reference),
and nothing it meets (a full disk, a locked index, a burst of lines) may stop the journal."""

from __future__ import annotations

import logging
import sqlite3
import threading

import pytest

from engine.events import Retracted, SpeakersLabelled, Withdrawn
from engine.history import HistoryIndex, LiveIndexer
from engine.history.store import chunk_range, default_index_path
from engine.speakers.labels import SpeakerNames
from engine.transcript.journal import JournalWriter
from engine.transcript.journal_reading import read_journal
from tests.engine.history.conftest import settle

HEADER = {"recognizer": "vosk", "model": "test", "source": "mic", "others_source": "app:Meeting"}
VOCABULARY = "ocelot budget schedule river lantern copper meadow violin harbor pepper".split()


def token(k: int) -> str:
    word = VOCABULARY[k % len(VOCABULARY)] + str(k)
    return word + "." if k % 11 == 10 else word  # sentences of eleven words


def start(journal_dir, **options) -> tuple[JournalWriter, LiveIndexer]:
    HistoryIndex.open().close()  # the index exists, as after the History window was opened once
    live = LiveIndexer(**options)
    return JournalWriter.create(journal_dir, HEADER, fsync_interval=3600, observer=live), live


def speak(writer: JournalWriter, first: int, count: int, speaker: str = "me") -> int:
    for k in range(first, first + count):
        settle(writer, k, token(k), speaker)
    return first + count


def chunk_rows(session_id: str) -> list[tuple]:
    """The session's chunks as the index holds them, speakers by name (their numbers may differ)."""
    conn = sqlite3.connect(default_index_path())
    try:
        (sid,) = conn.execute("SELECT sid FROM sessions WHERE id = ?", (session_id,)).fetchone()
        conn.execute("INSERT INTO chunk_text(chunk_text) VALUES ('integrity-check')")  # FTS in step
        return conn.execute(
            "SELECT c.rowid - ?, s.name, c.text, c.words FROM chunks c LEFT JOIN speakers s"
            " ON s.sid = ? AND s.number = c.speaker WHERE c.rowid BETWEEN ? AND ? ORDER BY c.rowid",
            (chunk_range(sid)[0], sid, *chunk_range(sid)),
        ).fetchall()
    finally:
        conn.close()


def test_the_live_session_is_found_from_another_thread_while_it_runs(journal_dir):
    writer, live = start(journal_dir, commit_interval=0.05)
    with HistoryIndex.open() as index:
        position = speak(writer, 0, 30)
        assert live.flush()
        found = []

        def search_elsewhere():  # its own connection, on its own thread
            with HistoryIndex.open() as other:
                found.extend(other.search("ocelot2*"))

        searcher = threading.Thread(target=search_elsewhere)
        searcher.start()
        position = speak(writer, position, 30)  # the session goes on meanwhile
        searcher.join()
        assert [h.position for h in found] == [20]
        assert found[0].time_s == pytest.approx(10.0)
        assert found[0].speaker == "Me"
        (session,) = index.sessions()
        assert session.live and session.words >= 30
        assert session.duration_s == pytest.approx((session.words - 1) * 0.5 + 0.4)  # the audio's
        assert live.flush()
        assert [h.position for h in index.search("ocelot50")] == [50]
        writer.close()
        (session,) = index.sessions()
        assert not session.live and session.words == 60
        assert session.duration_s == pytest.approx(29.9)  # the last word's end, not the seconds it ran
    conn = sqlite3.connect(default_index_path())
    size, owner = conn.execute("SELECT size, owner FROM sessions").fetchone()
    conn.close()
    assert (size, owner) == (writer.path.stat().st_size, None)  # nothing left for a sync to read


def test_what_it_writes_is_what_reading_the_journal_whole_gives(journal_dir):
    writer, live = start(journal_dir, commit_words=40)
    position = 0
    for turn in range(40):
        speaker = ("me", "others:1", "others:2")[turn % 3]
        position = speak(writer, position, 37 + turn % 5, speaker)
        if turn % 4 == 1:  # the recognizer takes back the last two words
            writer.apply([Withdrawn(position - 2), Withdrawn(position - 1), Retracted(position - 2)])
            position -= 2
        if turn % 5 == 2:  # a voice told apart late: a few words of the turn relabelled
            writer.apply([SpeakersLabelled(((position - 3, "others:3"), (position - 1, "others:3")), 0)])
        if turn % 7 == 3:
            live.flush()
        if turn == 38:  # a withdrawal far behind what the indexer keeps: it reads the journal
            writer.apply([Withdrawn(7)])
    writer.name_speakers(SpeakerNames(renamed={"others:3": "Bo"}))
    writer.close()
    assert live.failed is None
    session_id = writer.path.stem
    live_rows = chunk_rows(session_id)
    with HistoryIndex.open() as index:
        live_summary = index.session(session_id)
        index.reindex()
        assert chunk_rows(session_id) == live_rows
        full = index.session(session_id)
        assert (live_summary.words, live_summary.first_line) == (full.words, full.first_line)
        assert set(live_summary.speakers) == set(full.speakers) and "Bo" in full.speakers
        assert full.words == len(read_journal(writer.path).transcript.words)


def test_a_burst_the_queue_cannot_hold_is_read_from_the_journal(journal_dir):
    HistoryIndex.open().close()
    blocker = sqlite3.connect(default_index_path(), isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # the indexer waits for it; the writer must not
    live = LiveIndexer(queue_batches=2)
    writer = JournalWriter.create(journal_dir, HEADER, fsync_interval=3600, observer=live)
    speak(writer, 0, 100)
    assert live._queue.full()  # most of the lines were dropped: only the journal has them
    blocker.execute("COMMIT")
    blocker.close()
    assert live.flush()
    with HistoryIndex.open() as index:
        assert [h.position for h in index.search("ocelot90")] == [90]
        assert index.sessions()[0].words == 100
    writer.close()


def test_a_full_disk_stops_the_indexer_once_never_the_journal(journal_dir, monkeypatch, caplog):
    import engine.history.live as live_module

    real_connect = live_module.connect

    def tiny_disk(*args, **kwargs):
        conn = real_connect(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        return conn

    monkeypatch.setattr(live_module, "connect", tiny_disk)
    writer, live = start(journal_dir, commit_words=50)
    with caplog.at_level(logging.WARNING, logger="engine.history.live"):
        speak(writer, 0, 2000)
        assert not live.flush()
        writer.close()
    assert "database or disk is full" in live.failed
    assert len([r for r in caplog.records if r.name == "engine.history.live"]) == 1
    assert writer.error is None
    assert len(read_journal(writer.path).transcript.words) == 2000
    with HistoryIndex.open() as index:  # the next time the history opens, it catches up
        assert index.sessions()[0].words == 2000
        assert [h.position for h in index.search("ocelot1990")] == [1990]


def test_a_locked_index_stops_the_indexer_never_the_journal(journal_dir, monkeypatch):
    monkeypatch.setattr("engine.history.store.BUSY_TIMEOUT_S", 0.05)
    writer, live = start(journal_dir)
    blocker = sqlite3.connect(default_index_path(), isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    speak(writer, 0, 50)
    assert not live.flush()
    blocker.execute("COMMIT")
    blocker.close()
    writer.close()
    assert "locked" in live.failed
    assert len(read_journal(writer.path).transcript.words) == 50
    with HistoryIndex.open() as index:
        assert index.sessions()[0].words == 50


@pytest.mark.parametrize("flushed", [True, False], ids=["row made", "closed at once"])
def test_a_session_without_words_leaves_no_row_and_no_warning(journal_dir, caplog, flushed):
    writer, live = start(journal_dir)
    if flushed:
        assert live.flush()
    with caplog.at_level(logging.WARNING, logger="engine.history"):
        writer.close()  # the writer deletes a journal without words
    assert caplog.text == "" and live.failed is None
    conn = sqlite3.connect(default_index_path())
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    conn.close()


def test_sessions_built_for_the_per_user_folder_are_followed(data_dir, tmp_path):
    from engine.session.build import SessionSpec, _open_journal

    for spec, followed in (
        (SessionSpec(), True),
        (SessionSpec(history_index=False), False),
        (SessionSpec(journal_dir=tmp_path / "elsewhere"), False),  # not the folder the index covers
    ):
        journal, _ = _open_journal(spec, {"recognizer": "vosk"})
        try:
            assert isinstance(journal.observer, LiveIndexer) == followed
        finally:
            journal.close()
