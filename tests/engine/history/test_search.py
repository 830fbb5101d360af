"""Searching the history: words, phrases, prefixes, plain typing; filters; where a hit is."""

from __future__ import annotations

import threading

import pytest

from engine.history import HistoryIndex, HistoryQueryError
from tests.engine.history.conftest import WORD_SECONDS, days_ago, write_session

MEETING = [
    ("me", "Good morning. Let us look at the budget first, then the schedule."),
    ("others:1", "The budget is fine. I don't think the schedule holds, though."),
    ("others:2", "Budgeting for the café was hard. We keep the schedule anyway."),
]


@pytest.fixture
def index(journal_dir):
    from engine.speakers.labels import SpeakerNames

    write_session(
        journal_dir, [("", "An old session about the budget and the quarterly schedule.")], days_ago(30)
    )
    writer = write_session(journal_dir, MEETING, days_ago(2), close=False)
    writer.name_speakers(SpeakerNames(renamed={"others:1": "Ana"}))
    writer.close()
    write_session(journal_dir, [("", "Yesterday nobody said anything about money.")], days_ago(1))
    with HistoryIndex.open() as index:
        yield index


def words_of(turns) -> list[str]:
    return [token for _, text in turns for token in text.split()]


def test_a_word_is_found_in_every_session_newest_first_then_by_position(index):
    hits = index.search("budget")
    ids = [h.session_id for h in hits]
    assert ids == sorted(ids, reverse=True)  # newest first (their names are their start times)
    meeting = [h for h in hits if h.session_id == ids[0]]
    assert [h.position for h in meeting] == sorted(h.position for h in meeting)
    assert len({h.session_id for h in hits}) == 2


def test_the_hit_maps_to_the_exact_word_and_its_time(index):
    (hit,) = index.search('"schedule holds"')
    tokens = words_of(MEETING)
    assert tokens[hit.position] == "schedule"
    assert hit.time_s == pytest.approx(hit.position * WORD_SECONDS)
    assert hit.speaker == "Ana"  # the name the session last showed, not the id
    start, end = hit.spans[0]
    assert hit.snippet[start:end] == "schedule holds"
    assert "I don't think the schedule holds, though." in hit.snippet


def test_a_prefix_finds_every_word_it_starts(index):
    found = {h.snippet[s:e].lower() for h in index.search("budg*", limit=100) for s, e in h.spans}
    assert found == {"budget", "budgeting"}


def test_accents_do_not_matter(index):
    (hit,) = index.search("cafe")
    assert hit.snippet[slice(*hit.spans[0])] == "café"


@pytest.mark.parametrize("typed", ["budget, the schedule", "don't", "C++ budget", "schedule:holds", "NOT"])
def test_plain_typing_that_fts5_refuses_is_searched_as_words(index, typed):
    index.search(typed)  # no error


def test_plain_typing_finds_what_it_says(index):
    (hit,) = index.search("don't")
    assert hit.snippet[slice(*hit.spans[0])] == "don't"
    assert {h.session_id for h in index.search("budget, the schedule")} == {
        h.session_id for h in index.search("budget schedule")
    }


@pytest.mark.parametrize(
    "query, message",
    [
        ('"foo bar', 'unbalanced quote in "foo bar'),
        ("", "nothing to search for"),
        (" ,;- ", "nothing to search for"),
    ],
)
def test_a_malformed_search_is_one_line_saying_what_is_wrong(index, query, message):
    with pytest.raises(HistoryQueryError) as caught:
        index.search(query)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_speaker_filter_takes_the_shown_name_in_any_case(index):
    hits = index.search("schedule", speaker="ana")
    assert [h.speaker for h in hits] == ["Ana"]
    assert {h.speaker for h in index.search("schedule", speaker="Me")} == {"Me"}
    assert index.search("schedule", speaker="Nobody") == []


def test_the_since_filter_leaves_out_older_sessions(index):
    everything = index.search("budget")
    recent = index.search("budget", since=days_ago(7))
    assert recent and len(recent) < len(everything)
    assert all(h.started >= days_ago(7) for h in recent)
    assert index.search("budget", since=days_ago(-1)) == []


def test_the_limit_holds(index):
    assert len(index.search("the", limit=2)) == 2
    assert index.search("the", limit=0) == []


def test_sessions_are_summarised_newest_first(index):
    sessions = index.sessions()
    assert [s.started for s in sessions] == sorted((s.started for s in sessions), reverse=True)
    meeting = sessions[1]
    assert meeting.speakers == ("Me", "Ana", "Others 2")
    assert meeting.sources == ("mic", "app:Meeting")
    assert meeting.words == len(words_of(MEETING))
    assert meeting.first_line.startswith("Good morning. Let us look at the budget")
    assert meeting.recognizer == "vosk" and not meeting.live and not meeting.pinned
    assert meeting.duration_s >= 0
    assert sessions[0].speakers == ()
    assert index.sessions(limit=1) == sessions[:1]
    assert index.session(meeting.id) == meeting


def test_an_index_is_searched_from_other_threads(index):
    found = []
    threads = [threading.Thread(target=lambda: found.append(len(index.search("budget")))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == [len(index.search("budget"))] * 4


def test_readers_search_while_another_livecap_holds_the_write_lock(index):
    """Another livecap writing its session holds SQLite's write lock; searches here still answer
    (the index is in WAL mode: readers never wait for a writer)."""
    import sqlite3

    other = sqlite3.connect(index.path, timeout=0.1)
    try:
        other.execute("BEGIN IMMEDIATE")  # the other process's write transaction, left open
        other.execute("CREATE TABLE IF NOT EXISTS other_writer_probe(x)")
        assert {h.session_id for h in index.search("budget")}  # found, no "database is locked"
        assert index.sessions()
    finally:
        other.rollback()
        other.close()
