"""A meeting on the caption overlay: compact speaker labels ("Me›", "O2›") where the speaker
changes, each a run of its own, drawn in the speaker's colour (the caption view's, dark scheme),
fed from the caption feed the caption view shows, as the window's overlay controller feeds it."""

from dataclasses import replace

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage, QPainter

from app.caption_feed import CaptionFeed
from app.captions.speaker_labels import overlay_tail
from app.main_window.caption_view import CaptionView
from app.overlay.caption_overlay import CaptionOverlay
from app.settings import AppSettings
from app.theme import speaker_color
from engine import SPEAKER_ME, Appended, Settled, SpeakerNames, TranscriptBuilder, Word
from tests.app.pixels import pixels_near

pytestmark = [pytest.mark.gui]

ANA = "others:2"  # a second voice: the first is shown as the side, "Others"


@pytest.fixture
def overlay(qtbot, tmp_path):
    widget = CaptionOverlay(AppSettings(QSettings(str(tmp_path / "o.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(widget)
    widget.resize(900, widget.height())
    return widget


@pytest.fixture
def view(qtbot):
    v = CaptionView()
    qtbot.addWidget(v)
    v.set_feed(CaptionFeed(parent=v))
    return v


def speak(view, turns):
    events, p = [], 0
    for speaker, text in turns:
        for i, w in enumerate(text.split()):
            events.append(Appended(p, Word(w, p * 0.4, p * 0.4 + 0.3, speaker=speaker)))
            last = i == len(text.split()) - 1
            events.append(Settled(p, "period" if last else "none", "lower", 1, w))
            p += 1
    view.builder.apply(events)
    view.feed.receive(events)


def tail(view) -> tuple[str, str, dict[str, str]]:
    """What the overlay is given of the feed the view shows, with the view's speaker names."""
    return overlay_tail(view.feed.fold, view.speaker_names)


def on_black(overlay) -> QImage:
    image = QImage(overlay.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor("black"))
    painter = QPainter(image)
    painter.drawImage(0, 0, overlay.grab().toImage())
    painter.end()
    return image


def test_labels_at_speaker_changes_are_runs_of_their_own_in_the_speakers_colour(overlay, view):
    speak(view, [(SPEAKER_ME, "is the budget ready"), (ANA, "yes it is")])
    overlay.set_captions(*tail(view))
    overlay.show()
    text = " ".join(line.text for line in overlay.laid_out_lines())
    assert text == "Me› is the budget ready. O2› yes it is."
    labels = [run for line in overlay.laid_out_lines() for run in line.runs if run.label]
    assert [run.text for run in labels] == ["Me›", "O2›"]
    image = on_black(overlay)
    for speaker in (SPEAKER_ME, ANA):
        assert pixels_near(image, speaker_color(speaker, dark=True)) > 20, speaker


def test_renamed_speakers_show_on_the_overlay_and_one_source_has_no_labels(overlay, view):
    view.set_speaker_names(SpeakerNames(renamed={ANA: "Ana"}))
    speak(view, [(SPEAKER_ME, "hello"), (ANA, "hi")])
    overlay.set_captions(*tail(view))
    assert " ".join(line.text for line in overlay.laid_out_lines()) == "Me› hello. Ana› hi."
    view.feed.restart(TranscriptBuilder())
    speak(view, [("", "hello there")])
    overlay.set_captions(*tail(view))
    lines = overlay.laid_out_lines()
    assert " ".join(line.text for line in lines) == "hello there."
    assert not any(run.label for line in lines for run in line.runs)
    assert pixels_near(on_black(overlay), speaker_color(SPEAKER_ME, dark=True)) == 0


def label_runs(lines) -> list[tuple[int, str]]:
    return [(row, run.text) for row, line in enumerate(lines) for run in line.runs if run.label]


def test_a_narrow_overlay_repeats_the_speakers_label_on_its_top_row(overlay, view):
    # 560 pixels and 2 lines (the default place on an 800-pixel screen): a turn fills more than
    # the visible rows, so its label scrolls away above them while the speaker goes on.
    overlay.resize(560, overlay.height())
    overlay.set_lines(2)
    overlay.show()
    turns = [
        (SPEAKER_ME, "hello there I have the budget report ready to share with all of you today"),
        (ANA, "the design team finished the new website last week and everyone likes it a lot"),
    ]
    events, p = [], 0
    available = overlay.width() - 2 * overlay.PAD_X
    tops = set()
    for speaker, text in turns:
        for w in text.split():  # word by word, as the words commit
            events = [Appended(p, Word(w, p * 0.4, p * 0.4 + 0.3, speaker=speaker))]
            events.append(Settled(p, "none", "lower", 1, w))
            view.builder.apply(events)
            view.feed.receive(events)
            p += 1
            overlay.set_captions(*tail(view))
            lines = overlay.laid_out_lines()
            assert all(line.width <= available + 0.5 for line in lines)  # the label never overflows
            top = lines[0].runs[0]
            assert top.label, [line.text for line in lines]  # who speaks is always in view
            tops.add(top.text)
            # Only the top row repeats a label: the rows below show labels where turns change.
            assert all(not line.runs[0].label or "›" in line.text for line in lines[1:])
    assert tops == {"Me›", "O2›"}
    lines = overlay.laid_out_lines()
    assert label_runs(lines) == [(0, "O2›")]  # well into Ana's turn: her label, on the top row
    assert lines[0].text.startswith("O2› ") and "O2›" not in lines[1].text
    image = on_black(overlay)
    assert pixels_near(image, speaker_color(ANA, dark=True)) > 20
    # The repeated label is drawn, not text: the words below it are the turn's words, in order.
    shown = [w for line in lines for w in line.text.split() if w != "O2›"]
    said = turns[1][1].split()
    assert shown == said[len(said) - len(shown) :]


def test_a_turn_committed_at_once_shows_its_voice_label(overlay, view):
    # The bug the meeting on a sound server found: the others' unstable words carry the side's
    # label ("Others›") until the turn commits whole with its voice's label ("O2›"), whose row is
    # then already above the two visible ones.
    overlay.resize(560, overlay.height())
    overlay.set_lines(2)
    speak(view, [(SPEAKER_ME, "is the design ready")])
    text = "the design team finished the new website last week and everyone likes it a lot"
    heard = [Word(w, 2 + i * 0.4, 2.3 + i * 0.4, speaker="others") for i, w in enumerate(text.split())]
    view.feed.receive([], partial=tuple(heard))
    overlay.set_captions(*tail(view))
    assert overlay.laid_out_lines()[0].runs[0].text == "Others›"
    events = []
    for i, word in enumerate(heard):
        events += [Appended(4 + i, replace(word, speaker=ANA)), Settled(4 + i, "none", "lower", 1, word.text)]
    view.builder.apply(events)
    view.feed.receive(events, partial=())
    overlay.set_captions(*tail(view))
    lines = overlay.laid_out_lines()
    assert lines[0].runs[0].label and lines[0].runs[0].text == "O2›", [line.text for line in lines]
    assert "Others›" not in " ".join(line.text for line in lines)


def test_the_others_stale_unstable_words_go_when_their_words_are_appended(overlay, view):
    # The others' words commit: their ``Appended`` words reach the window a frame before the
    # side's shorter partial words, in a batch of their own. The stale partial is not drawn after
    # the words that replace it, in the overlay or the window.
    overlay.resize(900, overlay.height())
    overlay.set_lines(3)
    speak(view, [(SPEAKER_ME, "how is the website")])
    said = [
        Word(w, 2 + i * 0.4, 2.3 + i * 0.4, speaker="others")
        for i, w in enumerate("website last week".split())
    ]
    view.feed.receive([], partial=(*said, Word("and", 2.0, 2.3, speaker=SPEAKER_ME)))
    overlay.set_captions(*tail(view))
    assert "Others› website last week" in " ".join(line.text for line in overlay.laid_out_lines())
    events = []
    for i, word in enumerate(said):
        events += [Appended(4 + i, replace(word, speaker=ANA)), Settled(4 + i, "none", "lower", 1, word.text)]
    view.builder.apply(events)
    view.feed.receive(events)  # no new partial words in this batch
    overlay.set_captions(*tail(view))
    text = " ".join(line.text for line in overlay.laid_out_lines())
    assert text.count("website") == 2 and "Others›" not in text, text  # "how is the website", Ana's
    assert text == "Me› how is the website. O2› website last week Me› and"
    assert view.toPlainText().count("website") == 2
    # Me's unstable words change in the next batch: the others' stale ones stay gone.
    view.feed.receive(
        [],
        partial=(*said, Word("and", 2.0, 2.3, speaker=SPEAKER_ME), Word("so", 2.4, 2.6, speaker=SPEAKER_ME)),
    )
    overlay.set_captions(*tail(view))
    text = " ".join(line.text for line in overlay.laid_out_lines())
    assert text.count("website") == 2 and "Others›" not in text and text.endswith("and so"), text
    # The others' next words are shown as they come.
    nxt = Word("then", 4.0, 4.3, speaker="others")
    view.feed.receive([], partial=(nxt, Word("and", 2.0, 2.3, speaker=SPEAKER_ME)))
    overlay.set_captions(*tail(view))
    text = " ".join(line.text for line in overlay.laid_out_lines())
    assert text == "Me› how is the website. O2› website last week Others› then Me› and"


def test_unstable_words_heard_after_the_appended_ones_stay(view):
    # The usual order: the side's new partial words come first, then its appended words. Those
    # newer unstable words are heard after the appended ones, and stay.
    speak(view, [(SPEAKER_ME, "hello")])
    view.feed.receive([], partial=(Word("next", 3.0, 3.3, speaker="others"),))
    events = [Appended(1, Word("hi", 2.0, 2.3, speaker=ANA)), Settled(1, "none", "lower", 1, "hi")]
    view.builder.apply(events)
    view.feed.receive(events)
    assert tail(view)[:2] == ("Me› hello. O2› hi", "Others› next")
    assert view.toPlainText() == "Me: hello.\nOthers 2: hi\nOthers: next"
