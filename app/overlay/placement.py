"""Where the caption overlay window sits: restored per screen, saved as it moves, and pulled
back into view when screens come and go. A mixin of ``CaptionOverlay``, kept apart from the
painting and the style so that each file has one job; the per-screen records themselves
are read and written by ``overlay_geometry``.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QTimer
from PySide6.QtGui import QGuiApplication

from app.overlay import geometry as og


class OverlayPlacement:
    """Needs from the widget: ``_settings``, ``_style``, ``_apply_style`` and ``_content_height``."""

    def _init_placement(self) -> None:
        self._restoring = False
        # Saving waits for the drag or resize to pause: a save per mouse move would hammer QSettings.
        self._save_timer = QTimer(self, singleShot=True, interval=400)
        self._save_timer.timeout.connect(self.save_geometry)
        self._screens_timer = QTimer(self, singleShot=True, interval=0)
        self._screens_timer.timeout.connect(self._on_screens_changed)
        app = QGuiApplication.instance()
        app.screenAdded.connect(self._queue_screen_check)
        app.screenRemoved.connect(self._queue_screen_check)

    def restore_geometry(self, screen=None) -> None:
        """Place the overlay as remembered for ``screen`` (default: where it was last), clamped."""
        screen = screen or og.last_screen(self._settings) or QGuiApplication.primaryScreen()
        key, area = og.screen_key(screen), screen.availableGeometry()
        self._restoring = True
        try:
            style = og.load_style(self._settings, key)
            if style is not None and style != self._style:
                self._apply_style(style, persist=True)  # the settings dialog shows what is on screen
            rect = og.load_rect(self._settings, key)
            height = self._content_height()
            if rect is None:
                rect = og.default_rect(area, height)
            rect = og.clamp_rect(QRect(rect.x(), rect.y(), max(og.MIN_WIDTH, rect.width()), height), area)
            self.setGeometry(rect)
        finally:
            self._restoring = False

    def save_geometry(self) -> None:
        """Remember geometry and style for the screen the overlay is on (also done on move/resize)."""
        if self._restoring:
            return
        self._save_timer.stop()
        key = og.screen_key(self._current_screen())
        rect = QRect(self.geometry())
        if QGuiApplication.platformName() == "wayland":
            # Wayland hides a window's position from it: keep the last known one, store the width.
            old = og.load_rect(self._settings, key)
            rect.moveTopLeft(old.topLeft() if old is not None else rect.topLeft())
        og.save_rect(self._settings, key, rect)
        og.save_style(self._settings, key, self._style)

    def _current_screen(self):
        handle = self.windowHandle()
        if self.isVisible() and handle is not None and handle.screen() is not None:
            return handle.screen()  # the platform knows best (on Wayland, the only one who knows)
        return (
            QGuiApplication.screenAt(self.geometry().center())
            or self.screen()
            or QGuiApplication.primaryScreen()
        )

    def _queue_screen_check(self, _screen=None) -> None:
        self._screens_timer.start()  # after Qt has moved windows off a removed screen

    def _on_screens_changed(self) -> None:
        """A screen came or went: make sure the overlay is still somewhere visible."""
        screen = QGuiApplication.screenAt(self.geometry().center())
        if screen is None:  # its screen was unplugged: use that of the primary screen's record
            self.restore_geometry(QGuiApplication.primaryScreen())
        else:
            self.setGeometry(og.clamp_rect(self.geometry(), screen.availableGeometry()))
