"""The dictation text: live captions that never reflow what was already read.

What a reader sees, and why:

* settled words and marks in the normal text colour: they will not change again;
* words whose mark or case is still provisional in a lighter colour, updated in place
  (the colour darkens as they settle, the comma appears, the capital changes);
* the recognizer's unstable words in grey italics at the end: they may still be rewritten;
* in a meeting, the speaker's name in their colour where the speaker changes ("Me: …"), each
  side's unstable words on its own line (``app.captions.speaker_labels``).

The styles' colours, the line height and the paragraph rule are ``app.captions.style``'s.

Only the tail changes. Each update finds the first word whose rendering differs from what
the document holds and replaces the document from there to the end with ``QTextCursor``
edits; everything before it is never touched, so earlier lines do not jump or re-wrap.
Paragraphs (a new QTextBlock where ``engine.transcript.transcript.ParagraphRule`` breaks, the
exports' rule, at settled sentence ends only) keep each edit's re-layout to one short block
however long the session gets, and are the paragraphs the final text shows after Stop.

The words come from the app's one caption feed (``app.caption_feed``): the view subscribes to
it (``set_feed``) and redraws from the first word each change touches.

Long sessions: the full transcript lives in the UI-side ``TranscriptBuilder`` (copy and
export read it), while the document keeps only the last ``MAX_WORDS`` words; older
paragraphs are cut from the top, and only while the reader follows the live end, so a
reader scrolled up never has text pulled from under them. Scrolling up holds the view;
returning to the bottom (or the "Latest" button, or Ctrl+End) follows again.

After a session stops the window loads the final transcript with ``load_transcript`` and the
text becomes editable: ``app.main_window.finished_text`` keeps that text's bookkeeping (see
``app.main_window.edits`` for how edits reach the export).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QToolButton

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.captions import style as caption_style
from app.captions.speaker_labels import label_format, partial_runs
from app.captions.style import PARTIAL, SETTLED, Token, block_format, set_directions, word_formats, word_token
from app.main_window.finished_text import FinishedText
from app.profanity import mask as mask_word
from engine import CaptionChange, SpeakerNames, Transcript

__all__ = ["CaptionView"]


class CaptionView(QTextEdit):
    MAX_WORDS = 4000  # words kept in the document during a session
    TRIM_SLACK = 500  # trim in batches, not on every word
    # How far towards the background the lighter styles go (``app.captions.style``).
    PROVISIONAL_FADE = caption_style.PROVISIONAL_FADE
    PARTIAL_FADE = caption_style.PARTIAL_FADE

    def __init__(self, parent=None, font_size: int = 20):
        super().__init__(parent)
        self._hint = ""  # the placeholder, painted here (see paintEvent)
        self.setAccessibleName("Captions")
        self.setAccessibleDescription(
            "The live transcript. Grey italic words may still change; "
            "lighter words are waiting for their punctuation."
        )
        self.setPlaceholderText("Captions appear here. Press Start (Ctrl+R) to begin.")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
        self.document().setDocumentMargin(16)
        self.set_font_size(font_size)
        self.mask_profanity = False
        self.speaker_names = SpeakerNames()
        self.live = True
        self._finished = FinishedText()  # the text after Stop
        self.feed = None  # the caption feed it shows (``set_feed``)
        self._unsubscribe = None
        self._reset_state()
        self._formats = self._make_formats()
        self._label_formats: dict = {}
        self._follow = True
        self.follow_button = QToolButton(self, text="↓ Latest", visible=False, clicked=self.follow)
        self.follow_button.setAccessibleName("Jump to the latest captions")
        self.follow_button.setToolTip("Follow the live captions again (Ctrl+End)")
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)

    # -- the placeholder ---------------------------------------------------------------------------
    # QTextEdit paints its placeholder inside the empty document's bounds, one line high at this
    # font size, so a hint that wraps lost its second line. It is painted here across the whole
    # viewport instead, with Qt's own placeholder left empty.
    def setPlaceholderText(self, text: str) -> None:
        self._hint = text
        self.viewport().update()

    def placeholderText(self) -> str:
        return self._hint

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self._hint or not self.document().isEmpty():
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.setFont(self.document().defaultFont())
        margin = self.document().documentMargin()
        area = QRectF(self.viewport().rect()).adjusted(margin, margin, -margin, -margin)
        painter.drawText(area, Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap, self._hint)
        painter.end()

    # -- public ------------------------------------------------------------------------------------
    def set_feed(self, feed) -> None:
        """Show the captions of ``feed`` (an ``app.caption_feed.CaptionFeed``) from now on."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.feed = feed
        self.reset()
        self._unsubscribe = feed.subscribe(self.show_change)

    @property
    def builder(self):
        """The words shown (the feed's ``TranscriptBuilder``); None before ``set_feed``."""
        return self.feed.builder if self.feed is not None else None

    def reset(self) -> None:
        self.clear()
        self._set_block_format()
        self._reset_state()
        self.live = True
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.follow()

    def show_change(self, change: CaptionChange) -> None:
        """The feed's subscriber: redraw from the first word ``change`` touches (a new session or
        a cleared text: from an empty view)."""
        if change.restarted:
            self.reset()
        n = len(self.builder.words) if self.builder is not None else 0
        self._render_from(n if change.first is None else max(self._base, change.first))

    def rerender(self) -> None:
        """Redraw everything kept (a new palette, the profanity mask switched)."""
        if not self.live:
            return
        self._formats = self._make_formats()
        self._label_formats = {}
        self._rendered, self._offsets = [], []
        self._partial_runs, self._partial_start = (), 0
        self.clear()
        self._set_block_format()
        self._render_from(self._base, force=True)

    def set_speaker_names(self, names: SpeakerNames) -> None:
        """Show a meeting's speakers by ``names`` (the user renamed one): the live captions are
        drawn again; a finished text keeps the user's edits and gets its labels replaced."""
        old, self.speaker_names = self.speaker_names, names
        if self.live:
            self.rerender()
        else:
            self._finished.rename(self, old, names, self._label_format)

    def load_transcript(self, transcript: Transcript, editable: bool = True) -> None:
        """Show a finished transcript as editable paragraphs (after a session, or recovered); a
        meeting's with its speakers' labels, in their colours, as the live captions showed them
        (only the labels are formatted: the text is the plain text ``loaded_text`` holds)."""
        self.live = False  # first: the scroll bar's signals while the text is replaced read it
        self.setUndoRedoEnabled(False)  # loading is no step the user can undo
        self._label_formats = {}  # the background may have changed since they were made
        self._finished.load(self, transcript, self.speaker_names, self._show, self._label_format)
        self._set_block_format(whole=True)
        self.setUndoRedoEnabled(True)
        self.setReadOnly(not editable)
        if editable:
            self.setTextInteractionFlags(Qt.TextEditorInteraction)
        self.document().setModified(False)
        self._reset_state()

    def set_font_size(self, points: int) -> None:
        font = QFont(self.font())
        font.setPointSize(max(8, int(points)))
        self.setFont(font)
        self.document().setDefaultFont(font)
        self._set_block_format(whole=True)  # the paragraph spacing follows the font

    @property
    def loaded_text(self) -> str:
        """The finished text as loaded ("" before the first Stop)."""
        return self._finished.loaded

    @loaded_text.setter
    def loaded_text(self, text: str) -> None:
        self._finished.loaded = text

    @property
    def edited(self) -> bool:
        """The finished text differs from what was loaded (typed, pasted, or replaced)."""
        return not self.live and self._finished.edited(self)

    @property
    def following(self) -> bool:
        return self._follow

    def follow(self) -> None:
        self._follow = True
        self.follow_button.hide()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
        self._maybe_trim()

    @property
    def kept_words(self) -> int:
        return len(self._rendered)

    # -- rendering -------------------------------------------------------------------------------------
    def _reset_state(self) -> None:
        self._base = 0  # position of the first word the document holds
        self._rendered: list[Token] = []
        self._offsets: list[int] = []  # document position where each word's separator starts
        self._partial_runs: tuple = ()  # the unstable words as shown: partial_runs()
        self._partial_start = 0

    def _show(self, text: str) -> str:
        return mask_word(text) if self.mask_profanity else text

    def _render_from(self, start: int, force: bool = False) -> None:
        if not self.live or self.builder is None:
            return
        n = len(self.builder.words)
        start = max(self._base, min(start, n))
        # New tokens from ``start``; keep the old ones up to the first that differs.
        k = start - self._base
        previous = self._rendered[k - 1] if k > 0 else None
        fresh, names = [], self.speaker_names
        for p in range(start, n):
            previous = word_token(self.builder.words, self.builder.settled, p, previous, names, self._show)
            fresh.append(previous)
        old = self._rendered[k:]
        same = 0
        while not force and same < min(len(old), len(fresh)) and old[same] == fresh[same]:
            same += 1
        k += same
        fresh = fresh[same:]
        last_speaker = self.builder.words[n - 1].heard.speaker if n else None
        partial = partial_runs(self.feed.fold.unstable, last_speaker, self.speaker_names, self._show)
        if not force and not fresh and k == len(self._rendered) and partial == self._partial_runs:
            return  # nothing visible changed
        cut = self._offsets[k] if k < len(self._offsets) else self._partial_start
        bar = self.verticalScrollBar()
        held = None if self._follow else bar.value()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setPosition(cut)
        cursor.movePosition(QTextCursor.End, QTextCursor.KeepAnchor)
        cursor.removeSelectedText()
        del self._rendered[k:], self._offsets[k:]
        for token in fresh:
            self._offsets.append(cursor.position())
            cursor.insertText(token.sep, self._formats[SETTLED])
            if token.label:
                cursor.insertText(token.label, self._label_format(token.speaker))
            cursor.insertText(token.text, self._formats[token.style])
            self._rendered.append(token)
        self._partial_start = cursor.position()
        for text, speaker in partial:
            fmt = self._formats[PARTIAL] if speaker is None else self._label_format(speaker, italic=True)
            cursor.insertText(text, fmt)
        self._partial_runs = partial
        set_directions(self.document(), cut)  # a labelled paragraph goes its words' way
        cursor.endEditBlock()
        if held is not None:
            bar.setValue(held)  # the reader scrolled up: hold the view where it is
        else:
            bar.setValue(bar.maximum())
            self._maybe_trim()

    def _maybe_trim(self) -> None:
        """Cut old paragraphs from the top once the document holds too many words."""
        if not self.live or len(self._rendered) <= self.MAX_WORDS + self.TRIM_SLACK:
            return
        target = len(self._rendered) - self.MAX_WORDS
        j = next((i for i in range(target, len(self._rendered)) if self._rendered[i].sep == "\n"), target)
        first = self._rendered[j]
        removed = self._offsets[j] + len(first.sep)
        cursor = QTextCursor(self.document())
        cursor.setPosition(0)
        cursor.setPosition(removed, QTextCursor.KeepAnchor)
        cursor.removeSelectedText()
        self._rendered = [first._replace(sep="")] + self._rendered[j + 1 :]
        self._offsets = [max(0, o - removed) for o in self._offsets[j:]]
        self._offsets[0] = 0
        self._partial_start -= removed
        self._base += j
        set_directions(self.document(), 0, 0)  # the first paragraph kept the cut one's format

    def _set_block_format(self, whole: bool = False) -> None:
        """Line height and paragraph spacing; blocks created later by typing or by the live
        captions' paragraph breaks inherit it from the block they split."""
        cursor = QTextCursor(self.document())
        if whole:
            cursor.select(QTextCursor.Document)
        cursor.mergeBlockFormat(block_format(self.font().pointSizeF()))

    def _make_formats(self) -> dict[str, QTextCharFormat]:
        return word_formats(self.palette(), self.PROVISIONAL_FADE, self.PARTIAL_FADE)

    def _label_format(self, speaker: str, italic: bool = False) -> QTextCharFormat:
        """A speaker's name: bold, in their colour for this background (``app.theme``)."""
        key = (speaker, italic)
        if key not in self._label_formats:
            dark = self.palette().color(QPalette.Base).lightness() < 128
            self._label_formats[key] = label_format(speaker, dark, italic)
        return self._label_formats[key]

    # -- scrolling -----------------------------------------------------------------------------------
    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        follow = value >= bar.maximum() - 2
        if follow != self._follow:
            self._follow = follow
            self.follow_button.setVisible(not follow and self.live)
            if follow:
                self._maybe_trim()

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        hint = self.follow_button.sizeHint()
        margin = 12 + (self.verticalScrollBar().width() if self.verticalScrollBar().isVisible() else 0)
        self.follow_button.setGeometry(
            self.width() - hint.width() - margin,
            self.height() - hint.height() - 12,
            hint.width(),
            hint.height(),
        )

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange:
            self.rerender()
