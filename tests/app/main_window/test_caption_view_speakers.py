"""A meeting in the caption view (app/main_window/caption_view.py, speaker_labels.py): the
speaker's name where the speaker changes, each side's unstable words on its own line, label
corrections before they settle, colours that keep contrast in both themes, and what the view
really paints (a screenshot)."""

import pytest
from PySide6.QtGui import QColor, QTextCursor

from app.caption_feed import CaptionFeed
from app.captions.speaker_labels import compact_label, overlay_tail
from app.main_window.caption_view import CaptionView
from app.theme import (
    caption_colors,
    contrast_ratio,
    dark_palette,
    light_palette,
    speaker_color,
    speaker_palette,
)
from engine import (
    SPEAKER_ME,
    SPEAKER_OTHERS,
    Appended,
    PartialWords,
    Provisional,
    Settled,
    SpeakerNames,
    SpeakersLabelled,
    TranscriptBuilder,
    Word,
)
from tests.app.main_window.test_caption_view import feed
from tests.app.pixels import pixels_near

pytestmark = [pytest.mark.gui]

ANA = "others:1"
BEN = "others:2"


@pytest.fixture
def view(qtbot):
    v = CaptionView(font_size=20)
    qtbot.addWidget(v)
    v.setPalette(light_palette())
    v.resize(640, 360)
    v.show()
    v.set_feed(CaptionFeed(parent=v))
    return v


def said(view, start, speaker, *texts, settle=True):
    """Events for ``texts`` spoken by ``speaker`` from position ``start``, 0.4 s apart."""
    events = []
    for i, text in enumerate(texts):
        p = start + i
        events.append(Appended(p, Word(text, p * 0.4, p * 0.4 + 0.3, speaker=speaker)))
        mark = "period" if i == len(texts) - 1 else "none"
        case = "capitalized" if i == 0 else "lower"
        shown = text.capitalize() if i == 0 else text
        events.append(Settled(p, mark, case, 1, shown) if settle else Provisional(p, mark, case, 0.5, shown))
    return events


def colour_of_text(view, text):
    """Foreground colour and weight of the first character of ``text`` in the document."""
    at = view.toPlainText().index(text)
    cursor = QTextCursor(view.document())
    cursor.setPosition(at + 1)
    fmt = cursor.charFormat()
    return fmt.foreground().color().name(), fmt.fontWeight()


def test_a_line_starts_with_the_speakers_name_where_the_speaker_changes(view):
    feed(view, said(view, 0, SPEAKER_ME, "so", "what", "do", "you", "think"))
    feed(view, said(view, 5, ANA, "i", "think", "it", "works"))
    feed(view, said(view, 9, SPEAKER_ME, "good"))
    assert view.toPlainText() == "Me: So what do you think.\nOthers: I think it works.\nMe: Good."
    light = False
    me, ana = speaker_color(SPEAKER_ME, light).name(), speaker_color(ANA, light).name()
    assert colour_of_text(view, "Me:")[0] == me and colour_of_text(view, "Others:")[0] == ana
    assert me != ana and colour_of_text(view, "Me:")[1] > 500  # bold
    # The words themselves stay in the settled text colour: only the name is coloured.
    assert colour_of_text(view, "So what")[0] == view._formats["settled"].foreground().color().name()
    # The view's own paragraphs: one per turn.
    assert view.document().blockCount() == 3


def test_each_sides_unstable_words_show_on_its_own_line(view):
    feed(view, said(view, 0, SPEAKER_ME, "hello", "everyone"))
    # The bridge hands over both sides' partial words, each word carrying its speaker.
    partial = (Word("and", speaker=SPEAKER_ME), Word("hi", speaker=ANA), Word("there", speaker=ANA))
    feed(view, [], partial=partial)
    assert view.toPlainText() == "Me: Hello everyone. and\nOthers: hi there"
    assert colour_of_text(view, "and")[0] == view._formats["partial"].foreground().color().name()
    # Only Me's partial is left: the others' line goes.
    feed(view, [], partial=(Word("and", speaker=SPEAKER_ME), Word("so", speaker=SPEAKER_ME)))
    assert view.toPlainText() == "Me: Hello everyone. and so"


