"""Captions → Share captions…: the dialog serving the app's caption feed, on this computer and on
the local network (its QR code, a renewed link), and the window's action without a session."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from engine.events import Appended, Settled
from engine.share import OBS_OPTIONS
from engine.words import Word

pytestmark = [pytest.mark.gui]


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def first_message(url: str) -> dict:
    """The event stream's first message: the captions whole, as a viewer coming now gets them."""
    with urllib.request.urlopen(url + "events", timeout=10) as stream:
        while not (line := stream.readline().decode()).startswith("data: "):
            pass
    return json.loads(line.removeprefix("data: "))


@pytest.fixture
def dialog(qtbot):
    from app.caption_feed import CaptionFeed
    from app.dialogs.share_dialog import ShareDialog

    captions = CaptionFeed()  # the app's one caption feed, as the session bridge feeds it
    shown = ShareDialog(lambda: object(), captions)  # a session is running
    qtbot.addWidget(shown)
    yield shown
    shown.stop()


def test_sharing_on_this_computer_shows_the_link_and_obs_address_and_serves_the_captions(dialog):
    dialog.toggle.click()
    assert dialog.sharing and dialog.toggle.text() == "Stop sharing"
    link = dialog.link.text()
    assert link.startswith("http://127.0.0.1:") and f"{link}{OBS_OPTIONS}" in dialog.obs.text()
    assert dialog.qr.pixmap().isNull() and not dialog.lan.isEnabled()
    events = [Appended(0, Word("shared")), Settled(0, "none", "lower", 1, "shared")]
    dialog.captions.builder.apply(events)
    dialog.captions.receive(events, (Word("maybe"),))
    assert status(link) == 200 and "this computer only" in dialog.status.text()
    snapshot = first_message(link)
    assert [(w["text"], w["state"]) for w in snapshot["words"]] == [("shared", "settled")]
    assert [w["text"] for w in snapshot["unstable"]] == ["maybe"]
    dialog.toggle.click()
    assert not dialog.sharing and dialog.link.text() == "" and dialog.captions._subscribers == []
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
    from app.caption_feed import CaptionFeed
    from app.dialogs.share_dialog import NO_SESSION, ShareDialog

    shown = ShareDialog(lambda: None, CaptionFeed())
    qtbot.addWidget(shown)
    shown.toggle.click()
    assert not shown.sharing and shown.status.text() == NO_SESSION
