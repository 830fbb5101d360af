"""The tray icon (offscreen Qt, where no system tray exists): its menu still works and emits the
app's requests; labels and ticks follow the state the app reports."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QSystemTrayIcon

from app.theme import ICON_PATH, app_icon
from app.tray import TrayIcon

pytestmark = [pytest.mark.gui]


@pytest.fixture
def tray(qapp):
    icon = TrayIcon()
    yield icon
    icon.hide()


def actions(tray) -> dict:
    return {a.objectName(): a for a in tray.menu.actions() if a.objectName()}


def test_menu_actions_emit_the_requests(qtbot, tray):
    found = actions(tray)
    assert list(found) == ["start-stop", "overlay", "click-through", "show-window", "share", "quit"]
    for name, signal in (
        ("start-stop", tray.start_stop_requested),
        ("overlay", tray.overlay_toggle_requested),
        ("click-through", tray.click_through_toggle_requested),
        ("show-window", tray.show_window_requested),
        ("share", tray.share_requested),
        ("quit", tray.quit_requested),
    ):
        with qtbot.waitSignal(signal, timeout=1000):
            found[name].trigger()


def test_each_action_emits_only_its_own_signal(qtbot, tray):
    fired = []
    for signal in (
        tray.start_stop_requested,
        tray.overlay_toggle_requested,
        tray.click_through_toggle_requested,
        tray.show_window_requested,
        tray.share_requested,
        tray.quit_requested,
    ):
        signal.connect(lambda s=signal: fired.append(s))
    actions(tray)["overlay"].trigger()
    assert len(fired) == 1


def test_set_running_updates_the_label_and_tooltip(tray):
    start_stop = actions(tray)["start-stop"]
    assert start_stop.text() == "&Start captions" and tray.icon.toolTip() == "livecap: stopped"
    tray.set_running(True)
    assert start_stop.text() == "&Stop captions" and tray.icon.toolTip() == "livecap: captioning"
    tray.set_running(False)
    assert start_stop.text() == "&Start captions"


def test_ticks_follow_the_reported_state_without_emitting(qtbot, tray):
    found = actions(tray)
    emitted = []
    tray.overlay_toggle_requested.connect(lambda: emitted.append("overlay"))
    tray.click_through_toggle_requested.connect(lambda: emitted.append("click"))
    tray.set_overlay_visible(True)
    tray.set_click_through(True)
    assert found["overlay"].isChecked() and found["click-through"].isChecked()
    tray.set_overlay_visible(False)
    assert not found["overlay"].isChecked() and emitted == []  # a state report is not a request


def test_clicking_the_icon_shows_the_window(qtbot, tray):
    with qtbot.waitSignal(tray.show_window_requested, timeout=1000):
        tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    with qtbot.assertNotEmitted(tray.show_window_requested):
        tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Context)  # right click: the menu


def test_no_system_tray_is_not_an_error(tray):
    assert TrayIcon.available() is False  # the offscreen platform has no tray
    assert tray.show() is False and not tray.icon.isVisible()
    assert tray.icon.contextMenu() is tray.menu


def test_the_icon_loads():
    assert ICON_PATH.is_file()
    icon = app_icon()
    assert not icon.isNull()
    image = icon.pixmap(64, 64).toImage()
    assert image.width() == 64
    centre = image.pixelColor(32, 20)  # inside the bubble: the blue fill or a white caption line
    assert centre.alpha() == 255
