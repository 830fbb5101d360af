"""``livecap history``, run in-process as ``main([...])``: every mistake is one line and exit 2."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest

from engine.cli.history import parse_time
from engine.cli.main import main
from engine.history import HistoryIndex
from tests.engine.history.conftest import days_ago, write_session

MEETING = [
    ("me", "Good morning everyone. The budget is ready."),
    ("others", "Great, the budget looks fine to me."),
]


@pytest.fixture
def session_id(journal_dir) -> str:
    write_session(journal_dir, [("", "An older talk about nothing much.")], days_ago(20))
    session = write_session(journal_dir, MEETING, days_ago(1)).path.stem
    HistoryIndex.open().close()  # built already: its progress is a first run's only
    return session


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["history", *args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("livecap: "), err
    for word in words:
        assert word in lines[0]


def test_list_shows_every_session_newest_first(capsys, session_id):
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith(session_id) and "(Me, Others)" in lines[0]
    code, out, _ = run(capsys)  # list is the default
    assert code == 0 and out.splitlines() == lines
    code, out, _ = run(capsys, "list", "--json")
    sessions = json.loads(out)
    assert [s["id"] for s in sessions][0] == session_id and sessions[0]["words"] == 14


def test_search_prints_where_and_json_has_the_spans(capsys, session_id):
    code, out, _ = run(capsys, "search", "budget", "--speaker", "others")
    assert code == 0
    (line,) = out.splitlines()
    assert line.startswith(session_id) and "Others: Great, the budget looks fine to me." in line
    code, out, _ = run(capsys, "search", '"budget is"', "--json", "--since", "7d", "--limit", "5")
    (hit,) = json.loads(out)
    start, end = hit["spans"][0]
    assert hit["snippet"][start:end] == "budget is" and hit["session_id"] == session_id
    assert hit["position"] == 4 and hit["time_s"] == 2.0


def test_no_match_is_not_an_error(capsys, session_id):
    code, out, err = run(capsys, "search", "zeppelin")
    assert code == 0 and out == "" and "zeppelin" in err


@pytest.mark.parametrize(
    "args, words",
    [
        (["search", '"budget is'], ["unbalanced quote"]),
        (["search", "budget", "--since", "last tuesday"], ["--since", "not a date"]),
        (["search", "budget", "--limit", "0"], ["--limit"]),
        (["show", "session-nope"], ["no session 'session-nope'"]),
        (["show", "{id}", "--at", "1:75"], ["--at", "not a time"]),
        (["show", "{id}", "--at", "9:00:00"], ["--at", "long"]),
        (["export", "session-nope", "-o", "{tmp}/out.srt"], ["no session"]),
        (["export", "{id}", "-o", "{tmp}/no/such/folder/out.srt"], ["does not exist"]),
        (["export", "{id}", "-o", "{tmp}/out.doc"], ["unknown extension .doc"]),
        (["delete", "session-nope", "--yes"], ["no session"]),
        (["delete", "{id}"], ["--yes"]),  # not a terminal: nobody to ask
    ],
)
def test_each_mistake_is_one_line_and_exit_2(capsys, session_id, tmp_path, args, words):
    args = [a.format(id=session_id, tmp=tmp_path) for a in args]
    one_line_error(*run(capsys, *args), *words)


def test_export_writes_a_valid_srt_and_refuses_to_overwrite(capsys, session_id, tmp_path):
    target = tmp_path / "meeting.srt"
    code, _, err = run(capsys, "export", session_id, "-o", str(target))
    assert code == 0 and str(target) in err
    cues = target.read_text().strip().split("\n\n")
    stamp = r"\d\d:\d\d:\d\d,\d\d\d"
    for number, cue in enumerate(cues, start=1):
        lines = cue.splitlines()
        assert lines[0] == str(number)
        assert re.fullmatch(f"{stamp} --> {stamp}", lines[1])
        assert 1 <= len(lines[2:]) <= 2
    assert cues[0].splitlines()[2].startswith("Me: Good morning")
    assert "Others: Great, the" in target.read_text()
    one_line_error(*run(capsys, "export", session_id, "-o", str(target)), "already exists", "--overwrite")
    assert run(capsys, "export", session_id, "-o", str(target), "--overwrite")[0] == 0


def test_show_prints_the_transcript_from_around_a_time(capsys, session_id):
    code, out, _ = run(capsys, "show", session_id)
    assert code == 0 and "[0:00] Me: Good morning everyone." in out and "Others: Great" in out
    code, out, _ = run(capsys, "show", f"{session_id}.jsonl", "--at", "0:04")
    assert code == 0 and "Good morning" not in out and "[0:03] Others: Great, the budget" in out


def test_delete_with_yes_deletes(capsys, session_id, journal_dir):
    code, _, err = run(capsys, "delete", session_id, "--yes")
    assert code == 0 and "Deleted" in err
    assert not (journal_dir / f"{session_id}.jsonl").exists()
    _, out, _ = run(capsys, "list")
    assert session_id not in out


def test_delete_asks_on_a_terminal(capsys, session_id, journal_dir, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda question: "n")
    assert run(capsys, "delete", session_id)[0] == 0
    assert (journal_dir / f"{session_id}.jsonl").exists()
    monkeypatch.setattr("builtins.input", lambda question: "y")
    assert run(capsys, "delete", session_id)[0] == 0
    assert not (journal_dir / f"{session_id}.jsonl").exists()


def test_the_first_run_builds_the_index_with_progress_on_stderr(capsys, journal_dir):
    write_session(journal_dir, MEETING, days_ago(1))
    code, out, err = run(capsys, "list")
    assert code == 0 and "indexing sessions" in err and len(out.splitlines()) == 1
    one_line_error(*run(capsys, "search", '"budget'), "unbalanced quote")


def test_reindex_reports_progress_on_stderr(capsys, session_id):
    code, out, err = run(capsys, "reindex")
    assert code == 0 and "Indexed 20 words of 2 sessions" in out and "indexing sessions" in err
    code, out, err = run(capsys, "reindex")  # again, over the index it made
    assert code == 0 and "Indexed 20 words of 2 sessions" in out


@pytest.mark.parametrize("text, seconds", [("90", 90), ("1:30", 90), ("1:01:30", 3690), ("2.5", 2.5)])
def test_times_are_read_as_seconds_mm_ss_or_hh_mm_ss(text, seconds):
    assert parse_time(text) == seconds


def test_a_session_is_as_long_as_its_audio_in_list_show_and_search(capsys, journal_dir):
    """A file of 20.9 s decoded in 5 s: its length is the audio's, the clock its hits and ``--at``
    read, not the 5 s from its start to its close."""
    words = " ".join(f"word{k}" for k in range(41)) + " budget."
    started = (datetime.now().astimezone() - timedelta(seconds=5)).replace(microsecond=0)
    session = write_session(journal_dir, [("", words)], started).path.stem
    code, out, _ = run(capsys, "list")
    assert code == 0 and out.split()[3] == "0:20", out  # id, day, time, length
    _, out, _ = run(capsys, "list", "--json")
    assert json.loads(out)[0]["duration_s"] == 20.9
    _, out, _ = run(capsys, "search", "budget")
    assert "at    0:20" in out
    _, out, _ = run(capsys, "show", session)
    assert out.splitlines()[0].endswith(", 0:20, 42 words")
    assert run(capsys, "show", session, "--at", "0:20")[0] == 0
    one_line_error(*run(capsys, "show", session, "--at", "0:21"), "is only 0:20 long")


def test_show_at_a_time_starts_at_the_sentence_said_then(capsys, journal_dir):
    """One paragraph of four sentences: ``--at`` starts at the sentence that holds the time, with
    that sentence's time, not at the paragraph's start."""
    text = "First we met. Then we planned the budget. After that we ate lunch. Finally we went home."
    session = write_session(journal_dir, [("", text)], days_ago(1)).path.stem
    _, out, _ = run(capsys, "show", session)
    assert len(out.split("\n\n")) == 2  # the header, and one paragraph
    code, out, _ = run(capsys, "show", session, "--at", "0:05")  # "After" starts at 4.0 s
    assert code == 0
    assert out.split("\n\n")[1:] == ["[0:04] After that we ate lunch. Finally we went home.\n"]
    _, out, _ = run(capsys, "show", session, "--at", "1.4")  # before the second sentence starts
    assert out.split("\n\n")[1].startswith("[0:00] First we met. Then")
