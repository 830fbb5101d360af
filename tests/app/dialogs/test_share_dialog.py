"""Captions → Share captions…: the dialog serving a session's captions, on this computer and on
the local network (its QR code, a renewed link), and the window's action without a session."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from engine.events import Appended, Settled
from engine.fanout import FanOut
from engine.share import OBS_OPTIONS
from engine.words import Word

pytestmark = [pytest.mark.gui]


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.fixture
def dialog(qtbot):
    from app.dialogs.share_dialog import ShareDialog

    session = FanOut()  # what the dialog needs of a session: its subscribers
    shown = ShareDialog(lambda: session)
    shown.session = session
    qtbot.addWidget(shown)
    yield shown
    shown.stop()


def test_sharing_on_this_computer_shows_the_link_and_obs_address_and_serves_the_captions(dialog):
    dialog.toggle.click()
    assert dialog.sharing and dialog.toggle.text() == "Stop sharing"
    link = dialog.link.text()
    assert link.startswith("http://127.0.0.1:") and f"{link}{OBS_OPTIONS}" in dialog.obs.text()
    assert dialog.qr.pixmap().isNull() and not dialog.lan.isEnabled()
    dialog.session.publish([Appended(0, Word("shared")), Settled(0, "none", "lower", 1, "shared")])
    assert status(link) == 200 and "this computer only" in dialog.status.text()
    dialog.toggle.click()
    assert not dialog.sharing and dialog.link.text() == "" and dialog.session._subscribers == []
    with pytest.raises(OSError):
        urllib.request.urlopen(link, timeout=5)


def test_on_the_network_the_link_has_a_qr_code_and_renewing_it_refuses_the_old_one(dialog):
    dialog.lan.setChecked(True)
    dialog.minutes.setValue(5)
    assert dialog.start()
    old = dialog.link.text()
    token = dialog.server.token
    assert token in old and not dialog.qr.pixmap().isNull() and dialog.renew.isVisibleTo(dialog)
    local = f"http://127.0.0.1:{dialog.server.port}/"
    assert status(f"{local}{token}/") == 200 and status(local) == 403
    dialog.renew.click()
    assert dialog.link.text() != old and dialog.server.token not in old
    assert status(f"{local}{token}/") == 403 and status(f"{local}{dialog.server.token}/") == 200


def test_without_a_running_session_it_says_to_start_the_captions(qtbot):
    from app.dialogs.share_dialog import NO_SESSION, ShareDialog

    shown = ShareDialog(lambda: None)
    qtbot.addWidget(shown)
    shown.toggle.click()
    assert not shown.sharing and shown.status.text() == NO_SESSION
