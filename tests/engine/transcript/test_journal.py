"""The session journal: crash recovery with a real SIGKILL, torn lines, withdrawals, fsync cadence."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from engine.events import Appended, Retracted, Settled, Withdrawn
from engine.transcript.journal import JournalWriter, in_use, mark_recovered, read_journal, recover
from engine.words import PUNCT_LABELS, Word

ROOT = Path(__file__).resolve().parents[3]


def event_batches(count: int):
    """A deterministic engine event stream: each batch appends a word and settles the one before;
    every 40th batch the recognizer takes back the last two words (Withdrawn + Retracted)."""
    pos, pending = 0, None  # next position; the appended, unsettled one
    for k in range(count):
        if k % 40 == 39 and pending is not None and pending >= 2:
            cut = pending - 1  # settled; ``pending`` itself was never settled, so only ``cut`` is withdrawn
            yield [Withdrawn(cut), Retracted(cut)]
            pos, pending = cut, None
            continue
        word = Word(f"w{k}", round(k * 0.3, 3), round(k * 0.3 + 0.25, 3), 0.9)
        batch = [Appended(pos, word)]
        if pending is not None:
            mark = PUNCT_LABELS[k % 4]
            batch.append(Settled(pending, mark, "capitalized" if k % 5 == 0 else "lower", 1, f"W{k}", 0.8))
        yield batch
        pos, pending = pos + 1, pos


def expected_after(applied: int) -> list[tuple]:
    """The journal's words after ``applied`` batches, by an independent bookkeeping."""
    appended, settled = {}, {}
    for batch in event_batches(applied):
        for e in batch:
            if isinstance(e, Appended):
                appended[e.position] = e.word
            elif isinstance(e, Settled):
                w = appended[e.position]
                settled[e.position] = (w.text, e.form, e.mark, e.case, w.start, w.end, w.confidence)
            elif isinstance(e, Withdrawn):
                settled.pop(e.position, None)
            elif isinstance(e, Retracted):
                for p in [p for p in settled if p >= e.from_position]:
                    del settled[p]
    return [settled[p] for p in sorted(settled)]


def recovered_rows(contents) -> list[tuple]:
    return [(w.text, w.form, w.mark, w.case, w.start, w.end, w.confidence) for w in contents.transcript.words]


CHILD = """
import sys, time
sys.path[:0] = [{root!r}, {tests!r}]
from engine.transcript.journal import JournalWriter
from tests.engine.transcript.test_journal import event_batches
writer = JournalWriter.create(sys.argv[1], header={{"recognizer": "test", "model": None}})
print("journal", writer.path, flush=True)
for k, batch in enumerate(event_batches(10**6)):
    writer.apply(batch)
    print(k, time.time(), flush=True)  # batch k is in the journal (written and flushed)
    time.sleep(0.004)
"""


def test_sigkill_loses_at_most_the_last_second(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT), tests=str(ROOT / "tests")), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
    reader.start()
    time.sleep(2.5)
    kill_time = time.time()
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    reader.join(10)
    assert child.returncode == -signal.SIGKILL
    path = Path(lines[0].split(" ", 1)[1].strip())
    # The kill can land mid-print: a last line without its newline is a report cut short, not one made.
    reported = [line for line in lines[1:] if line.endswith("\n")]
    stamps = [(int(k), float(t)) for k, t in (line.split() for line in reported)]
    assert len(stamps) > 100, "the child wrote too little to test anything"
    last = stamps[-1][0]
    before_last_second = max(k for k, t in stamps if t <= kill_time - 1.0)

    assert in_use(path) is False  # the dead writer's lock went with it
    [contents] = recover(tmp_path)
    assert contents.path == path and not contents.closed and contents.header["recognizer"] == "test"
    rows = recovered_rows(contents)
    # Exact: the journal holds precisely the first j batches, where j covers every batch the child
    # reported (and perhaps one it wrote but could not report before it died).
    matches = [j for j in (last + 1, last + 2) if rows == expected_after(j)]
    assert matches, f"recovered {len(rows)} words, not the state after batch {last} or {last + 1}"
    assert matches[0] >= before_last_second + 1  # so at most the last second was lost (here: nothing)
    assert len(rows) > 50

    mark_recovered(path)
    assert recover(tmp_path) == []
    assert read_journal(path).recovered


def _write_words(writer: JournalWriter, count: int) -> None:
    for batch in event_batches(count):
        writer.apply(batch)


def test_withdrawals_are_applied_and_clean_close_is_not_offered(tmp_path):
    writer = JournalWriter.create(tmp_path, header={"recognizer": "pocketsphinx", "model": "built-in"})
    _write_words(writer, 100)  # includes two take-backs (batches 39 and 79)
    assert writer.words == len(expected_after(100))
    writer.close()
    contents = read_journal(writer.path)
    assert contents.closed and not contents.recovered and contents.skipped_lines == 0
    assert recovered_rows(contents) == expected_after(100)
    assert contents.header["model"] == "built-in" and contents.started
    assert recover(tmp_path) == []  # a clean shutdown needs no recovery
    lines = [json.loads(line) for line in writer.path.read_text().splitlines()]
    assert lines[0]["t"] == "header" and lines[-1] == {**lines[-1], "t": "closed", "words": writer.words}
    assert {"withdrawn", "retracted", "word"} <= {line["t"] for line in lines}
    assert not any(p.name.endswith(".lock") for p in tmp_path.iterdir())


