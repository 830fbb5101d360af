"""Journals are private, do not pile up, and a folder that cannot be written never stops a session."""

import os
import stat
import tempfile
import time
from pathlib import Path

from engine.events import Appended, Settled
from engine.files import paths
from engine.transcript.journal import JournalWriter, mark_recovered, read_journal
from engine.transcript.journal_folder import (
    DEFAULT_KEEP_DAYS,
    choose_journal_folder,
    prune_journals,
)
from engine.words import Word

DAY = 86400


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def journal_with_words(folder: Path, words: int, clean: bool = True) -> Path:
    writer = JournalWriter.create(folder, header={"source": "test"}, fsync_interval=60)
    for k in range(words):
        writer.apply(
            [Appended(k, Word(f"w{k}", k * 0.5, k * 0.5 + 0.4)), Settled(k, "none", "lower", 1, f"w{k}")]
        )
    if clean:
        writer.close()
    else:  # a crash: the file stays as it was, unfinished (the lock goes with the "process")
        writer._stop.set()
        writer._file.close()
        writer._release_lock()
    return writer.path


def age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then))


def test_journal_files_and_their_folder_are_readable_by_their_owner_only(tmp_path):
    old = os.umask(0o022)  # the usual umask: without the fix, files came out 0644, folders 0755
    try:
        path = journal_with_words(tmp_path / "journal", 3)
    finally:
        os.umask(old)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700


def test_the_default_folder_made_by_an_older_version_is_tightened(tmp_path, monkeypatch):
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path))
    (tmp_path / "journal").mkdir(mode=0o755)
    os.chmod(tmp_path / "journal", 0o755)
    assert choose_journal_folder().path == tmp_path / "journal"
    assert mode(tmp_path / "journal") == 0o700


def test_a_session_without_words_leaves_no_journal(tmp_path):
    empty = journal_with_words(tmp_path, 0)
    assert not empty.exists() and not list(tmp_path.iterdir())  # its lock sidecar is gone too
    kept = journal_with_words(tmp_path, 2)
    assert read_journal(kept).closed and len(read_journal(kept).transcript.words) == 2


def test_prune_keeps_recent_sessions_and_deletes_old_and_empty_ones(tmp_path):
    assert DEFAULT_KEEP_DAYS == 30
    recent = journal_with_words(tmp_path, 2)
    old = journal_with_words(tmp_path, 2)
    age(old, 31)
    crashed = journal_with_words(tmp_path, 2, clean=False)
    age(crashed, 10)
    crashed_empty = journal_with_words(tmp_path, 0, clean=False)
    expired_crash = journal_with_words(tmp_path, 2, clean=False)
    age(expired_crash, 40)
    recovered_long_ago = journal_with_words(tmp_path, 2, clean=False)
    mark_recovered(recovered_long_ago)  # recovery counts as a change: the period starts again
    age(crashed_empty, 1)

    deleted = prune_journals(tmp_path)
    assert set(deleted) == {old, crashed_empty, expired_crash}
    assert all(not p.exists() for p in deleted)
    assert {p for p in tmp_path.glob("session-*.jsonl")} == {recent, crashed, recovered_long_ago}
    assert not any((tmp_path / f".{p.name}.lock").exists() for p in deleted)
    # Days are a setting: 0 keeps nothing finished, None keeps everything with words.
    assert prune_journals(tmp_path, keep_days=None) == []
    age(recent, 0.5)
    age(recovered_long_ago, 0.5)
    assert set(prune_journals(tmp_path, keep_days=0.25)) == {recent, recovered_long_ago, crashed}


def test_a_running_session_is_never_pruned(tmp_path):
    writer = JournalWriter.create(tmp_path, header={}, fsync_interval=60)
    age(writer.path, 99)
    assert prune_journals(tmp_path) == []  # no words yet and "old", but still being written
    writer.close()


def test_an_unwritable_folder_falls_back_to_the_runtime_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    chosen = choose_journal_folder("/proc/livecap-journal")
    expected = tmp_path / "run" / "livecap" / f"journal-{paths.data_dir_key()}"
    assert chosen.path == expected and mode(chosen.path) == 0o700
    assert "cannot write journals to /proc/livecap-journal" in chosen.notice
    assert str(chosen.path) in chosen.notice and "livecap recover finds it there" in chosen.notice


def test_then_to_a_private_temporary_folder_then_to_none(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/proc")  # set, but not writable
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    chosen = choose_journal_folder("/proc/livecap-journal")
    # One stable per-user folder, so that recover and the next start find it again.
    assert chosen.path == tmp_path / f"livecap-{os.getuid()}" / f"journal-{paths.data_dir_key()}"
    assert mode(chosen.path) == mode(chosen.path.parent) == 0o700 and str(chosen.path) in chosen.notice
    assert choose_journal_folder("/proc/livecap-journal").path == chosen.path
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"livecap-{os.getuid()}"]
    monkeypatch.setattr(tempfile, "tempdir", "/proc")
    chosen = choose_journal_folder("/proc/livecap-journal")
    assert chosen.path is None and chosen.recovery_off
    assert "cannot write journals to /proc/livecap-journal" in chosen.notice
    assert "crash recovery is off" in chosen.notice


def test_each_data_folder_has_a_fallback_folder_of_its_own(tmp_path, monkeypatch):
    """Another data folder (a test's, a portable install's) never journals into, lists or prunes
    this one's fallback sessions; the same folder by another name finds its own again."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path / "a"))
    first = choose_journal_folder("/proc/livecap-journal").path
    (tmp_path / "link").symlink_to(tmp_path / "a")
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path / "link"))
    assert choose_journal_folder("/proc/livecap-journal").path == first
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path / "b"))
    second = choose_journal_folder("/proc/livecap-journal").path
    assert second != first and second.parent == first.parent == paths.temp_user_dir()
    assert mode(second) == mode(first) == 0o700
