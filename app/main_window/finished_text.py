"""The finished text: what the caption view holds after Stop, the user's to edit.

After a session stops (or a recovered one opens) the window loads the final transcript into
``CaptionView`` with ``load_transcript``, and the live captions become plain, editable
paragraphs: a meeting's with each speaker's label where the speaker changes ("Me: …"), the
label alone in the speaker's colour, as the live captions drew it. This module keeps that text's
bookkeeping, which the live rendering has no use for:

* the text as loaded (``loaded``), so the window can tell whether the user edited it
  (``app.main_window.edits`` carries edits back onto the transcript's words);
* who spoke in it, so a rename after Stop swaps the labels in the text shown, edits and all,
  and the labels keep their colours.

Kept apart from the live rendering because the two never run together and obey different
rules: the live captions rewrite the document's tail from engine events; the finished text is
the user's, so a change made here goes through the cursor and keeps their undo history.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

from app.captions.speaker_labels import format_labels, label_speakers, labelled_paragraphs, relabel
from app.captions.style import PARAGRAPHS, set_directions
from engine import SpeakerNames, Transcript

ShowWord = Callable[[str], str]  # a word as shown (the profanity mask, when it is on)
LabelFormat = Callable[[str], QTextCharFormat]  # a speaker's name's format


class FinishedText:
    """The finished text's bookkeeping, for the caption view ``edit`` it is shown in: loads it,
    tells edits, renames speakers. ``label_format(speaker)`` is the view's format for a speaker's
    name (the view caches them and knows the background). The view is handed in on each call, not
    kept: a reference back to it would put the widget in a reference cycle, which only the cyclic
    collector frees (see ``app.garbage_collection``)."""

    def __init__(self):
        self.loaded = ""  # the text as loaded, to tell whether the user edited it
        self.speakers: set[str] = set()  # who spoke in it, for a rename after Stop

    def load(
        self,
        edit: QTextEdit,
        transcript: Transcript,
        names: SpeakerNames,
        show: ShowWord,
        label_format: LabelFormat,
    ) -> None:
        """Put ``transcript`` in the document as the finished text: the live captions' paragraphs
        (``PARAGRAPHS``, so Stop does not reflow the text), labelled by ``names``, each word
        through ``show``; only the labels are formatted, so the document holds exactly the plain
        text ``loaded`` keeps."""
        paragraphs = labelled_paragraphs(transcript, names, show, PARAGRAPHS)
        self.speakers = {w.heard.speaker for w in transcript.words if w.heard.speaker}
        self.loaded = "\n".join(paragraphs)
        edit.setPlainText(self.loaded)
        self.format_labels(edit, names, label_format)

    def edited(self, edit: QTextEdit) -> bool:
        """The document differs from the text as loaded (typed, pasted, or replaced)."""
        return edit.toPlainText() != self.loaded

    def rename(
        self, edit: QTextEdit, old: SpeakerNames, new: SpeakerNames, label_format: LabelFormat
    ) -> None:
        """The labels of ``old`` names replaced by ``new`` ones in the text shown, the user's edits
        kept, as one step to undo; the text as loaded follows, so a rename alone is no edit."""
        text = edit.toPlainText()
        renamed = relabel(text, old, new, self.speakers)
        if renamed == text:
            return
        edited = self.edited(edit)
        cursor = QTextCursor(edit.document())
        cursor.beginEditBlock()  # one step to undo, the names' colours with them
        cursor.select(QTextCursor.Document)
        cursor.insertText(renamed, QTextCharFormat())  # through the cursor: the user's undo history stays
        self.format_labels(edit, new, label_format)
        cursor.endEditBlock()
        self.loaded = relabel(self.loaded, old, new, self.speakers)
        edit.document().setModified(edited)

    def format_labels(self, edit: QTextEdit, names: SpeakerNames, label_format: LabelFormat) -> None:
        """The text's labels in their speakers' colours, as the live captions drew them, and each
        labelled paragraph laid out in its words' direction (an Arabic one right to left)."""
        labels = label_speakers(names, self.speakers)
        format_labels(edit.document(), labels, label_format)
        set_directions(edit.document())
