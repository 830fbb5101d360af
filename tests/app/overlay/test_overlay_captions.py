"""What the caption overlay shows of a real transcript: fed by the window's overlay controller from
the app's caption feed (offscreen Qt, real widgets), during a session and after Stop."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from app.caption_feed import CaptionFeed
from app.main_window.actions import build_actions
from app.main_window.caption_view import CaptionView
from app.main_window.overlay_controller import OverlayController
from app.settings import AppSettings
from engine.events import Appended, Settled
from engine.words import Word

pytestmark = [pytest.mark.gui]

MARKS = {",": "comma", ".": "period", "?": "question"}
TALK = (  # 96 words; the last 40 begin at "think", just after "I"
    "So we looked at the numbers again yesterday and the week before, and most of them were "
    "fine. We need more time to finish the caption overlay before Friday. Everyone here agrees "
    "that accessibility matters a lot, and the meeting is tomorrow morning. We should ask the "
    "others whether they can really wait for it. I think we need more time to test it with "
    "people who read captions every day. Maybe we can ship the window first and the overlay a "
    "week later? That would give us enough time to test it properly with them."
)


def settled_events(text: str, first: int = 0) -> list:
    """Each word of ``text`` appended and settled with its mark and capital, as the engine does."""
    events = []
    for i, token in enumerate(text.split(), first):
        mark = MARKS.get(token[-1], "none")
        bare = token.rstrip(",.?")
        case = "capitalized" if bare[0].isupper() else "lower"
        events += [Appended(i, Word(bare.lower(), i * 0.4, i * 0.4 + 0.3)), Settled(i, mark, case, 1, bare)]
    return events


@pytest.fixture
def parts(qtbot, tmp_path):
    window = QMainWindow()
    qtbot.addWidget(window)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    view = CaptionView()
    qtbot.addWidget(view)
    view.set_feed(CaptionFeed(parent=view))
    controller = OverlayController(settings, view.feed, build_actions(window), window)
    yield controller, view
    controller.close()


def play(controller: OverlayController, view: CaptionView, text: str) -> None:
    """The window's caption path: each batch applied to the builder, then to the feed that the
    view and the overlay subscribe to."""
    for event in settled_events(text):
        view.builder.apply([event])
        view.feed.receive([event], None)


def shown_words(controller: OverlayController) -> list[str]:
    return [w for line in controller.overlay.laid_out_lines() for w in line.text.split()]


def test_after_stop_the_overlay_shown_again_has_the_last_lines_not_its_placeholder(parts):
    controller, view = parts
    controller.set_visible(True)
    play(controller, view, TALK)
    assert len(view.builder.words) == 96
    final = view.builder.transcript
    view.load_transcript(final, editable=True)  # Stop: the window shows the finished text
    controller.set_visible(False)
    controller.set_visible(True)  # shown again (View menu, tray) after the session ended
    shown = shown_words(controller)
    assert shown and shown == TALK.split()[-len(shown) :]
    # First shown after Stop too (it was hidden during the whole session).
    other = OverlayController(controller.settings, view.feed, controller.commands, controller.parent())
    try:
        other.set_visible(True)
        later = shown_words(other)
        assert later and later == TALK.split()[-len(later) :]
    finally:
        other.close()


def test_a_wide_overlay_never_starts_its_first_line_where_the_view_cut_the_text(parts):
    controller, view = parts
    overlay = controller.overlay
    overlay.set_lines(4)
    overlay.set_font_size(12)
    overlay.resize(1400, overlay.height())  # room for far more than a few dozen words
    controller.set_visible(True)
    play(controller, view, TALK)
    lines, everything = overlay.laid_out_lines(), TALK.split()
    shown = shown_words(controller)
    assert shown == everything[-len(shown) :]
    # Full lines from the top, or the whole talk: a first line that starts mid-sentence is only
    # ever the wrapping's, never where the text handed to the overlay began.
    assert len(lines) == 4 or shown == everything, [line.text for line in lines]
    assert not lines[0].text.startswith("think")
