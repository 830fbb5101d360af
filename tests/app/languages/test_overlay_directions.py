"""The caption overlay lays out right-to-left captions right to left (the first word at the right
edge, the next ones leftwards), as the captions window lays out their paragraphs; English
captions keep reading from the left. Shown on the real overlay (offscreen) and grabbed."""

import pytest
from PySide6.QtGui import QPainterPath

from app.overlay.caption_layout import CaptionLayout
from tests.app.languages.test_scripts_render import RTL, TEXTS, font_has

pytestmark = [pytest.mark.gui]

ENGLISH = "welcome to the meeting"


@pytest.fixture
def overlay(qtbot, settings):
    from app.overlay.caption_overlay import CaptionOverlay

    widget = CaptionOverlay(settings)
    qtbot.addWidget(widget)
    widget.resize(900, widget.height())
    widget.set_background_opacity(1.0)
    widget.show()
    return widget


def white_xs(overlay) -> list[int]:
    """x of every pure white pixel of the grabbed overlay: the settled words' fill (the
    provisional ones are grey, the outline and the panel dark)."""
    image = overlay.grab().toImage()
    return [
        x
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).lightness() >= 250
    ]


def show_first_word_settled(overlay, qtbot, text: str):
    """``text``'s first word settled (white), the others provisional (grey): where the white ink
    is on screen is where the first word is."""
    first, *rest = text.split()
    overlay.set_captions(first, " ".join(rest))
    qtbot.wait(20)
    (line,) = overlay.laid_out_lines()
    return line


@pytest.mark.parametrize("name", RTL)
def test_a_right_to_left_caption_starts_at_the_right_edge(qtbot, overlay, name):
    line = show_first_word_settled(overlay, qtbot, TEXTS[name])
    settled, provisional = line.runs
    assert line.right_to_left and settled.text == TEXTS[name].split()[0] and not settled.provisional
    available = overlay.width() - 2 * overlay.PAD_X
    assert settled.x + settled.width == pytest.approx(available)  # right-aligned
    assert provisional.x + provisional.width < settled.x  # the next words to its left
    assert line.width < available / 2  # short: the left half of the panel stays empty

    font_has(name, overlay.fonts()[0])
    xs = white_xs(overlay)
    assert xs and min(xs) > overlay.width() / 2, (min(xs), overlay.width())
    assert min(xs) >= overlay.PAD_X + provisional.x + provisional.width - 1  # drawn where laid out


def test_an_english_caption_still_starts_at_the_left_edge(qtbot, overlay):
    line = show_first_word_settled(overlay, qtbot, ENGLISH)
    settled, provisional = line.runs
    assert not line.right_to_left and settled.text == "welcome"
    assert settled.x == 0 and provisional.x > settled.x + settled.width
    assert [line.text_to_draw(run) for run in line.runs] == ["welcome", "to the meeting"]
    xs = white_xs(overlay)
    assert xs and max(xs) < overlay.width() / 2 and min(xs) < overlay.PAD_X + 10


def latin_is_right_of_arabic(text: str, font) -> bool:
    """Whether Qt, given ``text`` as the overlay gives it (``QPainterPath.addText``), draws its
    Latin word "Google" at the right end of the text rather than at the left."""
    from PySide6.QtGui import QFontMetricsF

    metrics, drawn = QFontMetricsF(font), QPainterPath()
    drawn.addText(0, 40, font, text)
    left, right = QPainterPath(), QPainterPath()
    left.addText(0, 40, font, "Google")
    right.addText(metrics.horizontalAdvance(text) - metrics.horizontalAdvance("Google"), 40, font, "Google")
    outside = [p.subtracted(drawn).boundingRect().width() for p in (left, right)]
    return outside[1] < outside[0]


def test_an_english_word_in_arabic_follows_the_arabic_line(qtbot, overlay):
    """An Arabic caption whose line starts with an English word: still right to left, the English
    word at the right edge (where Qt, left to itself, puts a run's first strong letter's way)."""
    text = "Google " + TEXTS["arabic"]
    overlay.set_captions(text, "")
    qtbot.wait(20)
    (line,) = overlay.laid_out_lines()
    (run,) = line.runs
    assert line.right_to_left and run.text == text
    available = overlay.width() - 2 * overlay.PAD_X
    assert run.x + run.width == pytest.approx(available)
    font = overlay.fonts()[0]
    assert not latin_is_right_of_arabic(run.text, font)  # Qt alone would draw it left to right
    assert latin_is_right_of_arabic(line.text_to_draw(run), font)


def configured(width: float = 400, lines: int = 3) -> CaptionLayout:
    from PySide6.QtGui import QFont

    layout = CaptionLayout()
    font = QFont()
    font.setPointSize(20)
    italic = QFont(font)
    italic.setItalic(True)
    layout.configure(font, italic, width, lines)
    return layout


def test_arabic_with_english_words_stays_right_to_left_as_it_scrolls():
    """A long Arabic caption with English words in it, word by word as it comes: every line, even
    one that begins with an English word, reads right to left, and no line ever flips."""
    arabic = TEXTS["arabic"].split()
    words = []
    for i in range(60):
        words.append("Zoom" if i % 5 == 3 else arabic[i % len(arabic)])
    layout = configured()
    starts_english = 0
    for n in range(1, len(words) + 1):
        shown = layout.layout(" ".join(words[:n]), "")
        assert all(line.right_to_left for line in shown), [line.text for line in shown]
        starts_english += shown[0].runs[0].text.startswith("Zoom")
    assert starts_english  # the case that matters did come up


def test_each_turn_of_a_meeting_goes_its_own_way():
    """English from Me, Arabic from the others: each line goes the way of the turn it begins in,
    taken from the words after the label (Latin), and an Arabic turn's label is at its right."""
    labels = {"Me›", "O1›"}
    me = "we should ship the overlay before Friday because it matters".split()
    others = (TEXTS["arabic"] + " " + TEXTS["arabic"]).split()
    layout = configured(width=300, lines=8)
    shown = layout.layout(" ".join(["Me›", *me, "O1›", *others]), "", labels)
    directions, turn = [], None
    for line in shown:
        turn = line.runs[0].text if line.runs[0].label else turn  # the turn it begins in
        directions.append((line.right_to_left, turn))
        turn = ([run.text for run in line.runs if run.label] or [turn])[-1]
    assert directions[0] == (False, "Me›") and directions[-1] == (True, "O1›")
    assert all(rtl == (turn == "O1›") for rtl, turn in directions), directions
    assert all(line.width <= 300 for line in shown)

    (opening,) = configured(width=600).layout(f"O1› {TEXTS['arabic']}", "", labels)
    label, words = opening.runs
    assert opening.right_to_left and label.label and label.x > words.x  # the label first, on the right
    assert label.x + label.width == pytest.approx(600)
