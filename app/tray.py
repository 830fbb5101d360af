"""The tray icon: the overlay's remote control while a meeting has the screen.

In click-through mode the overlay cannot be clicked, and the main window is
usually hidden behind the meeting, so the tray menu is where captions are
started, stopped and the overlay toggled. It only emits signals; the app
decides what they do.

Not every Linux desktop has a tray (stock GNOME has none without an
extension). ``TrayIcon.available()`` says whether one exists; without it the
icon is simply not shown, nothing fails, and the menu still exists (``menu``)
so the app and the tests can use its actions.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from app.overlay_options import CLICK_THROUGH_SHORTCUT
from app.theme import app_icon


class TrayIcon(QObject):
    start_stop_requested = Signal()
    overlay_toggle_requested = Signal()
    click_through_toggle_requested = Signal()
    show_window_requested = Signal()
    history_requested = Signal()
    share_requested = Signal()
    quit_requested = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.menu = QMenu()  # no parent widget: a tray menu must not close with any window
        self.menu.setAccessibleName("livecap tray menu")
        self.start_stop_action = self._add("start-stop", "&Start captions", self.start_stop_requested)
        self.overlay_action = self._add(
            "overlay", "Show caption &overlay", self.overlay_toggle_requested, checkable=True
        )
        # The shortcut is only shown (after a tab), not bound: the main window owns the binding,
        # and a second binding of the same keys would make Qt ignore both as ambiguous.
        self.click_through_action = self._add(
            "click-through",
            f"&Click-through\t{CLICK_THROUGH_SHORTCUT}",
            self.click_through_toggle_requested,
            checkable=True,
        )
        self.menu.addSeparator()
        self.show_window_action = self._add("show-window", "Show &window", self.show_window_requested)
        # Past sessions, searchable: a meeting's words are found from the tray without the window.
        self.history_action = self.menu.addAction("&History…")
        self.history_action.triggered.connect(lambda _checked=False: self.history_requested.emit())
        # The window's Share captions…: OBS's link or a phone's QR code without the window.
        self.share_action = self._add("share", "Share &captions…", self.share_requested)
        self.menu.addSeparator()
        self.quit_action = self._add("quit", "&Quit livecap", self.quit_requested)
        self.icon = QSystemTrayIcon(app_icon(), self)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.set_running(False)

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def show(self) -> bool:
        """Show the icon when the desktop has a tray; returns whether it is shown."""
        if self.available():
            self.icon.show()
        return self.icon.isVisible()

    def hide(self) -> None:
        self.icon.hide()

    def set_running(self, running: bool) -> None:
        self.start_stop_action.setText("&Stop captions" if running else "&Start captions")
        self.icon.setToolTip("livecap: captioning" if running else "livecap: stopped")

    def set_overlay_visible(self, visible: bool) -> None:
        self._set_checked(self.overlay_action, visible)

    def set_click_through(self, on: bool) -> None:
        self._set_checked(self.click_through_action, on)

    def _add(self, name: str, text: str, signal, checkable: bool = False) -> QAction:
        action = self.menu.addAction(text)
        action.setObjectName(name)
        action.setCheckable(checkable)
        # A checkable action flips its own tick when clicked; the app answers with
        # set_overlay_visible/set_click_through, so the tick always shows the real state.
        action.triggered.connect(lambda _checked=False: signal.emit())
        return action

    @staticmethod
    def _set_checked(action: QAction, on: bool) -> None:
        action.blockSignals(True)
        action.setChecked(bool(on))
        action.blockSignals(False)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        # A left click shows the window; the right click opens the menu by itself.
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.show_window_requested.emit()
