"""One past session, read-only: its words as they settled, a meeting's speakers' names in their
colours where the speaker changes (as the captions window shows them), and a moment of it
scrolled into view with its words selected and highlighted.

The text is laid out with the exports' paragraph rule and the captions' speaker labels
(``app.captions.speaker_labels``), so a session reads here as it did live and as it exports.
The view keeps where each word is in the document (``word_ranges``), which is how a search hit
becomes a selection.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.captions.speaker_labels import label_format
from app.captions.style import LINE_HEIGHT, PARAGRAPH_SPACING, PARAGRAPHS, set_directions
from app.history.rows import HIGHLIGHT_BACKGROUND, HIGHLIGHT_TEXT
from app.profanity import mask
from engine import SpeakerNames, Transcript


def _key(text: str) -> str:
    """A word as search compares it: letters and digits, case folded."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def locate(words, terms: list[str], position: int | None = None, time_s: float | None = None) -> range:
    """The words of a hit: the run of ``words`` that matches ``terms`` (a phrase's words, in order;
    a prefix search's word starts with its term), the one nearest the hit's moment where several
    do. Where none matches (the journal changed since it was indexed), the word nearest the moment.
    Empty only for a session without words."""
    if not words:
        return range(0)

    def nearness(i: int) -> tuple[float, int]:
        start = words[i].start
        by_time = abs(start - time_s) if time_s is not None and start is not None else 0.0
        return by_time, abs(i - position) if position is not None else 0

    keys = [k for k in (_key(t) for t in terms) if k]
    if keys:
        found = [i for i, w in enumerate(words) if _key(w.word).startswith(keys[0])]
        if found:
            first = min(found, key=nearness)
            end = first + 1
            for k in keys[1:]:
                if end >= len(words) or not _key(words[end].word).startswith(k):
                    break
                end += 1
            return range(first, end)
    nearest = min(range(len(words)), key=nearness)
    return range(nearest, nearest + 1)


class SessionView(QTextEdit):
    """A finished session's transcript, read-only; ``show_words`` selects and highlights a run of
    its words and scrolls it to the middle of the view."""

    def __init__(self, parent=None, font_size: int = 16):
        super().__init__(parent)
        self.setAccessibleName("Session transcript")
        self.setAccessibleDescription("The session's captions as they were shown, read-only.")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.document().setDocumentMargin(16)
        font = self.font()
        font.setPointSize(font_size)
        self.setFont(font)
        self.document().setDefaultFont(font)
        self.word_ranges: list[tuple[int, int]] = []  # document (start, end) of each word
        self.shown: range = range(0)  # the words last shown with ``show_words``

    def load(self, transcript: Transcript, names: SpeakerNames, masked: bool = False) -> None:
        """Show ``transcript`` from the top, ``names`` on a meeting's speakers' lines."""
        self.setExtraSelections([])
        self.clear()
        self.word_ranges, self.shown = [], range(0)
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        plain = QTextCharFormat()
        block = QTextBlockFormat()
        block.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        block.setBottomMargin(self.font().pointSizeF() * PARAGRAPH_SPACING)
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setBlockFormat(block)
        speaker = None
        words = transcript.words
        for number, segment in enumerate(transcript.paragraphs(PARAGRAPHS)):
            if number:
                cursor.insertBlock(block)
            for k, index in enumerate(segment.indices()):
                word = words[index]
                if word.speaker != speaker:
                    speaker = word.speaker
                    label = names.line_label(speaker)
                    if k:
                        cursor.insertBlock(block)
                    if label:
                        cursor.insertText(label, label_format(speaker, dark))
                elif k:
                    cursor.insertText(" ", plain)
                start = cursor.position()
                cursor.insertText(mask(word.display) if masked else word.display, plain)
                self.word_ranges.append((start, cursor.position()))
        cursor.endEditBlock()
        set_directions(self.document())  # a labelled paragraph goes its words' way (RTL text)
        self.moveCursor(QTextCursor.MoveOperation.Start)

    def show_words(self, words: range) -> None:
        """Select ``words`` (indices into the transcript), highlight them and scroll them into the
        middle of the view; the keyboard cursor starts there."""
        if not words or words.stop > len(self.word_ranges):
            return
        self.shown = words
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.word_ranges[words.start][0])
        cursor.setPosition(self.word_ranges[words.stop - 1][1], QTextCursor.MoveMode.KeepAnchor)
        mark = QTextEdit.ExtraSelection()
        mark.cursor = QTextCursor(cursor)
        mark.format.setBackground(QColor(HIGHLIGHT_BACKGROUND))
        mark.format.setForeground(QColor(HIGHLIGHT_TEXT))
        self.setExtraSelections([mark])
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.cursorRect(cursor).center().y() - self.viewport().height() // 2)

    def selected_text(self) -> str:
        return self.textCursor().selectedText()
