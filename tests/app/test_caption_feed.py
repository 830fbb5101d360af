"""The app's one caption feed (app/caption_feed.py): a scripted meeting goes through the session
bridge's signal, once, into the feed; the caption view and the overlay that subscribe to it show
the feed's lines; a subscriber that comes late starts from the current lines; and the terminal's
captions, folding the same events with the same engine fold, print the same text."""

import io

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from app import settings as keys
from app.caption_feed import CaptionFeed
from app.captions.speaker_labels import compact_label
from app.main_window.actions import build_actions
from app.main_window.caption_view import CaptionView
from app.main_window.overlay_controller import OverlayController
from app.settings import AppSettings
from app.workers.session_bridge import SessionBridge
from engine import (
    SPEAKER_ME,
    Appended,
    PartialWords,
    Provisional,
    Settled,
    SpeakerNames,
    SpeakersLabelled,
    TranscriptBuilder,
    Word,
)
from engine.cli.terminal_captions import TerminalCaptions

pytestmark = [pytest.mark.gui]

ANA = "others:2"  # a second voice among the others: "Others 2"


def heard(p: int, text: str, speaker: str) -> Appended:
    return Appended(p, Word(text, p * 0.4, p * 0.4 + 0.3, speaker=speaker))


ASKED = [heard(p, w, SPEAKER_ME) for p, w in enumerate("are we ready now".split())]
ASKED += [PartialWords((Word("yes", 1.7, 1.9, speaker="others"),), "others")]
ANSWERED = [
    Settled(p, "none", "capitalized" if p == 0 else "lower", 1, w)
    for p, w in enumerate("Are we ready".split())
]
ANSWERED += [Settled(3, "question", "lower", 1, "now")]
ANSWERED += [heard(4, "yes", "others"), heard(5, "we", "others"), PartialWords((), "others")]
LABELLED = [SpeakersLabelled(((4, ANA), (5, ANA)), settled_through=4)]
LABELLED += [Provisional(4, "none", "capitalized", 0.6, "Yes"), Provisional(5, "period", "lower", 0.6, "we")]
ENDED = [Settled(4, "none", "capitalized", 1, "Yes"), Settled(5, "period", "lower", 1, "we")]
ENDED += [PartialWords((Word("good", 2.4, 2.6, speaker=SPEAKER_ME),), SPEAKER_ME)]
ENDED += [
    heard(6, "good", SPEAKER_ME),
    Settled(6, "period", "capitalized", 1, "Good"),
    PartialWords((), SPEAKER_ME),
]
MEETING = [ASKED, ANSWERED, LABELLED, ENDED]  # the batches, as the engine's threads publish them


@pytest.fixture
def parts(qtbot, tmp_path):
    window = QMainWindow()
    qtbot.addWidget(window)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    bridge = SessionBridge(window)
    feed = CaptionFeed(parent=window)
    feed.listen_to(bridge)
    view = CaptionView()
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.set_feed(feed)
    overlay = OverlayController(settings, feed, build_actions(window), window)
    overlay.overlay.resize(1400, overlay.overlay.height())
    overlay.overlay.set_lines(4)
    overlay.set_visible(True)
    yield bridge, feed, view, overlay
    overlay.close()


def publish(qtbot, bridge: SessionBridge, batch: list) -> None:
    """``batch`` from the engine's threads; back on the UI thread once the bridge's frame is out."""
    flushes = bridge.flushes
    bridge._on_engine_events(batch)
    qtbot.waitUntil(lambda: bridge.flushes > flushes, timeout=5000)


def overlay_text(overlay: OverlayController) -> str:
    return " ".join(line.text for line in overlay.overlay.laid_out_lines())


def compact(feed: CaptionFeed, names: SpeakerNames) -> str:
    """The feed's lines as the overlay labels them ("Me› …")."""
    lines = feed.fold.lines()
    return " ".join(
        " ".join([compact_label(names, line.speaker), *(w.text for w in line.words)]) for line in lines
    )


