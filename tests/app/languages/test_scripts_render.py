"""Right-to-left and CJK captions are drawn with real glyphs (a font that has them, found by Qt's
fallback through fontconfig), never as boxes, in the captions window and the overlay; a
right-to-left paragraph is laid out right to left; the exports keep the text as it was heard.

A glyph is "real" when the font Qt picked for it has it (glyph index 0 is the font's missing-glyph
box) and the pixels drawn differ from those of a codepoint no font has."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QTextLayout

from app.caption_feed import CaptionFeed
from engine import Appended, Word
from tests.app.pixels import colour_distance

pytestmark = [pytest.mark.gui]

TEXTS = {
    "arabic": "مرحبا بكم في الاجتماع",
    "hebrew": "שלום לכולם בפגישה",
    "chinese": "欢迎参加会议",
    "japanese": "会議へようこそ",
}
RTL = ("arabic", "hebrew")
MISSING = "\u0378"  # unassigned: no font has it, every font draws its missing-glyph box


def missing_glyphs(text: str, font: QFont) -> list[str]:
    """The characters of ``text`` drawn as a missing-glyph box with ``font`` and Qt's fallbacks."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    boxes = sum(list(run.glyphIndexes()).count(0) for run in layout.glyphRuns())
    return [text] if boxes else []


def font_has(name: str, font: QFont) -> None:
    if missing_glyphs(TEXTS[name], font):
        pytest.skip(f"no font here has {name} glyphs (install fonts-noto-core / fonts-noto-cjk)")


def ink(image: QImage, background: QColor) -> list[tuple[int, int]]:
    """(x, y) of every pixel that differs from ``background``."""
    ys, xs = np.nonzero(colour_distance(image, background)[::2] > 0)
    return [(int(x), int(y) * 2) for y, x in zip(ys, xs)]


def show_in_view(qtbot, text: str):
    from app.main_window.caption_view import CaptionView

    view = CaptionView(font_size=24)
    qtbot.addWidget(view)
    view.resize(700, 240)
    view.show()
    view.set_feed(CaptionFeed(parent=view))
    builder = view.feed.builder
    events = [Appended(i, Word(w)) for i, w in enumerate(text.split())] or [Appended(0, Word(text))]
    builder.apply(events)
    view.feed.receive(events)
    qtbot.wait(20)
    return view


@pytest.mark.parametrize("name", list(TEXTS))
def test_the_caption_view_draws_the_scripts_glyphs(qtbot, name):
    text = TEXTS[name]
    view = show_in_view(qtbot, text)
    font_has(name, view.document().defaultFont())
    assert view.toPlainText() == text
    background = view.palette().color(view.viewport().backgroundRole())
    drawn = ink(view.viewport().grab().toImage(), background)
    tofu = show_in_view(qtbot, MISSING * len(text))
    boxes = ink(tofu.viewport().grab().toImage(), background)
    assert drawn and set(drawn) != set(boxes)
    block = view.document().firstBlock()
    rtl = name in RTL
    assert block.textDirection() == (
        Qt.LayoutDirection.RightToLeft if rtl else Qt.LayoutDirection.LeftToRight
    )
    # Laid out from the right edge (right to left), or from the left.
    xs = [x for x, _ in drawn]
    width = view.viewport().width()
    if rtl:
        assert max(xs) > width - 60 and min(xs) > 60, (min(xs), max(xs), width)
    else:
        assert min(xs) < 60, (min(xs), max(xs), width)


