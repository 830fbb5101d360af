"""The captions window's side of the caption overlay: making it, showing and hiding it, and
feeding it the captions, as a subscriber of the app's caption feed (``app.caption_feed``): the
last lines of the feed's words with compact speaker labels (``app.captions.speaker_labels.overlay_tail``),
named and masked as the settings say.

The overlay is optional: its import is guarded, so the window still opens (with the overlay
command disabled and a note in the log) if it fails to load. Whether it is shown is a setting,
mirrored by the View menu's checkable action; the tray follows through this controller's signals.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from app import settings as keys
from app.caption_feed import CaptionFeed
from app.captions.speaker_labels import overlay_tail
from app.main_window.actions import Actions
from app.profanity import mask as mask_word
from app.settings import AppSettings, speaker_names
from engine import CaptionChange

log = logging.getLogger(__name__)


class OverlayController(QObject):
    visibility_changed = Signal(bool)  # shown or hidden (by the menu, the tray or the overlay's own menu)
    click_through_changed = Signal(bool)

    def __init__(self, settings: AppSettings, feed: CaptionFeed, commands: Actions, window: QWidget):
        """Captions come from ``feed``; the click-through action is added to ``window`` (so its
        shortcut works application-wide) and to the View menu."""
        super().__init__(window)
        self.settings, self.feed, self.commands = settings, feed, commands
        self.overlay = None  # a CaptionOverlay, or None when it could not be made
        self.reload_names()
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
        self._unsubscribe = feed.subscribe(self._on_change)

    def is_visible(self) -> bool:
        return self.overlay is not None and self.overlay.isVisible()

    def is_click_through(self) -> bool:
        return self.overlay is not None and self.overlay.is_click_through()

    def set_visible(self, visible: bool) -> None:
        if self.overlay is None:
            return
        self.overlay.setVisible(bool(visible))
        if visible:  # shown fed: what was said while it was hidden, or before a session ended
            self.feed_overlay()
        self._on_visibility(bool(visible))

    def toggle(self) -> None:
        self.set_visible(not self.is_visible())

    def toggle_click_through(self) -> None:
        if self.overlay is not None:
            self.overlay.toggle_click_through()

    def feed_overlay(self) -> None:
        """Show the feed's latest captions (only while the overlay is visible: it is shown fed).
        The feed's words stay after Stop, until the next Start or Clear."""
        if self.is_visible():
            self.overlay.set_captions(*self.captions())

    def captions(self) -> tuple[str, str, dict[str, str]]:
        """(settled text, open text, {compact label: speaker id}) of the feed's live end."""
        return overlay_tail(self.feed.fold, self.names, self._show)

    def reload_names(self) -> None:
        """The speakers' names and the profanity mask as the settings say now (changed live)."""
        self.names, self.masked = speaker_names(self.settings), self.settings.get(keys.PROFANITY_MASK)
        self.feed_overlay()

    def _show(self, text: str) -> str:
        return mask_word(text) if self.masked else text

    def _on_change(self, _change: CaptionChange) -> None:
        self.feed_overlay()

    def reload_settings(self) -> None:
        if self.overlay is not None:
            self.overlay.reload_settings()

    def close(self) -> None:
        if self.overlay is not None:
            self._unsubscribe()
            self.overlay.close()

    def _on_visibility(self, visible: bool) -> None:
        self.settings.set(keys.OVERLAY_VISIBLE, visible)
        action = self.commands.overlay
        action.blockSignals(True)
        action.setChecked(visible)
        action.blockSignals(False)
        self.visibility_changed.emit(visible)