def same_words(text: str) -> str:
    return " ".join(text.split())


def test_the_feed_folds_a_meeting_into_the_lines_the_view_and_the_overlay_show(qtbot, parts):
    bridge, feed, view, overlay = parts
    names = SpeakerNames()
    publish(qtbot, bridge, ASKED)
    assert feed.fold.text(names) == "Me: are we ready now\nOthers: yes"  # the others' words unstable
    assert view.toPlainText() == feed.fold.text(names)
    assert overlay_text(overlay) == compact(feed, names) == "Me› are we ready now Others› yes"
    for batch in MEETING[1:]:
        publish(qtbot, bridge, batch)
        assert view.toPlainText() == feed.fold.text(names)
        assert overlay_text(overlay) == compact(feed, names)
    assert feed.fold.text(names) == "Me: Are we ready now?\nOthers 2: Yes we.\nMe: Good."
    assert all(feed.fold.settled) and feed.fold.unstable == ()
    assert feed.builder is bridge.builder  # the transcript the window copies and exports


def test_a_subscriber_that_comes_late_starts_from_the_current_lines(qtbot, parts):
    bridge, feed, view, _ = parts
    for batch in MEETING[:2]:
        publish(qtbot, bridge, batch)
    seen = []
    stop = feed.subscribe(lambda change: seen.append((change.first, feed.fold.text(SpeakerNames()))))
    assert seen == [(0, "Me: Are we ready now?\nOthers: yes we")]
    later = CaptionView()
    qtbot.addWidget(later)
    later.set_feed(feed)
    assert later.toPlainText() == view.toPlainText() == "Me: Are we ready now?\nOthers: yes we"
    publish(qtbot, bridge, MEETING[2])
    assert later.toPlainText() == view.toPlainText() == "Me: Are we ready now?\nOthers 2: Yes we."
    assert seen[-1] == (4, "Me: Are we ready now?\nOthers 2: Yes we.")
    stop()
    feed.restart(TranscriptBuilder())  # a new session: every subscriber starts again, empty
    assert later.toPlainText() == view.toPlainText() == "" and len(seen) == 2


def test_the_terminal_and_the_app_fold_the_same_meeting_to_the_same_text(qtbot, parts):
    bridge, feed, view, _ = parts
    for batch in MEETING:
        publish(qtbot, bridge, batch)
    out = io.StringIO()
    terminal = TerminalCaptions(out, io.StringIO(), interactive=False)
    for batch in MEETING:
        terminal(batch)
    terminal.finish()
    assert terminal.captions.text() == feed.fold.text() == view.toPlainText()
    assert (
        same_words(out.getvalue())
        == same_words(view.toPlainText())
        == "Me: Are we ready now? Others 2: Yes we. Me: Good."
    )


def test_the_overlay_masks_what_the_settings_mask_and_splits_settled_from_open_words(qtbot, parts):
    bridge, feed, _, overlay = parts
    said = [heard(0, "oh", ""), Settled(0, "none", "capitalized", 1, "Oh"), heard(1, "shit", "")]
    said += [
        Settled(1, "period", "lower", 1, "shit"),
        heard(2, "good", ""),
        Settled(2, "none", "capitalized", 1, "Good"),
    ]
    said += [
        heard(3, "morning", ""),
        Provisional(3, "comma", "lower", 0.5, "morning"),
        PartialWords((Word("every"),)),
    ]
    publish(qtbot, bridge, said)
    assert overlay.captions() == ("Oh shit. Good", "morning, every", {})
    overlay.settings.set(keys.PROFANITY_MASK, True)
    overlay.reload_names()  # as the settings dialog's change does (live_settings)
    assert overlay.captions()[:2] == ("Oh s***. Good", "morning, every")
    assert feed.builder.words[1].text == "shit"  # the transcript keeps what was said
