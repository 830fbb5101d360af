"""Keeping level with the journals: new, grown, cut-off, hand-edited and deleted journals, and
retention, which never deletes a pinned session and takes what it deletes out of the index."""

from __future__ import annotations

import logging
import os
import time

import pytest

from engine.history import HistoryIndex
from engine.history.retention import apply_retention
from engine.transcript.journal_reading import mark_recovered
from tests.engine.history.conftest import days_ago, write_session


def age(path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


def test_a_new_journal_is_found_at_the_next_sync(journal_dir):
    with HistoryIndex.open() as index:
        assert index.sessions() == []
        write_session(journal_dir, [("", "Kangaroo court.")], days_ago(1))
        index.sync()
        assert [h.snippet for h in index.search("kangaroo")] == ["Kangaroo court."]


def test_a_grown_journal_is_read_again(journal_dir):
    writer = write_session(journal_dir, [("", "First words.")], days_ago(1))
    with HistoryIndex.open() as index:
        mark_recovered(writer.path)  # any line added changes its size
        index.sync()
        assert len(index.sessions()) == 1 and index.search("first")


def test_a_hand_deleted_journal_is_dropped(journal_dir):
    gone = write_session(journal_dir, [("", "Walrus talk.")], days_ago(2)).path
    write_session(journal_dir, [("", "Walrus again.")], days_ago(1))
    with HistoryIndex.open() as index:
        gone.unlink()
        index.sync()
        assert [s.path for s in index.sessions()] != [] and gone not in [s.path for s in index.sessions()]
        assert len(index.search("walrus")) == 1


def test_a_cut_off_journal_is_indexed_as_far_as_it_reads(journal_dir, caplog):
    path = write_session(
        journal_dir, [("", "One two three four five six seven eight nine.")], days_ago(1)
    ).path
    lines = path.read_bytes().splitlines(keepends=True)
    # the header, four words, and half of the fifth word's line
    path.write_bytes(b"".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
    with caplog.at_level(logging.WARNING, logger="engine.history"):
        with HistoryIndex.open() as index:
            (session,) = index.sessions()
            assert session.words == 4
            assert index.search("four") and not index.search("five")
    assert "indexed as far as it reads" in caplog.text


def test_garbage_lines_are_skipped_with_a_warning(journal_dir, caplog):
    path = write_session(journal_dir, [("", "Alpha beta gamma.")], days_ago(1)).path
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(2, b"\x00\xffnot json at all\n")
    lines.insert(3, b'{"t": "word", "position": "x"}\n')
    lines.insert(4, b"[1, 2]\n")
    path.write_bytes(b"".join(lines))
    with caplog.at_level(logging.WARNING, logger="engine.history"):
        with HistoryIndex.open() as index:
            assert index.sessions()[0].words == 3
            assert index.search('"alpha beta gamma"')
    assert "3 line(s) could not be read" in caplog.text


def test_retention_never_deletes_a_pinned_session_and_drops_what_it_deletes(journal_dir):
    kept = write_session(journal_dir, [("", "Pinned pelican.")], days_ago(60)).path
    doomed = write_session(journal_dir, [("", "Forgotten pelican.")], days_ago(50)).path
    with HistoryIndex.open() as index:
        index.pin(kept.stem, True)
        age(kept, 60)
        age(doomed, 50)
        assert apply_retention(journal_dir, keep_days=30) == [doomed]
        assert kept.exists() and not doomed.exists()
        # dropped at once, before any sync
        assert [s.id for s in index.sessions()] == [kept.stem]
        assert [h.session_id for h in index.search("pelican")] == [kept.stem]
        index.pin(kept.stem, False)
        age(kept, 60)
        assert apply_retention(journal_dir, keep_days=30) == [kept]
        assert index.sessions() == []


def test_pruning_without_an_index_makes_none(journal_dir):
    from engine.history.store import default_index_path

    doomed = write_session(journal_dir, [("", "Old words.")], days_ago(50)).path
    age(doomed, 50)
    assert apply_retention(journal_dir, keep_days=30) == [doomed]
    assert not default_index_path().exists()


@pytest.mark.parametrize("verb", ["rename", "pin", "delete"])
def test_a_running_session_is_not_changed_behind_its_writer(journal_dir, verb):
    from engine.history import HistoryError

    writer = write_session(journal_dir, [("", "Still talking.")], days_ago(0), close=False)
    try:
        with HistoryIndex.open() as index:
            (session,) = index.sessions()
            assert session.live
            call = {
                "rename": lambda: index.rename(session.id, "x"),
                "pin": lambda: index.pin(session.id, True),
            }
            with pytest.raises(HistoryError, match="still being recorded"):
                call.get(verb, lambda: index.delete(session.id))()
    finally:
        writer.close()
    assert writer.path.exists()
