"""The quiet line under the captions that says when the input itself is the problem: the
microphone too quiet, clipping, or hearing more noise or room than voice (the engine's
``InputHint``, measured and held for seconds before it changes, so it is shown as it comes)."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from engine import InputHint


class InputHintLabel(QLabel):
    """Hidden while there is no hint; the hint's message, in the palette's quieter text, when
    there is one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Input hint")
        self.setWordWrap(True)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # quiet: not a warning banner
        self.kind: str | None = None
        self.hide()

    def apply(self, events: list) -> None:
        """The latest ``InputHint`` among a batch of the session's events, if any."""
        hint = next((e for e in reversed(events) if isinstance(e, InputHint)), None)
        if hint is not None:
            self.show_hint(hint.kind, hint.message)

    def show_hint(self, kind: str | None, message: str) -> None:
        self.kind = kind
        self.setText(message if kind else "")
        self.setVisible(kind is not None)

    def clear_hint(self) -> None:
        """A new session: the last one's input is not this one's."""
        self.show_hint(None, "")
