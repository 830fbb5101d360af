"""The user guide's pictures of the caption page: ``python -m engine.evaluation.share_screenshots``
(writes docs/images/share-*.png; ``--out FOLDER`` elsewhere).

The real server (``engine.share``) serves a few caption lines of two speakers, the last words
still provisional and unstable, and the benchmark's headless Chromium (``headless_chromium``)
takes the page three ways: OBS's browser source (transparent, over a checkered scene painted
behind the page, as OBS composes it), a second screen (large text, full screen) and a phone
(the scrolling transcript, 390 x 844).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.evaluation.share import chromium_paths, headless_chromium
from engine.events import Appended, PartialWords, Settled
from engine.share import OBS_OPTIONS, ShareFeed, ShareServer
from engine.speakers.labels import SpeakerNames
from engine.words import Word

__all__ = ["SHOTS", "main"]

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
TURNS = [
    ("me", "Good morning, everyone. Let's start with the schedule for today."),
    ("others:1", "Thanks. The captions are on the big screen and on our phones."),
    ("me", "Great. If you missed a word, scroll back on your phone."),
    ("others:2", "Can we move the review to Thursday? Two of us are away on Wednesday."),
    ("me", "Thursday works. I'll send a new invitation after this meeting."),
    ("others:1", "I can read everything from here, even at the back of the room."),
]
SETTLED_ALL_BUT = 3  # the last words are still provisional, as they are while someone speaks
UNSTABLE = "any questions"
CHECKERED = "repeating-conic-gradient(#262626 0 25%, #3d3d3d 0 50%) 0 0 / 32px 32px"
# name -> (the address's options, viewport width and height, mobile)
SHOTS = {
    "share-obs.png": (OBS_OPTIONS, 960, 150, False),
    "share-second-screen.png": ("?size=60&lines=7", 1024, 576, False),
    "share-phone.png": ("?mode=transcript&size=20&theme=light", 390, 844, True),
}


def publish(feed: ShareFeed) -> int:
    """The turns as a session publishes them; returns the number of words drawn."""
    words = [(speaker, text) for speaker, turn in TURNS for text in turn.split()]
    events = []
    for position, (speaker, text) in enumerate(words):
        events.append(Appended(position, Word(text, speaker=speaker)))
        if position < len(words) - SETTLED_ALL_BUT:
            events.append(Settled(position, "none", "lower", 1, text))
    feed(events)
    feed([PartialWords(tuple(Word(t, speaker="others:1") for t in UNSTABLE.split()), speaker="others:1")])
    return len(words)


def shoot(browser, url: str, count: int, width: int, height: int, mobile: bool, out: Path) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )
    browser.get(url)
    deadline = time.monotonic() + 20
    drawn = "return document.querySelectorAll('[data-position]').length"
    while browser.execute_script(drawn) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the page drew {browser.execute_script(drawn)} of {count} words")
        time.sleep(0.05)
    if "bg=transparent" in url:  # what OBS's scene shows through the page
        browser.execute_script(f"document.documentElement.style.background = '{CHECKERED}'")
    time.sleep(0.3)  # the page scrolls to its end (the transcript view) and settles
    out.write_bytes(browser.get_screenshot_as_png())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.share_screenshots", description=__doc__
    )
    parser.add_argument("--out", type=Path, default=IMAGES, help="the folder (default: docs/images)")
    args = parser.parse_args(argv)
    if not all(chromium_paths()):
        print("share_screenshots: needs Debian's chromium and chromium-driver", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    feed = ShareFeed(names=SpeakerNames(renamed={"me": "Sam", "others:1": "Ana", "others:2": "Lee"}))
    count = publish(feed)
    server = ShareServer(feed).start()
    browser = headless_chromium()
    try:
        for name, (options, width, height, mobile) in SHOTS.items():
            shoot(browser, server.url + options, count, width, height, mobile, args.out / name)
            print(f"{args.out / name}: {(args.out / name).stat().st_size // 1024} KB")
    finally:
        browser.quit()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
