"""The window's Captions → Share captions…: the menu opens the share dialog, and a session's end
stops sharing."""

import pytest

from app.dialogs.share_dialog import NO_SESSION
from engine import Transcript
from engine.fanout import FanOut

pytestmark = [pytest.mark.gui]


def test_the_captions_menu_opens_the_share_dialog_and_the_sessions_end_stops_sharing(window, qtbot):
    captions_menu = next(
        m
        for m in window.menuBar().findChildren(type(window.menuBar().addMenu("x")))
        if m.title() == "&Captions"
    )
    assert window.commands.share in captions_menu.actions()
    window.commands.share.trigger()
    dialog = window.share.dialog
    assert dialog.isVisible()
    dialog.toggle.click()  # no session is running
    assert not dialog.sharing and dialog.status.text() == NO_SESSION
    session = FanOut()
    dialog.session_of = lambda: session
    subscribers = len(window.captions._subscribers)
    dialog.toggle.click()
    assert dialog.sharing
    assert dialog.captions is window.captions and len(window.captions._subscribers) == subscribers + 1
    # As the bridge says when a session's last marks settled (here one that had no words).
    window.bridge.finished.emit(Transcript([]))
    assert not dialog.sharing and len(window.captions._subscribers) == subscribers
    assert session._subscribers == []  # the page reads the window's caption feed, not the session


def test_the_trays_share_captions_opens_the_same_dialog(window, qtbot, monkeypatch):
    from app.main_window.companions import install_tray
    from app.tray import TrayIcon

    monkeypatch.setattr(TrayIcon, "available", staticmethod(lambda: True))  # offscreen Qt has no tray
    assert install_tray(window)
    share = window.tray.share_action
    assert share.text() == "Share &captions…" and share in window.tray.menu.actions()
    share.trigger()
    dialog = window.share.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.windowTitle() == "Share captions"
    dialog.hide()
    window.commands.share.trigger()  # the window's action: the same dialog, not a second one
    assert window.share.dialog is dialog and dialog.isVisible()
    window.tray.hide()