def test_the_bridge_keeps_each_sides_partial_words(qtbot):
    from app.workers.session_bridge import SessionBridge

    bridge = SessionBridge()
    got = []
    bridge.captions_changed.connect(lambda events, partial: got.append(partial))
    bridge._on_engine_events([PartialWords((Word("hi"),), ANA), PartialWords((Word("and"),), SPEAKER_ME)])
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    bridge._on_engine_events([PartialWords((Word("there"),), ANA)])  # replaces the others' only
    qtbot.waitUntil(lambda: len(got) == 2, timeout=5000)
    assert [(w.text, w.speaker) for w in got[-1]] == [("there", ANA), ("and", SPEAKER_ME)]


def test_a_label_corrected_before_it_settles_rerenders_the_lines(view):
    feed(view, said(view, 0, SPEAKER_ME, "are", "we", "ready"))
    feed(view, said(view, 3, SPEAKER_OTHERS, "yes", "we", "are"))
    assert view.toPlainText() == "Me: Are we ready.\nOthers: Yes we are."
    # The engine tells the voices apart: the first turn of the others was Ana's, then Ben's last word.
    feed(view, [SpeakersLabelled(((3, ANA), (4, ANA), (5, BEN)), settled_through=3)])
    assert view.toPlainText() == "Me: Are we ready.\nOthers: Yes we\nOthers 2: are."
    assert colour_of_text(view, "Others 2:")[0] == speaker_color(BEN, False).name()
    # A later correction before settling: the last word was Ana's after all.
    feed(view, [SpeakersLabelled(((5, ANA),), settled_through=6)])
    assert view.toPlainText() == "Me: Are we ready.\nOthers: Yes we are."


def test_one_source_sessions_show_no_labels(view):
    feed(view, said(view, 0, "", "hello", "world"), partial=(Word("and"),))
    assert view.toPlainText() == "Hello world. and"
    assert overlay_tail(view.feed.fold, view.speaker_names) == ("Hello world.", "and", {})


def test_speaker_colours_keep_contrast_in_both_themes(qtbot, view):
    for dark, palette in ((False, light_palette()), (True, dark_palette())):
        backgrounds = [caption_colors(dark).background, palette.color(palette.ColorRole.Base)]
        if dark:
            backgrounds.append(QColor("#000000"))  # the overlay's panel, at full opacity
        for colour in speaker_palette(dark):
            for background in backgrounds:
                assert contrast_ratio(colour, background) >= 4.5, (colour.name(), background.name())
    # The view picks the scheme's colours from its own background.
    feed(view, said(view, 0, SPEAKER_ME, "hello") + said(view, 1, ANA, "hi"))
    view.setPalette(dark_palette())
    assert colour_of_text(view, "Me:")[0] == speaker_color(SPEAKER_ME, True).name()
    assert colour_of_text(view, "Others:")[0] == speaker_color(ANA, True).name()


def matching_pixels(image, colour: QColor, tolerance: int = 6) -> int:
    return pixels_near(image, colour, tolerance)


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_a_screenshot_shows_each_speakers_label_in_their_colour(qtbot, view, palette):
    view.setPalette(palette())
    dark = palette is dark_palette
    feed(view, said(view, 0, SPEAKER_ME, "what", "about", "the", "budget"))
    feed(view, said(view, 4, ANA, "approved", "yesterday"))
    text = view.toPlainText()
    assert text.startswith("Me: ") and "\nOthers: " in text  # what a screen reader reads
    image = view.grab().toImage()
    for speaker in (SPEAKER_ME, ANA):
        assert matching_pixels(image, speaker_color(speaker, dark)) > 20, speaker
    # Nothing else on the page is drawn in a speaker's colour: a one-source text has none.
    view.feed.restart(TranscriptBuilder())
    feed(view, said(view, 0, "", "what", "about", "the", "budget"))
    image = view.grab().toImage()
    assert matching_pixels(image, speaker_color(SPEAKER_ME, dark)) == 0


