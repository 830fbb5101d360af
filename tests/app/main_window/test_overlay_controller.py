"""The window's overlay part on its own: a real caption overlay, the window's real actions.
Showing it is a setting, mirrored by the View menu's action and told to listeners (the tray)."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from app import settings as keys
from app.caption_feed import CaptionFeed
from app.main_window.actions import build_actions
from app.main_window.caption_view import CaptionView
from app.main_window.overlay_controller import OverlayController
from app.settings import AppSettings
from engine.events import Appended, Settled
from engine.words import Word


@pytest.fixture
def parts(qtbot, tmp_path):
    window = QMainWindow()
    qtbot.addWidget(window)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    commands = build_actions(window)
    view = CaptionView()
    view.set_feed(CaptionFeed(parent=view))
    controller = OverlayController(settings, view.feed, commands, window)
    yield controller, commands, settings, view, view.feed.builder
    controller.close()


def test_the_shown_overlay_is_fed_and_showing_it_is_remembered(parts, qtbot):
    controller, commands, settings, view, builder = parts
    events = [Appended(0, Word("hello", 0, 0.3)), Settled(0, "period", "capitalized", 1, "Hello")]
    builder.apply(events)
    view.feed.receive(events, None)  # the bridge's frame: the view and the overlay subscribe
    shown = []
    controller.visibility_changed.connect(shown.append)
    controller.set_visible(True)  # shown fed
    assert controller.is_visible() and controller.overlay.laid_out_lines()[0].text == "Hello."
    assert shown[-1] is True and commands.overlay.isChecked() and settings.get(keys.OVERLAY_VISIBLE)
    controller.toggle()
    assert not controller.is_visible() and shown[-1] is False and not commands.overlay.isChecked()
    assert not settings.get(keys.OVERLAY_VISIBLE)


def test_click_through_is_in_the_view_menu_and_reported(parts, qtbot):
    controller, commands, settings, *_ = parts
    action = next(a for a in commands.view_menu.actions() if a.objectName() == "overlay-click-through")
    with qtbot.waitSignal(controller.click_through_changed) as changed:
        controller.toggle_click_through()
    assert changed.args == [True] and controller.is_click_through() and action.isChecked()
    assert settings.get(keys.OVERLAY_CLICK_THROUGH)
