"""The captions window's side of the caption overlay: making it, showing and hiding it, and
feeding it the captions.

The overlay is optional: its import is guarded, so the window still opens (with the overlay
command disabled and a note in the log) if it fails to load. Whether it is shown is a setting,
mirrored by the View menu's checkable action; the tray follows through this controller's signals.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from app import settings as keys
from app.main_window.actions import Actions
from app.main_window.caption_view import CaptionView
from app.settings import AppSettings

log = logging.getLogger(__name__)


class OverlayController(QObject):
    visibility_changed = Signal(bool)  # shown or hidden (by the menu, the tray or the overlay's own menu)
    click_through_changed = Signal(bool)

    def __init__(self, settings: AppSettings, view: CaptionView, commands: Actions, window: QWidget):
        """Captions come from ``view``; the click-through action is added to ``window`` (so its
        shortcut works application-wide) and to the View menu."""
        super().__init__(window)
        self.settings, self.view, self.commands = settings, view, commands
        self.overlay = None  # a CaptionOverlay, or None when it could not be made
        try:
            from app.overlay.caption_overlay import CaptionOverlay

            self.overlay = CaptionOverlay(settings)
        except Exception:  # the window is useful without it
            log.exception("the caption overlay is unavailable")
            commands.overlay.setEnabled(False)
            return
        self.overlay.visibility_changed.connect(self._on_visibility)
        self.overlay.click_through_changed.connect(self.click_through_changed)
        action = self.overlay.click_through_action(window)
        commands.view_menu.insertAction(commands.view_separator, action)

    def is_visible(self) -> bool:
        return self.overlay is not None and self.overlay.isVisible()

    def is_click_through(self) -> bool:
        return self.overlay is not None and self.overlay.is_click_through()

    def set_visible(self, visible: bool) -> None:
        if self.overlay is None:
            return
        self.overlay.setVisible(bool(visible))
        if visible:  # shown fed: what was said while it was hidden, or before a session ended
            self.feed()
        self._on_visibility(bool(visible))

    def toggle(self) -> None:
        self.set_visible(not self.is_visible())

    def toggle_click_through(self) -> None:
        if self.overlay is not None:
            self.overlay.toggle_click_through()

    def feed(self) -> None:
        """Show the view's latest captions (only while the overlay is visible: it is shown fed)."""
        if self.is_visible():
            self.overlay.set_captions(*self.view.tail_captions())

    def reload_settings(self) -> None:
        if self.overlay is not None:
            self.overlay.reload_settings()

    def close(self) -> None:
        if self.overlay is not None:
            self.overlay.close()

    def _on_visibility(self, visible: bool) -> None:
        self.settings.set(keys.OVERLAY_VISIBLE, visible)
        action = self.commands.overlay
        action.blockSignals(True)
        action.setChecked(visible)
        action.blockSignals(False)
        self.visibility_changed.emit(visible)