def test_the_finished_text_keeps_the_labels_and_edits_keep_the_speakers(view):
    from app.captions.speaker_labels import label_speakers
    from app.main_window.edits import apply_edits

    feed(view, said(view, 0, SPEAKER_ME, "are", "we", "ready") + said(view, 3, ANA, "yes"))
    transcript = view.builder.transcript.copy()
    view.load_transcript(transcript)
    assert view.toPlainText() == "Me: Are we ready.\nOthers: Yes."
    labels = label_speakers(view.speaker_names, {SPEAKER_ME, ANA})
    edited = apply_edits(transcript, "Me: Are we ready?\nOthers: Yes.\nMe: Good.", labels=labels)
    assert [(w.display, w.heard.speaker) for w in edited.words] == [
        ("Are", SPEAKER_ME),
        ("we", SPEAKER_ME),
        ("ready?", SPEAKER_ME),
        ("Yes.", ANA),
        ("Good.", SPEAKER_ME),
    ]


def test_compact_labels_for_the_overlay():
    names = SpeakerNames(renamed={BEN: "Maximiliane Müller"})
    assert compact_label(names, SPEAKER_ME) == "Me›"
    assert compact_label(names, SPEAKER_OTHERS) == "Others›"
    assert compact_label(names, ANA) == "Others›"  # the first voice: the side's name
    assert compact_label(names, BEN) == "MM›"
    assert compact_label(SpeakerNames(renamed={ANA: "Ana López"}), ANA) == "Ana›"
    assert compact_label(names, "") == ""


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_the_finished_text_shows_each_speakers_label_in_their_colour(qtbot, view, palette):
    view.setPalette(palette())
    dark = palette is dark_palette
    feed(view, said(view, 0, SPEAKER_ME, "what", "about", "the", "budget"))
    feed(view, said(view, 4, ANA, "approved", "yesterday") + said(view, 6, BEN, "and", "signed"))
    view.load_transcript(view.builder.transcript.copy())  # what Stop leads to
    plain = "Me: What about the budget.\nOthers: Approved yesterday.\nOthers 2: And signed."
    assert view.toPlainText() == view.loaded_text == plain and not view.edited
    image = view.grab().toImage()
    for speaker in (SPEAKER_ME, ANA, BEN):
        assert matching_pixels(image, speaker_color(speaker, dark)) > 20, speaker
    assert colour_of_text(view, "Others:") == (speaker_color(ANA, dark).name(), 700)  # bold
    # Only the labels: the words, and the space after a label, keep the text's format.
    assert colour_of_text(view, "What")[1] < 700 and colour_of_text(view, " What")[1] < 700
    assert colour_of_text(view, "What")[0] not in {
        speaker_color(s, dark).name() for s in (SPEAKER_ME, ANA, BEN)
    }
    # A rename after Stop: the new names, in the same colours, one step to undo.
    view.set_speaker_names(SpeakerNames(renamed={ANA: "Ana"}))
    assert view.toPlainText() == plain.replace("Others:", "Ana:") and not view.edited
    assert colour_of_text(view, "Ana:") == (speaker_color(ANA, dark).name(), 700)
    assert colour_of_text(view, "Me:")[0] == speaker_color(SPEAKER_ME, dark).name()
    assert colour_of_text(view, "Approved")[1] < 700
    image = view.grab().toImage()
    for speaker in (SPEAKER_ME, ANA, BEN):
        assert matching_pixels(image, speaker_color(speaker, dark)) > 20, speaker
    view.document().undo()
    assert view.toPlainText() == plain