def test_torn_last_line_is_ignored_and_marking_recovered_survives_it(tmp_path):
    path = tmp_path / "session-20260101-120000.jsonl"
    rows = [
        {"t": "header", "version": 1, "started": "2026-01-01T12:00:00+00:00", "recognizer": "vosk"},
        {
            "t": "word",
            "position": 0,
            "text": "hello",
            "form": "Hello",
            "mark": "comma",
            "case": "capitalized",
            "start": 0.5,
            "end": 0.9,
            "confidence": 0.95,
        },
        {
            "t": "word",
            "position": 1,
            "text": "world",
            "form": "world",
            "mark": "period",
            "case": "lower",
            "start": 1.0,
            "end": 1.4,
            "confidence": 0.9,
        },
    ]
    torn = '{"t": "word", "position": 2, "text": "ag'
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + torn)
    [contents] = recover(tmp_path)
    assert contents.transcript.text() == "Hello, world."
    assert contents.skipped_lines == 1
    assert contents.transcript.words[0].start == 0.5 and contents.transcript.has_times
    mark_recovered(path)
    assert recover(tmp_path) == []
    again = read_journal(path)
    assert again.recovered and again.transcript.text() == "Hello, world." and again.skipped_lines == 1


def test_a_running_session_is_not_offered_for_recovery(tmp_path):
    writer = JournalWriter.create(tmp_path)
    _write_words(writer, 10)
    try:
        assert in_use(writer.path)
        assert recover(tmp_path) == []
    finally:
        writer.close()


def test_two_journals_in_the_same_second_get_different_files(tmp_path):
    a, b = JournalWriter.create(tmp_path), JournalWriter.create(tmp_path)
    try:
        assert a.path != b.path and a.path.name.startswith("session-") and b.path.suffix == ".jsonl"
    finally:
        a.close()
        b.close()


def test_fsync_follows_a_write_and_only_a_write(tmp_path, monkeypatch):
    synced: list[float] = []
    real_fsync = os.fsync

    def recording_fsync(fd):
        synced.append(time.monotonic())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    writer = JournalWriter.create(tmp_path)
    try:
        synced.clear()
        writer.apply(next(iter(event_batches(1))))  # appended only: nothing settled, nothing written
        time.sleep(1.3)
        assert synced == []  # nothing new to sync, so no needless disk flushes
        _write_words(writer, 3)
        deadline = time.monotonic() + 30.0
        while not synced and time.monotonic() < deadline:
            time.sleep(0.02)
        assert synced  # the timer syncs what was written, without a further write
        assert writer.fsync_interval <= 1.0  # the most a power cut may lose
    finally:
        writer.close()


def test_a_failing_disk_is_reported_once_not_raised(tmp_path, monkeypatch):
    errors = []
    writer = JournalWriter.create(tmp_path, on_error=errors.append)

    class Full:
        def write(self, text):
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(real, name)

    real = writer._file
    writer._file = Full()
    _write_words(writer, 5)
    writer._file = real
    writer.close()
    assert len(errors) == 1 and "No space left on device" in errors[0]


def test_the_recognizers_writing_is_journaled_so_a_recovered_session_can_fold_it_in_again(tmp_path):
    writer = JournalWriter.create(tmp_path, header={"recognizer": "whisper", "model": "tiny.en"})
    words = [
        Word("hello", 0.0, 0.4, 0.9, "Hello,"),
        Word("world", 0.5, 0.9, 0.9, "world."),
        Word("ok", 1.0, 1.2),
    ]
    writer.apply([Appended(k, w) for k, w in enumerate(words)])
    writer.apply([Settled(k, "none", "lower", 1, w.text, 0.8) for k, w in enumerate(words)])
    writer.close(clean=False)
    recovered = read_journal(writer.path).transcript.words
    assert [w.written for w in recovered] == ["Hello,", "world.", ""]
    assert [w.heard for w in recovered] == words  # the whole word comes back, every field of it
    lines = [json.loads(line) for line in writer.path.read_text().splitlines()]
    assert "written" not in [line for line in lines if line.get("text") == "ok"][0]  # none: no key


def test_the_last_word_settled_again_at_the_end_is_journaled_with_its_final_mark(tmp_path):
    """The end of a session ends its last sentence: the decoder settles the last word once more
    (``StreamingDecoder.finish``), and a recovered journal must hold that mark, not the first."""
    writer = JournalWriter.create(tmp_path)
    words = [Word("we", 0.0, 0.3), Word("are", 0.4, 0.6), Word("done", 0.7, 1.0)]
    writer.apply([Appended(k, w) for k, w in enumerate(words)])
    writer.apply([Settled(k, "none", "lower", 1, w.text) for k, w in enumerate(words)])
    writer.apply([Settled(2, "period", "lower", 0, "done")])
    writer.close()
    contents = read_journal(writer.path)
    assert contents.closed and writer.words == 3
    assert [(w.text, w.mark) for w in contents.transcript.words] == [
        ("we", "none"),
        ("are", "none"),
        ("done", "period"),
    ]
    assert [(w.start, w.end) for w in contents.transcript.words] == [(w.start, w.end) for w in words]
    # Every journaled word settled: a later punctuation pass keeps its mark (``repunctuate``).
    assert all(w.settled for w in contents.transcript.words)
