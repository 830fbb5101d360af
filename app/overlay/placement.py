"""Where the caption overlay window sits: restored per screen, saved as it moves, and pulled
back into view when screens come and go.

``OverlayPlacement`` is held by the ``CaptionOverlay`` it places and talks to it through its
public methods only (geometry, ``content_height``, ``style_values``, ``restore_style``). The
per-screen records themselves are read and written by ``app.overlay.geometry``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, QTimer
from PySide6.QtGui import QGuiApplication

from app.overlay import geometry as og
from app.settings import AppSettings


class OverlayPlacement(QObject):
    SAVE_DELAY_MS = 400  # saving waits for a drag or resize to pause: a save per mouse move hammers QSettings

    def __init__(self, overlay, settings: AppSettings):
        super().__init__(overlay)
        self.overlay = overlay
        self.settings = settings
        self.restoring = False  # while True, the overlay's style changes are not saved per screen
        self._save_timer = QTimer(self, singleShot=True, interval=self.SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_geometry)
        self._screens_timer = QTimer(self, singleShot=True, interval=0)
        self._screens_timer.timeout.connect(self._on_screens_changed)
        app = QGuiApplication.instance()
        app.screenAdded.connect(self._queue_screen_check)
        app.screenRemoved.connect(self._queue_screen_check)

    def restore_geometry(self, screen=None) -> None:
        """Place the overlay as remembered for ``screen`` (default: where it was last), clamped."""
        overlay = self.overlay
        screen = screen or og.last_screen(self.settings) or QGuiApplication.primaryScreen()
        key, area = og.screen_key(screen), screen.availableGeometry()
        self.restoring = True
        try:
            style = og.load_style(self.settings, key)
            if style is not None and style != overlay.style_values():
                overlay.restore_style(style)  # the settings dialog shows what is on screen
            rect = og.load_rect(self.settings, key)
            height = overlay.content_height()
            if rect is None:
                rect = og.default_rect(area, height)
            rect = og.clamp_rect(QRect(rect.x(), rect.y(), max(og.MIN_WIDTH, rect.width()), height), area)
            overlay.setGeometry(rect)
        finally:
            self.restoring = False

    def save_geometry(self) -> None:
        """Remember geometry and style for the screen the overlay is on."""
        if self.restoring:
            return
        self._save_timer.stop()
        key = og.screen_key(self.current_screen())
        rect = QRect(self.overlay.geometry())
        if QGuiApplication.platformName() == "wayland":
            # Wayland hides a window's position from it: keep the last known one, store the width.
            old = og.load_rect(self.settings, key)
            rect.moveTopLeft(old.topLeft() if old is not None else rect.topLeft())
        og.save_rect(self.settings, key, rect)
        og.save_style(self.settings, key, self.overlay.style_values())

    def save_soon(self) -> None:
        """The overlay moved or changed size: save once it has stayed put for a moment."""
        self._save_timer.start()

    def current_screen(self):
        overlay = self.overlay
        handle = overlay.windowHandle()
        if overlay.isVisible() and handle is not None and handle.screen() is not None:
            return handle.screen()  # the platform knows best (on Wayland, the only one who knows)
        return (
            QGuiApplication.screenAt(overlay.geometry().center())
            or overlay.screen()
            or QGuiApplication.primaryScreen()
        )

    def _queue_screen_check(self, _screen=None) -> None:
        self._screens_timer.start()  # after Qt has moved windows off a removed screen

    def _on_screens_changed(self) -> None:
        """A screen came or went: make sure the overlay is still somewhere visible."""
        overlay = self.overlay
        screen = QGuiApplication.screenAt(overlay.geometry().center())
        if screen is None:  # its screen was unplugged: use that of the primary screen's record
            self.restore_geometry(QGuiApplication.primaryScreen())
        else:
            overlay.setGeometry(og.clamp_rect(overlay.geometry(), screen.availableGeometry()))