@pytest.mark.parametrize("name", list(TEXTS))
def test_the_overlay_draws_the_scripts_glyphs(qtbot, settings, name):
    from app.overlay.caption_overlay import CaptionOverlay

    def drawn(text: str):
        overlay = CaptionOverlay(settings)
        qtbot.addWidget(overlay)
        overlay.resize(800, 160)
        overlay.show()
        overlay.set_captions(text, "")
        qtbot.wait(20)
        return overlay, overlay.grab().toImage()

    overlay, image = drawn(TEXTS[name])
    font_has(name, overlay.fonts()[0])
    assert overlay.laid_out_lines() and overlay.laid_out_lines()[-1].text.replace(" ", "") == TEXTS[
        name
    ].replace(" ", "")
    panel = QColor(image.pixel(overlay.width() // 2, 2))  # the panel's colour, above the text
    _, boxes = drawn(MISSING * len(TEXTS[name]))
    words, tofu = ink(image, panel), ink(boxes, panel)
    assert words and set(words) != set(tofu)


@pytest.mark.parametrize("name", list(TEXTS))
def test_exports_keep_the_scripts_text(tmp_path, name):
    from engine import Transcript, TranscriptWord, export_transcript

    words = TEXTS[name].split()
    transcript = Transcript([TranscriptWord(heard=Word(w, i, i + 0.5)) for i, w in enumerate(words)])
    for fmt in ("txt", "srt", "vtt"):
        path = tmp_path / f"out.{fmt}"
        export_transcript(transcript, fmt, path, end_sentence=False)
        assert "".join(TEXTS[name].split()) in "".join(path.read_text(encoding="utf-8").split())


def block_directions(view) -> list[tuple[str, Qt.LayoutDirection]]:
    document, out = view.document(), []
    block = document.firstBlock()
    while block.isValid():
        out.append((block.text(), block.textDirection()))
        block = block.next()
    return out


@pytest.mark.parametrize("name", RTL)
def test_a_meeting_paragraph_goes_its_words_way_not_its_labels(qtbot, name):
    """ "Me: مرحبا …": Qt would take the paragraph's direction from the Latin label; it is laid out
    right to left, as its words are, live and after Stop, and the next speaker's English line left
    to right though it follows a right-to-left one."""
    from app.main_window.caption_view import CaptionView
    from engine import Transcript, TranscriptWord

    spoken = [(w, "me") for w in TEXTS[name].split()] + [(w, "others") for w in "thanks everyone".split()]
    heard = [Word(w, i * 0.4, i * 0.4 + 0.3, speaker=s) for i, (w, s) in enumerate(spoken)]
    view = CaptionView(font_size=24)
    qtbot.addWidget(view)
    view.resize(700, 240)
    view.show()
    view.set_feed(CaptionFeed(parent=view))
    builder = view.feed.builder
    rtl, ltr = Qt.LayoutDirection.RightToLeft, Qt.LayoutDirection.LeftToRight
    expected = [(f"Me: {TEXTS[name]}", rtl), ("Others: thanks everyone", ltr)]
    for i, word in enumerate(heard):  # word by word, as a session shows them
        events = [Appended(i, word)]
        builder.apply(events)
        view.feed.receive(events)
        if i == 0:  # the label and one word: already the words' direction
            assert block_directions(view) == [(f"Me: {word.text}", rtl)]
    assert block_directions(view) == expected
    # The unstable words of the other side start a line of their own, in their direction.
    view.feed.receive([], partial=(Word(TEXTS[name].split()[0], speaker="me"),))
    assert block_directions(view)[-1] == (f"Me: {TEXTS[name].split()[0]}", rtl)
    view.feed.receive([], partial=())
    assert block_directions(view) == expected
    qtbot.wait(20)
    line = view.document().firstBlock().layout().lineAt(0)
    width = view.document().textWidth()
    assert line.naturalTextRect().right() > width - 60 and line.naturalTextRect().left() > 60

    view.load_transcript(Transcript([TranscriptWord(heard=w) for w in heard]))  # after Stop
    assert block_directions(view) == expected
    assert view.toPlainText() == view.loaded_text and not view.edited  # the text itself is untouched
    view.set_speaker_names(view.speaker_names.__class__(me="Ana"))  # a rename rewrites the text
    assert block_directions(view) == [(f"Ana: {TEXTS[name]}", rtl), ("Others: thanks everyone", ltr)]
