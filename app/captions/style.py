"""How captions look: the words' three styles, the line height, the paragraphs, the labels' places.

One place for it, beside the windows, because three views must agree: the live captions
(``app.main_window.caption_view``), the finished text after Stop
(``app.main_window.finished_text``), and a past session in the History window
(``app.history.session_view``). A session then reads the same live, after Stop, in the history,
and in its exports, whose paragraph rule is the one used here.

The styles tell a reader how far to trust a word:

* settled words in the normal text colour: they will not change again;
* provisional words (their mark or case may still change) lighter;
* the recognizer's unstable (partial) words lighter still, in italics.

The lighter styles are the text colour moved towards the background rather than fixed colours,
so they follow the palette (light or dark) and keep their contrast in both.

Each word of the live captions is laid out as a ``Token``: what comes before it (a space, or a
paragraph break where ``PARAGRAPHS`` or a change of speaker starts one, then the new speaker's
label), the word as shown, and its style.

A paragraph's direction is its words': Qt takes a paragraph's from its first strong letter, which
in a meeting's paragraph is the speaker's label ("Me: …", Latin), so an Arabic or Hebrew
paragraph would be laid out left to right. ``set_directions`` gives each labelled paragraph the
direction of the first strong letter after its label (the label's characters are marked with
``LABEL_PROPERTY`` in their format, ``speaker_labels.label_format``); any other paragraph keeps
Qt's own choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QPalette,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from app.text_direction import strong_direction
from engine import ParagraphRule, SpeakerNames

SETTLED, PROVISIONAL, PARTIAL = "settled", "provisional", "partial"
PARAGRAPHS = ParagraphRule()  # the exports' rule too: Stop must not reflow the text
LINE_HEIGHT = 135  # percent: captions are read at a glance, and tight lines blur together
PARAGRAPH_SPACING = 0.6  # of the font size, between paragraphs
# How far towards the background the lighter styles go: enough to tell them apart at a
# glance, little enough to keep contrast (≥ 4.5:1 on the default light and dark palettes).
PROVISIONAL_FADE = 0.28
PARTIAL_FADE = 0.36
# In a character format: these characters are a speaker's label, which has no say in the
# paragraph's direction.
LABEL_PROPERTY = QTextFormat.Property.UserProperty + 1


class Token(NamedTuple):
    """One word as the document holds it: what comes before it (a space or a paragraph break, then
    its speaker's label where the speaker changes), the word, its style."""

    sep: str
    label: str
    text: str
    style: str
    place: object  # its ParagraphPlace
    speaker: str


def word_token(
    words: list,
    settled: list[bool],
    p: int,
    previous: Token | None,
    names: SpeakerNames,
    show: Callable[[str], str],
) -> Token:
    """Word ``p`` of ``words`` (``settled``: which are) laid out after ``previous``, the token of
    word ``p - 1`` (None: the document's first word), ``names`` labelling speakers, the text
    through ``show``."""
    word = words[p]
    style, speaker, text = (SETTLED if settled[p] else PROVISIONAL, word.heard.speaker, show(word.display))
    if previous is None or speaker != previous.speaker:  # a new speaker starts a new paragraph
        label = names.line_label(speaker)
        sep = "" if previous is None else "\n"
        return Token(sep, label, text, style, PARAGRAPHS.place(None, None, word), speaker)
    place = PARAGRAPHS.place(previous.place, words[p - 1], word, before_settled=settled[p - 1])
    return Token("\n" if place.starts_paragraph else " ", "", text, style, place, speaker)


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` of the way towards ``b`` (0 = a, 1 = b)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def word_formats(
    palette: QPalette, provisional_fade: float = PROVISIONAL_FADE, partial_fade: float = PARTIAL_FADE
) -> dict[str, QTextCharFormat]:
    """Each style's character format on ``palette``'s text and background colours."""
    text, base = palette.color(QPalette.Text), palette.color(QPalette.Base)
    formats = {}
    for style, fade, italic in (
        (SETTLED, 0.0, False),
        (PROVISIONAL, provisional_fade, False),
        (PARTIAL, partial_fade, True),
    ):
        fmt = QTextCharFormat()
        fmt.setForeground(blend(text, base, fade))
        fmt.setFontItalic(italic)
        formats[style] = fmt
    return formats


def block_format(point_size: float) -> QTextBlockFormat:
    """The paragraphs' line height and spacing for a font of ``point_size`` points."""
    fmt = QTextBlockFormat()
    fmt.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
    fmt.setBottomMargin(point_size * PARAGRAPH_SPACING)
    return fmt


def words_direction(block: QTextBlock) -> Qt.LayoutDirection:
    """The direction ``block`` is laid out in: that of its words after a leading speaker's label
    (the characters whose format has ``LABEL_PROPERTY``); Auto (Qt's choice, from the first strong
    letter) for a paragraph with no label, or none of whose words has a strong letter yet."""
    auto, labelled, it = Qt.LayoutDirection.LayoutDirectionAuto, False, block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.charFormat().boolProperty(LABEL_PROPERTY):
            labelled = True
        elif not labelled:
            return auto  # words before any label: no label leads this paragraph
        elif (direction := strong_direction(fragment.text())) != auto:
            return direction
        it += 1
    return auto


def set_directions(document: QTextDocument, start: int = 0, end: int | None = None) -> None:
    """Give each paragraph of ``document`` from the one at position ``start`` to the one at ``end``
    (None: to the last) its words' direction (``words_direction``). Only paragraphs whose direction
    changes are touched; a new paragraph inherits the one it split from, so each is set, not left."""
    block = document.findBlock(start)
    last = document.lastBlock() if end is None else document.findBlock(end)
    cursor = QTextCursor(document)
    while block.isValid():
        direction = words_direction(block)
        if block.blockFormat().layoutDirection() != direction:
            fmt = QTextBlockFormat()
            fmt.setLayoutDirection(direction)
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(fmt)
        if block == last:
            break
        block = block.next()
