"""The dictation text (app/main_window/caption_view.py): styles of settled, provisional and unstable words,
tail-only edits, retraction, scrolling and trimming for long sessions, the profanity mask."""

import pytest

from app.caption_feed import CaptionFeed
from app.captions.style import PARTIAL, PROVISIONAL, SETTLED
from app.main_window.caption_view import CaptionView
from engine.events import Appended, Provisional, Retracted, Settled, Withdrawn
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word

pytestmark = [pytest.mark.gui]


@pytest.fixture
def view(qtbot):
    v = CaptionView(font_size=16)
    qtbot.addWidget(v)
    v.resize(500, 300)
    v.show()
    v.set_feed(CaptionFeed(parent=v))
    return v


def feed(view, events, partial=None):
    view.builder.apply(events)  # the bridge applies events to the UI-side builder first
    view.feed.receive(events, partial)


def word(text, at):
    return Word(text, at, at + 0.3)


def colour_at(view, index):
    """Foreground colour and italic flag of the character at ``index`` in the document."""
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(view.document())
    cursor.setPosition(index + 1)  # charFormat() is the format of the character before the cursor
    fmt = cursor.charFormat()
    return fmt.foreground().color().name(), fmt.fontItalic()


def style_of(view, style):
    fmt = view._formats[style]
    return fmt.foreground().color().name(), fmt.fontItalic()


def test_provisional_words_settle_in_place_and_partials_are_grey_italic(view):
    text = lambda: view.toPlainText()
    feed(view, [Appended(0, word("hello", 0.0)), Provisional(0, "comma", "capitalized", 0.6, "Hello")])
    assert text() == "Hello,"
    assert colour_at(view, 0) == colour_at(view, 5) == style_of(view, PROVISIONAL)
    feed(view, [], partial=(Word("wor"),))
    assert text() == "Hello, wor"
    assert colour_at(view, 7) == style_of(view, PARTIAL) and colour_at(view, 7)[1] is True
    assert colour_at(view, 0) == style_of(view, PROVISIONAL)

    # The recognizer commits "world"; the comma under "Hello" turns out to be a period and settles.
    feed(
        view,
        [
            Appended(1, word("world", 0.4)),
            Provisional(1, "none", "lower", 0.5, "world"),
            Settled(0, "period", "capitalized", 2, "Hello"),
        ],
        partial=(),
    )
    assert text() == "Hello. world"
    assert colour_at(view, 0) == colour_at(view, 5) == style_of(view, SETTLED)
    assert colour_at(view, 7) == style_of(view, PROVISIONAL)
    feed(
        view,
        [
            Provisional(1, "none", "capitalized", 0.5, "World"),
            Settled(1, "period", "capitalized", 1, "World"),
        ],
    )
    assert text() == "Hello. World."
    assert all(colour_at(view, i) == style_of(view, SETTLED) for i in range(len(text())))
    # The three styles really differ: a reader can tell them apart.
    assert len({style_of(view, s) for s in (SETTLED, PROVISIONAL, PARTIAL)}) == 3


def test_retraction_and_withdrawal_update_the_text(view):
    feed(
        view,
        [
            Appended(0, word("the", 0)),
            Settled(0, "none", "capitalized", 1, "The"),
            Appended(1, word("whether", 0.4)),
            Settled(1, "none", "lower", 1, "whether"),
            Appended(2, word("is", 0.8)),
            Provisional(2, "none", "lower", 0.5, "is"),
        ],
    )
    assert view.toPlainText() == "The whether is"
    feed(view, [Withdrawn(1), Retracted(1)], partial=(Word("weather"), Word("is")))
    assert view.toPlainText() == "The weather is"
    assert colour_at(view, 4) == style_of(view, PARTIAL)
    feed(
        view,
        [Appended(1, word("weather", 0.4)), Provisional(1, "none", "lower", 0.5, "weather")],
        partial=(Word("is"),),
    )
    assert view.toPlainText() == "The weather is"
    assert colour_at(view, 4) == style_of(view, PROVISIONAL) and colour_at(view, 12) == style_of(
        view, PARTIAL
    )


def test_only_the_tail_that_changed_is_edited(view):
    events = []
    for p in range(50):
        events += [Appended(p, word(f"w{p}", p * 0.4)), Settled(p, "none", "lower", 1, f"w{p}")]
    events += [Appended(50, word("last", 20.0)), Provisional(50, "none", "lower", 0.5, "last")]
    feed(view, events)
    before = view.toPlainText()
    changes = []
    view.document().contentsChange.connect(lambda pos, removed, added: changes.append((pos, removed, added)))
    feed(view, [Provisional(50, "period", "lower", 0.6, "last")])
    assert view.toPlainText() == before + "."
    start_of_last = before.index(" last")
    assert changes and all(pos >= start_of_last for pos, _, _ in changes), changes
    changes.clear()
    feed(view, [Settled(50, "period", "lower", 1, "last")])  # a style change: same text, still only the tail
    assert all(pos >= start_of_last for pos, _, _ in changes), changes


