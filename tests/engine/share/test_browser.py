"""The caption page in a real browser: Debian's chromium and chromium-driver, headless, one
browser for the module. Skips with one line where either is missing, unless
``LIVECAP_BROWSER_REQUIRED`` is set (CI sets it once it has installed them): then it fails."""

from __future__ import annotations

import os
import time

import pytest

from engine.evaluation.share import chromium_paths, headless_chromium
from engine.events import Appended, Provisional, Settled
from engine.words import Word
from tests.engine.share.clients import said

CHROMIUM, CHROMEDRIVER = chromium_paths()
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extra)")
NO_BROWSER = "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"
if not (CHROMIUM and CHROMEDRIVER) and os.environ.get("LIVECAP_BROWSER_REQUIRED"):
    pytest.fail(f"{NO_BROWSER}, and LIVECAP_BROWSER_REQUIRED is set", pytrace=False)
pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason=NO_BROWSER)


@pytest.fixture(scope="module")
def browser():
    driver = headless_chromium(console_log=True)
    yield driver
    driver.quit()


def until(condition, timeout: float = 20.0):
    """Poll ``condition`` until it holds (its value) or fail: the browser draws when it draws."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("the page never got there")


def word_at(browser, position: int):
    return browser.execute_script(
        "const w = document.querySelector(`[data-position='${arguments[0]}']`);"
        "return w ? [w.textContent, w.className] : null;",
        position,
    )


def no_policy_errors(browser):
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not [e for e in errors if "Content Security Policy" in e or "page.js" in e], errors


def test_provisional_text_turns_settled_and_never_changes_and_only_settled_text_is_announced(serve, browser):
    feed, server = serve()
    browser.get(server.url)
    until(lambda: server.viewers == 1)
    feed([Appended(0, Word("hello")), Provisional(0, "comma", "capitalized", 0.6, "Hello")])
    assert until(lambda: word_at(browser, 0)) == ["Hello,", "w provisional"]
    assert browser.find_element("id", "spoken").text == ""  # nothing provisional is announced
    feed([Settled(0, "period", "capitalized", 2, "Hello")])
    assert until(lambda: word_at(browser, 0) == ["Hello.", "w settled"])
    for position, text in enumerate(["again", "and", "again"], start=1):
        feed([Appended(position, Word(text)), Provisional(position, "none", "lower", 0.5, text)])
        until(lambda p=position: word_at(browser, p))
        assert word_at(browser, 0) == ["Hello.", "w settled"]
    spoken = browser.execute_script("return document.getElementById('spoken').textContent")
    assert spoken.strip() == "Hello."
    assert browser.find_element("id", "spoken").get_attribute("aria-live") == "polite"
    no_policy_errors(browser)


def test_a_page_whose_connection_was_cut_resumes_without_repeating_a_word(serve, browser):
    feed, server = serve()
    browser.get(server.url)
    until(lambda: server.viewers == 1)
    said(feed, 0, ["one", "two"])
    until(lambda: word_at(browser, 1))

    def cut():  # the network drops the stream: the browser reconnects with its Last-Event-ID
        for viewer in list(server._viewers):
            viewer.transport.abort()

    server._call(cut)
    until(lambda: server.viewers == 0)
    said(feed, 2, ["three", "four"])  # said while it was away
    until(lambda: word_at(browser, 3))
    texts = browser.execute_script("return [...document.querySelectorAll('.w')].map(w => w.textContent)")
    assert texts == ["one", "two", "three", "four"]
    spoken = browser.execute_script("return document.getElementById('spoken').textContent")
    assert spoken.split() == ["one", "two", "three", "four"]


def test_a_right_to_left_line_is_laid_out_right_to_left_with_its_speaker(serve, browser):
    feed, server = serve()
    browser.get(server.url)
    until(lambda: server.viewers == 1)
    feed([Appended(0, Word("مرحبا", speaker="others")), Settled(0, "none", "lower", 1, "مرحبا")])
    until(lambda: word_at(browser, 0))
    direction, label = browser.execute_script(
        "const line = document.querySelector('.turn');"
        "return [getComputedStyle(line).direction, line.querySelector('.label').textContent];"
    )
    assert direction == "rtl" and label == "Others: "


def test_a_wrong_token_shows_the_refusal_and_the_right_one_the_captions(serve, browser):
    feed, server = serve(lan=True)
    browser.get(f"http://127.0.0.1:{server.port}/{'x' * len(server.token)}/")
    assert "token is wrong" in browser.find_element("tag name", "body").text
    browser.get(f"http://127.0.0.1:{server.port}/{server.token}/")
    until(lambda: server.viewers == 1)
    said(feed, 0, ["shared"])
    assert until(lambda: word_at(browser, 0)) == ["shared", "w settled"]


def test_obs_mode_draws_text_on_transparent_pixels(serve, browser):
    from PySide6.QtGui import QImage

    from tests.app.pixels import alpha

    feed, server = serve()
    said(feed, 0, ["on", "the", "stream"])
    browser.execute_cdp_cmd(
        "Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}}
    )
    try:
        shots = {}
        for options in ("", "?bg=transparent&lines=2&size=48"):
            browser.get(server.url + options)
            until(lambda: word_at(browser, 2))
            shots[options] = alpha(QImage.fromData(browser.get_screenshot_as_png(), "PNG"))
    finally:
        browser.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {})
    opaque, transparent = shots[""], shots["?bg=transparent&lines=2&size=48"]
    corner = (transparent.shape[0] - 40, transparent.shape[1] - 5)  # (row, column)
    assert opaque[corner] == 255  # the page's own black background
    assert transparent[corner] == 0  # OBS sees through it
    assert (transparent.min(), transparent.max()) == (0, 255)  # and the words are drawn, opaque
    assert (transparent > 0).sum() > 200
