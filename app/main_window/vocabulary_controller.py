"""The captions window's vocabulary: a caption word's "Add to vocabulary…", and the terms a
session starts with.

Right-clicking a word of the captions (or a selection) offers "Add to vocabulary…" beside the
view's own Copy and Select All: a small dialog (``app.dialogs.vocabulary_entry.TermDialog``)
with what was recognized as the spoken form and as the term, for the user to correct the term.
It is saved to the user's vocabulary file, and applies from then on: a running session takes the
new vocabulary at its next batch of words (``engine``'s ``LiveSession.learn``), so the words not
settled yet may become the term, and the words settled never change; the next session and a file
transcribed again read the file.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QMenu

from app.dialogs.vocabulary_entry import TermDialog
from app.main_window.caption_view import CaptionView
from app.workers.session_bridge import PAUSED, RUNNING
from engine import Vocabulary, VocabularyError, session_vocabulary

__all__ = ["ADD_TO_VOCABULARY", "VocabularyController", "words_at"]

ADD_TO_VOCABULARY = "Add to &vocabulary…"
BANNER = "vocabulary"
EDGE_PUNCTUATION = ".,;:!?\"'“”‘’()[]…-–—"


def words_at(view: CaptionView, pos: QPoint) -> str:
    """The words the user points at: the selection where ``pos`` is inside it, else the word under
    ``pos``; without the marks around them ("" where there is no word)."""
    at = view.cursorForPosition(pos)
    selected = view.textCursor()
    if selected.hasSelection() and selected.selectionStart() <= at.position() <= selected.selectionEnd():
        text = selected.selectedText()
    else:
        at.select(QTextCursor.SelectionType.WordUnderCursor)
        if not _covers(view, at, pos):  # below the text or beside it: the nearest word is not it
            return ""
        text = at.selectedText()
    words = [w.strip(EDGE_PUNCTUATION) for w in text.replace("\u2029", " ").split()]
    return " ".join(w for w in words if w)


def _covers(view: CaptionView, word: QTextCursor, pos: QPoint) -> bool:
    """Whether ``pos`` is on the text ``word`` selects (a word never wraps, so one line)."""
    edge = QTextCursor(word)
    edge.setPosition(word.selectionStart())
    first = view.cursorRect(edge)
    edge.setPosition(word.selectionEnd())
    last = view.cursorRect(edge)
    return first.top() <= pos.y() <= first.bottom() and first.left() <= pos.x() <= last.right()


class VocabularyController:
    """Wires a ``CaptionWindow``'s caption view to the user's vocabulary (see the module)."""

    def __init__(self, window):
        self.window = window
        self.view: CaptionView = window.view
        self.dialog: TermDialog | None = None
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._show_menu)

    # -- the terms a session starts with ---------------------------------------------------------
    def for_session(self) -> Vocabulary:
        """The user's vocabulary for a new session; a file that cannot be used is said in a banner
        (its one line) and the session runs without it rather than not at all."""
        try:
            vocabulary = session_vocabulary()
        except VocabularyError as exc:
            self.window.banners.show_banner(
                BANNER, "error", f"Your vocabulary is not used: {exc}. Fix it in Settings → Vocabulary."
            )
            return Vocabulary()
        self.window.banners.hide_banner(BANNER)
        return vocabulary

    # -- right-click -------------------------------------------------------------------------------
    def context_menu(self, pos: QPoint) -> QMenu:
        """The view's own menu at ``pos`` (viewport coordinates), with "Add to vocabulary…" where a
        word is under it."""
        menu = self.view.createStandardContextMenu()
        words = words_at(self.view, pos)
        if words:
            menu.addSeparator()
            action = menu.addAction(ADD_TO_VOCABULARY)
            action.setToolTip(f"Teach captions how to write “{words}”")
            action.triggered.connect(lambda: self.add_from_captions(words))
        return menu

    def _show_menu(self, pos: QPoint) -> None:
        menu = self.context_menu(pos)
        menu.exec(self.view.viewport().mapToGlobal(pos))
        menu.deleteLater()

    def add_from_captions(self, words: str) -> TermDialog:
        """Open the dialog pre-filled with ``words`` as recognized (returned, for a test to fill)."""
        self.dialog = TermDialog(words, words, parent=self.window)
        self.dialog.saved.connect(self.learned)
        self.dialog.open()
        return self.dialog

    def learned(self, entry) -> None:
        """A term was saved from the captions: said, and used by a running session."""
        status = self.window.statusBar().showMessage
        if self.apply_to_session():
            status(f"Added “{entry.term}”: captions write it your way from now on.", 6000)
        else:
            status(f"Added “{entry.term}” to your vocabulary: the next session writes it your way.", 6000)

    def apply_to_session(self) -> bool:
        """A running session uses the user's vocabulary, as the file now says, from its next words
        (Settings → Vocabulary changed it, or a caption's "Add to vocabulary…"); False when no
        session runs or the file cannot be used (said in the banner)."""
        session = self.window.bridge.session
        if self.window.bridge.state not in (RUNNING, PAUSED) or session is None:
            return False
        try:
            vocabulary = session_vocabulary()
        except VocabularyError as exc:  # the file was broken by hand meanwhile
            self.window.banners.show_banner(BANNER, "error", f"Your vocabulary is not used: {exc}.")
            return False
        self.window.jobs.run(lambda report, cancelled: session.learn(vocabulary))
        return True
