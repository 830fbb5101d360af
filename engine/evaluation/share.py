"""How fast shared captions reach a browser, and what serving them costs.

    python -m engine.evaluation.share [--seconds 60] [--viewers 0 1 50] [--rate 3]
        [--session-excerpts 3] [--out r.json]

For each viewer count, a fresh caption server (``engine.share``) is fed by a thread that stands for
the session's engine thread: it publishes the session's own event types at a speech-like pace
(``--rate`` words a second), each word ``Appended`` with its ``Provisional`` guess, the word two
back ``Settled``, and the recognizer's ``PartialWords`` between words. One viewer is a real
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, through selenium) showing the
page; a MutationObserver in the page notes ``Date.now()`` when each word's element first appears
in the DOM. The others are light event-stream clients (aiohttp, on their own thread).

Printed JSON, per viewer count:

- ``dom_ms``: from a word's commit (the wall clock just before its batch is handed to the feed,
  where the session publishes it) to its element in the browser's DOM, p50, p90, max (null without
  Chromium: ``browser`` says why);
- ``stream_ms``: the same to its arrival at the light clients (all of them pooled);
- ``server_cpu_share``: the server thread's CPU time over the wall time (1.0 = one core), read from
  ``/proc/self/task``; ``clients_cpu_share`` the light clients' thread, for scale;
- ``rss_mb``: this process's resident memory at the end (server, feed and light clients; the
  browser is another process);
- ``publish_ms``: how long the publishing thread spent handing each batch to the feed, and
  ``publish_late_ms`` how late it ran against its schedule: the only ways serving can slow the
  captions, since the feed never waits on the server.

Then ``committed_p90``: the captions' own committed p90 from a real live session (Whisper tiny.en,
paced, espeak-ng reading ``--session-excerpts`` dev-corpus excerpts), alone and shared with the
largest viewer count, and their difference (``engine.evaluation.share_session``); 0 skips it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import time

from engine.evaluation.e2e_latency import percentile
from engine.evaluation.share_viewers import LightViewers, wait_for
from engine.events import Appended, PartialWords, Provisional, Settled
from engine.files.atomic import atomic_write_text
from engine.machine import cpu_description
from engine.share import ShareFeed, ShareServer
from engine.words import Word

__all__ = ["chromium_paths", "main", "run_phase"]

SETTLE_BEHIND = 2  # a word settles when the word this many after it is committed
TEXTS = "the quick brown fox jumps over a lazy dog while captions reach every screen in the room".split()

_OBSERVER = """
window.__seen = new Map();
const captions = document.getElementById("captions");
new MutationObserver(() => {
  const now = Date.now();
  for (const w of captions.querySelectorAll("[data-position]")) {
    if (!window.__seen.has(w.dataset.position)) window.__seen.set(w.dataset.position, now);
  }
}).observe(captions, {childList: true, subtree: true, characterData: true});
"""


def chromium_paths() -> tuple[str | None, str | None]:
    return shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


def headless_chromium(console_log: bool = False):
    """Debian's chromium, headless, driven by selenium through chromium-driver (both found on the
    PATH, which ``chromium_paths`` tells); ``console_log`` keeps the page's console for reading."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = chromium_paths()
    options = Options()
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=800,400",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(argument)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(driver_path))


def _browser_or_reason():
    """A headless Chromium driven by selenium, or None and why not."""
    chromium, driver_path = chromium_paths()
    if not (chromium and driver_path):
        return None, "not measured: needs Debian's chromium and chromium-driver"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return None, "not measured: selenium is not installed (the dev extra)"
    return headless_chromium(), "headless chromium"


