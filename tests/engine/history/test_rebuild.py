"""The index is derived: made again from the journals when it is missing, damaged or of another
version, with what the user decided (titles, pins) kept in the journals; private to its owner."""

from __future__ import annotations

import os
import sqlite3

import pytest

from engine.files import paths
from engine.history import HistoryError, HistoryIndex
from engine.history.store import default_index_path
from engine.transcript.journal_reading import read_journal
from tests.engine.history.conftest import days_ago, write_session


@pytest.fixture
def sessions(journal_dir):
    write_session(journal_dir, [("", "The budget meeting went well.")], days_ago(3))
    write_session(
        journal_dir, [("me", "Zebra crossings first."), ("others", "Then the budget.")], days_ago(1)
    )
    return journal_dir


def build_and_decide() -> tuple[str, str]:
    """Open the index, rename one session and pin the other; their ids."""
    with HistoryIndex.open() as index:
        newest, oldest = (s.id for s in index.sessions())
        index.rename(newest, "  Weekly   sync\n")
        index.pin(oldest, True)
    return newest, oldest


def assert_decisions_kept(newest: str, oldest: str) -> None:
    with HistoryIndex.open() as index:
        assert index.session(newest).title == "Weekly sync"
        assert index.session(oldest).pinned
        assert [h.session_id for h in index.search("budget")] == [newest, oldest]


def test_the_index_file_is_private(sessions):
    HistoryIndex.open().close()
    assert default_index_path().stat().st_mode & 0o777 == 0o600


def test_progress_is_told_while_it_builds(sessions):
    seen = []
    HistoryIndex.open(progress=lambda done, total: seen.append((done, total))).close()
    assert seen == [(1, 2), (2, 2)]


def test_titles_and_pins_are_journal_lines_and_survive_the_index_deleted(sessions):
    newest, oldest = build_and_decide()
    assert read_journal(sessions / f"{newest}.jsonl").title == "Weekly sync"
    assert read_journal(sessions / f"{oldest}.jsonl").pinned
    default_index_path().unlink()
    assert_decisions_kept(newest, oldest)


@pytest.mark.parametrize("keep", [0, 100], ids=["all garbage", "garbage after the header"])
def test_a_corrupt_index_is_built_again(sessions, keep):
    newest, oldest = build_and_decide()
    path = default_index_path()
    with open(path, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(keep)
        f.write(os.urandom(size - keep))
    assert_decisions_kept(newest, oldest)


def test_an_index_of_another_schema_version_is_built_again(sessions):
    newest, oldest = build_and_decide()
    conn = sqlite3.connect(default_index_path())
    conn.execute("PRAGMA user_version = 99")
    conn.execute("DELETE FROM sessions")  # what the old version held does not matter
    conn.commit()
    conn.close()
    assert_decisions_kept(newest, oldest)


def test_a_file_that_is_not_an_index_is_replaced(sessions):
    default_index_path().parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(default_index_path())
    conn.execute("CREATE TABLE notes(x)")
    conn.close()
    with HistoryIndex.open() as index:
        assert len(index.sessions()) == 2


def test_reindex_counts_the_words(sessions):
    with HistoryIndex.open() as index:
        assert index.reindex() == 5 + 3 + 3
        assert len(index.search("budget")) == 2


def test_without_fts5_one_line_says_what_to_do(sessions, monkeypatch):
    monkeypatch.setattr("engine.history.store.fts5_available", lambda conn: False)
    with pytest.raises(HistoryError, match="FTS5") as caught:
        HistoryIndex.open()
    assert "\n" not in str(caught.value)


def test_an_unwritable_folder_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(HistoryError, match="cannot create the history index"):
        HistoryIndex.open(blocker / "history.sqlite3", tmp_path)


def test_an_unknown_session_is_a_history_error(sessions):
    with HistoryIndex.open() as index:
        for call in (
            index.session,
            index.delete,
            lambda i: index.rename(i, "x"),
            lambda i: index.pin(i, True),
        ):
            with pytest.raises(HistoryError, match="no session 'session-nope'"):
                call("session-nope")


def test_delete_removes_the_journal_its_sidecar_and_its_rows(sessions):
    with HistoryIndex.open() as index:
        doomed = index.sessions()[0]
        sidecar = doomed.path.with_name(f".{doomed.path.name}.lock")
        sidecar.write_text("")
        index.delete(doomed.id)
        assert not doomed.path.exists() and not sidecar.exists()
        assert [s.id for s in index.sessions()] != [] and doomed.id not in [s.id for s in index.sessions()]
        assert all(h.session_id != doomed.id for h in index.search("budget"))


def test_a_title_too_long_is_refused(sessions):
    with HistoryIndex.open() as index:
        with pytest.raises(HistoryError, match="at most 200 characters"):
            index.rename(index.sessions()[0].id, "x" * 201)


def test_renaming_leaves_nothing_for_sync_to_read_again(sessions, monkeypatch):
    with HistoryIndex.open() as index:
        session = index.sessions()[0]
        index.rename(session.id, "Named")
        read = []
        monkeypatch.setattr("engine.history.index.index_journal", lambda *a, **k: read.append(a))
        index.sync()
        assert read == []


def test_the_default_journal_folder_is_the_per_user_one(sessions):
    with HistoryIndex.open() as index:
        assert index.journal_folder == paths.journal_dir()


def test_reindex_makes_a_file_found_damaged_afresh(sessions, caplog):
    import logging

    from engine.history.store import connect

    newest, oldest = build_and_decide()
    path = default_index_path()
    with open(path, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(4096)  # the schema page kept: the tables' own pages are garbage
        f.write(os.urandom(size - 4096))
    index = HistoryIndex(connect(path, quick_check=False), path, sessions)
    try:
        with caplog.at_level(logging.WARNING, logger="engine.history"):
            assert index.reindex() == 11
        assert "building the history index again" in caplog.text
        assert index.session(newest).title == "Weekly sync" and index.session(oldest).pinned
    finally:
        index.close()
