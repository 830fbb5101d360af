"""The feed's messages from a session's events, and what it does when the server falls behind."""

from engine.events import Appended, PartialWords, Provisional, Retracted, Settled, SpeakersLabelled
from engine.share.feed import ShareFeed
from engine.words import Word


def test_words_turn_from_provisional_to_settled_and_a_retraction_removes_them():
    feed = ShareFeed()
    feed([Appended(0, Word("hello")), Provisional(0, "comma", "capitalized", 0.6, "Hello")])
    feed([Settled(0, "period", "capitalized", 2, "Hello"), Appended(1, Word("there"))])
    feed([Retracted(1), Appended(1, Word("world"))])
    messages, snapshot = feed.take()
    assert snapshot is None
    assert [n for n, _ in messages] == list(range(1, len(messages) + 1))
    assert [m for _, m in messages] == [
        {"type": "word", "position": 0, "text": "Hello,", "state": "provisional", "speaker": "", "label": ""},
        {"type": "word", "position": 0, "text": "Hello.", "state": "settled", "speaker": "", "label": ""},
        {"type": "word", "position": 1, "text": "there", "state": "provisional", "speaker": "", "label": ""},
        {"type": "retracted", "from": 1},
        {"type": "word", "position": 1, "text": "world", "state": "provisional", "speaker": "", "label": ""},
    ]


def test_unstable_words_and_speaker_labels_reach_the_page_with_their_names():
    feed = ShareFeed()
    feed([PartialWords((Word("uh"),), speaker="others")])
    feed([Appended(0, Word("yes", speaker="me")), SpeakersLabelled(((0, "others:2"),), settled_through=0)])
    messages = [m for _, m in feed.take()[0]]
    assert messages[0] == {
        "type": "unstable",
        "words": [{"text": "uh", "speaker": "others", "label": "Others"}],
    }
    assert messages[1]["speaker"] == "others:2" and messages[1]["label"] == "Others 2"


def test_a_full_queue_never_blocks_the_session_and_ends_in_one_snapshot():
    feed = ShareFeed(capacity=4)
    for p in range(10):  # the server's loop never took any: the queue overflowed
        feed([Appended(p, Word(f"w{p}")), Settled(p, "none", "lower", 1, f"w{p}")])
    messages, snapshot = feed.take()
    assert messages == []  # all older than the snapshot, which covers them
    seq, message = snapshot
    assert seq == 10 and message["type"] == "snapshot"
    assert [w["text"] for w in message["words"]] == [f"w{p}" for p in range(10)]
    assert all(w["state"] == "settled" for w in message["words"])
    feed([Appended(10, Word("on"))])
    assert feed.take() == (
        [
            (
                11,
                {
                    "type": "word",
                    "position": 10,
                    "text": "on",
                    "state": "provisional",
                    "speaker": "",
                    "label": "",
                },
            )
        ],
        None,
    )


def test_a_feed_subscribed_mid_session_starts_with_the_words_said_before():
    from engine.transcript.builder import TranscriptBuilder

    session_builder = TranscriptBuilder()  # the session's, which the engine applies each batch to first
    said_before = [Appended(0, Word("earlier")), Settled(0, "period", "capitalized", 1, "Earlier")]
    session_builder.apply(said_before)
    feed = ShareFeed(session_builder=session_builder)
    feed([PartialWords((Word("now"),))])  # the recognizer's thread: no words change
    batch = [Appended(1, Word("now")), Provisional(1, "none", "lower", 0.5, "now")]
    session_builder.apply(batch)
    feed(batch)
    later = [Settled(1, "period", "lower", 1, "now")]
    session_builder.apply(later)
    feed(later)
    assert [(w["text"], w["state"]) for w in feed.snapshot()[1]["words"]] == [
        ("Earlier.", "settled"),
        ("now.", "settled"),
    ]
    assert feed.snapshot()[1]["unstable"] == []  # the partial word was committed


def test_a_front_ends_caption_changes_restart_from_its_builder_and_then_go_on_from_its_fold():
    from engine.transcript.builder import TranscriptBuilder

    builder = TranscriptBuilder()  # the front end's: it applies each batch before handing it on
    said = [Appended(0, Word("before")), Settled(0, "none", "lower", 1, "before")]
    builder.apply(said)
    feed = ShareFeed()
    feed.caption_change([], (Word("um"),), restart_from=builder)  # subscribed with words shown
    messages, snapshot = feed.take()
    assert [w["text"] for w in snapshot[1]["words"]] == ["before"]
    assert [w["text"] for w in snapshot[1]["unstable"]] == ["um"]
    assert all(n <= snapshot[0] for n, _ in messages)  # the snapshot covers them
    later = [Appended(1, Word("after"))]
    builder.apply(later)
    feed.caption_change(later, ())
    messages, snapshot = feed.take()
    assert snapshot is None
    assert [m for _, m in messages] == [
        {"type": "word", "position": 1, "text": "after", "state": "provisional", "speaker": "", "label": ""},
        {"type": "unstable", "words": []},
    ]
    builder.apply([Appended(2, Word("unsent"))])  # its own copy: only what it is handed is in it
    assert [w["text"] for w in feed.snapshot()[1]["words"]] == ["before", "after"]
