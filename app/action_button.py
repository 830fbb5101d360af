"""A push button that mirrors an action: the captions window's and the History window's buttons.

A QPushButton rather than a toolbar button because it is in the Tab order, so a window works
from the keyboard alone; mirroring the action means the button, the menu item and the shortcut
never disagree about whether it is enabled or what it is called.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QPushButton

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)

__all__ = ["ActionButton"]


class ActionButton(QPushButton):
    """A push button that shows and triggers an action (text, enabled state, tooltip)."""

    def __init__(self, action: QAction, parent=None):
        super().__init__(parent)
        self.action = action
        self.clicked.connect(action.trigger)
        action.changed.connect(self._sync)
        self._sync()

    def _sync(self) -> None:
        text = self.action.text()
        # No mnemonic on the button: its Ctrl shortcut is the way, and an Alt letter here would
        # clash with the menu bar's (Alt+S: Settings menu vs Start button).
        self.setText(text.replace("&", ""))
        self.setEnabled(self.action.isEnabled())
        plain = text.replace("&", "").replace("…", "")
        shortcut = self.action.shortcut().toString(QKeySequence.NativeText)
        self.setAccessibleName(plain)
        self.setToolTip(f"{plain} ({shortcut})" if shortcut else plain)