def _thread_cpu(native_id: int | None) -> float | None:
    """A thread's CPU seconds (user + system) from /proc, or None where it cannot be read."""
    if native_id is None:
        return None
    try:
        with open(f"/proc/self/task/{native_id}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb() -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _summary(values: list[float]) -> dict:
    return {
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "max": round(max(values), 3) if values else None,
        "n": len(values),
    }


def _publish(feed, seconds: float, rate: float) -> dict:
    """Feed words at ``rate`` a second for ``seconds``, as the session's threads publish them;
    returns each word's commit time (ms since the epoch) and the publishing costs."""
    commits: dict[int, float] = {}
    handing, late = [], []
    start = time.monotonic()
    count = int(seconds * rate)
    for position in range(count):
        due = start + position / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        late.append(max(0.0, time.monotonic() - due) * 1000)
        text = TEXTS[position % len(TEXTS)]
        batch = [Appended(position, Word(text)), Provisional(position, "none", "lower", 0.6, text)]
        if position >= SETTLE_BEHIND:
            settled = position - SETTLE_BEHIND
            batch.append(Settled(settled, "none", "lower", 1, TEXTS[settled % len(TEXTS)]))
        commits[position] = time.time() * 1000
        began = time.perf_counter()
        feed(batch)
        partial = (Word(TEXTS[(position + 1) % len(TEXTS)]),)
        feed([PartialWords(partial)])  # the recognizer's next guess, between words
        handing.append((time.perf_counter() - began) * 1000)
    time.sleep(1.0)  # the last words reach the viewers
    return {"commits": commits, "publish_ms": handing, "late_ms": late}


def run_phase(viewers: int, seconds: float, rate: float, browser) -> dict:
    """One viewer count: a fresh server, ``viewers`` viewers (the browser first, where there is
    one), words fed for ``seconds``."""
    feed = ShareFeed()
    server = ShareServer(feed, max_viewers=max(50, viewers)).start()
    light = None
    try:
        in_browser = 1 if browser is not None and viewers > 0 else 0
        if in_browser:
            browser.get(server.url)
            browser.execute_script(_OBSERVER)
        if viewers - in_browser > 0:
            light = LightViewers(server.url, viewers - in_browser).start()
        if not wait_for(lambda: server.viewers == viewers):
            raise RuntimeError(f"only {server.viewers} of {viewers} viewers connected")
        server_id = server._thread.native_id if server._thread else None
        cpu0, light0 = _thread_cpu(server_id), _thread_cpu(light.native_id if light else None)
        wall0 = time.monotonic()
        published = _publish(feed, seconds, rate)
        wall = time.monotonic() - wall0
        cpu1, light1 = _thread_cpu(server_id), _thread_cpu(light.native_id if light else None)
        rss = _rss_mb()
        commits = published["commits"]
        dom = []
        if in_browser:
            seen = browser.execute_script("return Object.fromEntries(window.__seen)")
            dom = [seen[str(p)] - t for p, t in commits.items() if str(p) in seen]
        stream = [a[p] - t for a in (light.arrivals if light else []) for p, t in commits.items() if p in a]
        expected_stream = len(commits) * (viewers - in_browser)
        return {
            "viewers": viewers,
            "browser_viewers": in_browser,
            "words": len(commits),
            "dom_ms": _summary(dom) if in_browser else None,
            "dom_missing": len(commits) - len(dom) if in_browser else None,
            "stream_ms": _summary(stream) if light else None,
            "stream_missing": expected_stream - len(stream) if light else None,
            "server_cpu_share": None if cpu0 is None else round((cpu1 - cpu0) / wall, 4),
            "clients_cpu_share": None if light0 is None else round((light1 - light0) / wall, 4),
            "rss_mb": rss,
            "publish_ms": _summary(published["publish_ms"]),
            "publish_late_ms": _summary(published["late_ms"]),
            "dropped": dict(server.dropped),
        }
    finally:
        if light is not None:
            light.stop()
        server.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.share",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="words fed per viewer count")
    parser.add_argument("--viewers", type=int, nargs="+", default=[0, 1, 50])
    parser.add_argument("--rate", type=float, default=3.0, help="words a second")
    parser.add_argument(
        "--session-excerpts", type=int, default=3,
        help="dev-corpus excerpts (about 20 s each) a live session hears, alone and shared (0: skip)",
    )  # fmt: skip
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rate <= 0 or min(args.viewers) < 0:
        parser.error("--seconds and --rate must be positive, --viewers at least 0")

    browser, browser_note = _browser_or_reason()
    phases = []
    try:
        for viewers in args.viewers:
            print(f"share benchmark: {viewers} viewer(s), {args.seconds:g} s", file=sys.stderr, flush=True)
            phases.append(run_phase(viewers, args.seconds, args.rate, browser))
    finally:
        if browser is not None:
            browser.quit()
    committed = {"measured": False, "why": "--session-excerpts 0"}
    if args.session_excerpts > 0:
        from engine.evaluation.share_session import committed_alone_and_shared

        log = lambda message: print(f"share benchmark: {message}", file=sys.stderr, flush=True)
        committed = committed_alone_and_shared(max(args.viewers), args.session_excerpts, log)
    result = {
        "command": "python -m engine.evaluation.share "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        **cpu_description(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "settings": {
            "seconds": args.seconds,
            "viewers": args.viewers,
            "rate": args.rate,
            "session_excerpts": args.session_excerpts,
        },
        "browser": browser_note,
        "committed_p90": committed,
        "phases": phases,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
