"""The window's Captions → Share captions…: opens the share dialog (``app.dialogs.share_dialog``)
on the running session's captions (the window's caption feed), and stops sharing when the session
ends."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.dialogs.share_dialog import ShareDialog
from app.workers.session_bridge import PAUSED, RUNNING, SessionBridge


class ShareController(QObject):
    def __init__(self, bridge: SessionBridge, action: QAction, window) -> None:
        super().__init__(window)
        self.bridge, self.window = bridge, window
        self.dialog: ShareDialog | None = None  # made when first asked for
        action.triggered.connect(self.show)
        bridge.finished.connect(lambda _transcript: self.stop())

    def running_session(self):
        return self.bridge.session if self.bridge.state in (RUNNING, PAUSED) else None

    def show(self) -> ShareDialog:
        if self.dialog is None:
            self.dialog = ShareDialog(self.running_session, self.window.captions, self.window)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def stop(self) -> None:
        if self.dialog is not None:
            self.dialog.stop()