def test_paragraphs_break_after_a_sentence_and_a_pause(view):
    feed(
        view,
        [
            Appended(0, Word("hi", 0, 0.3)),
            Settled(0, "period", "capitalized", 1, "Hi"),
            Appended(1, Word("later", 5.0, 5.3)),
            Settled(1, "period", "capitalized", 1, "Later"),
        ],
    )
    assert view.toPlainText() == "Hi.\nLater."
    assert view.document().blockCount() == 2


def test_a_long_session_keeps_the_view_small(view, monkeypatch):
    """The document is trimmed as it grows, so each update's layout work stays bounded however
    long the session: checked by the document's size, not by timing it."""
    monkeypatch.setattr(CaptionView, "MAX_WORDS", 300)
    monkeypatch.setattr(CaptionView, "TRIM_SLACK", 100)
    largest = 0
    for p in range(3000):
        mark = "period" if p % 12 == 11 else "none"
        events = [Appended(p, word(f"word{p}", p * 0.4)), Provisional(p, mark, "lower", 0.5, f"word{p}")]
        if p:
            events.append(
                Settled(p - 1, "period" if (p - 1) % 12 == 11 else "none", "lower", 1, f"word{p - 1}")
            )
        feed(view, events, partial=(Word("next"),))
        largest = max(largest, view.document().characterCount())
    assert len(view.builder.words) == 3000  # the whole transcript is kept for copy and export
    assert view.kept_words <= 400  # the document is not
    assert view.toPlainText().endswith("word2999. next")
    assert "word0 " not in view.toPlainText()
    assert largest < 400 * len("word2999. \n"), largest  # never more than the kept words


def test_scrolling_up_holds_the_view_until_the_reader_returns(view):
    for p in range(200):
        feed(view, [Appended(p, word(f"w{p}", p * 0.4)), Settled(p, "none", "lower", 1, f"w{p}")])
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum() and view.following
    bar.setValue(0)
    assert not view.following and view.follow_button.isVisibleTo(view)
    for p in range(200, 260):
        feed(view, [Appended(p, word(f"w{p}", p * 0.4)), Settled(p, "none", "lower", 1, f"w{p}")])
    assert bar.value() == 0  # held
    view.follow()
    assert view.following and bar.value() == bar.maximum() and not view.follow_button.isVisibleTo(view)


def test_profanity_mask_is_display_only(view):
    feed(
        view,
        [
            Appended(0, word("oh", 0)),
            Settled(0, "none", "capitalized", 1, "Oh"),
            Appended(1, word("shit", 0.4)),
            Settled(1, "period", "lower", 1, "shit"),
        ],
    )
    assert view.toPlainText() == "Oh shit."
    view.mask_profanity = True
    view.rerender()
    assert view.toPlainText() == "Oh s***."
    assert view.builder.words[1].text == "shit"  # the transcript keeps what was said


def test_a_finished_transcript_becomes_editable_text(view):
    t = Transcript(
        [
            TranscriptWord("hello", 0, 0.3, mark="period", case="capitalized"),
            TranscriptWord("bye", 5, 5.3, mark="period", case="capitalized"),
        ]
    )
    view.load_transcript(t)
    assert not view.isReadOnly() and not view.live
    assert view.toPlainText() == "Hello.\nBye."
    assert not view.document().isModified()


def test_the_live_view_breaks_paragraphs_where_the_export_does(view):
    """One paragraph rule: the text does not reflow when Stop switches from the live captions
    to the final transcript (or the export). Sentences of random length, some pauses of 2 s and
    more, and one long run that only the word limit breaks."""
    import random

    from engine.transcript.export import to_txt

    rng, at, marks = random.Random(14), 0.0, []
    for p in range(400):
        long_run = 150 <= p < 240  # no pauses here: only the 60-word limit can break it
        marks.append("period" if rng.random() < (0.05 if long_run else 0.15) else "none")
    for p, mark in enumerate(marks):
        events = [Appended(p, word(f"w{p}", at)), Provisional(p, mark, "lower", 0.5, f"w{p}")]
        if p:
            events.append(Settled(p - 1, marks[p - 1], "lower", 1, f"w{p - 1}"))
        feed(view, events)
        gap = 2.5 if rng.random() < 0.1 and not 150 <= p < 240 else 0.1
        at += 0.3 + gap
    feed(view, [Settled(399, marks[-1], "lower", 1, "w399")])
    export = to_txt(view.builder.transcript).strip().split("\n\n")
    assert len(export) >= 6  # the test means something: many breaks
    assert view.toPlainText().split("\n") == export
    view.load_transcript(view.builder.transcript)  # what Stop shows
    assert view.toPlainText().split("\n") == export


def test_a_paragraph_breaks_only_once_the_sentence_end_has_settled(view):
    feed(view, [Appended(0, word("hi", 0)), Provisional(0, "period", "capitalized", 0.6, "Hi")])
    feed(view, [Appended(1, word("later", 5.0)), Provisional(1, "none", "capitalized", 0.6, "Later")])
    assert view.toPlainText() == "Hi. Later"  # the period may still go: no break yet
    feed(view, [Settled(0, "period", "capitalized", 1, "Hi")])
    assert view.toPlainText() == "Hi.\nLater"
    feed(view, [Settled(1, "none", "capitalized", 1, "Later"), Appended(2, word("on", 5.4))])
    assert view.toPlainText() == "Hi.\nLater on"
