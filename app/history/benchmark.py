"""How fast the History window is with a few hundred sessions: opening it, and a search's first
result after a keystroke.

    python -m app.history.benchmark [--sessions 500] [--words 2000] [--keystrokes 30] [--out result.json]

Writes ``--sessions`` closed session journals (one a day back from today, ``--words`` words each,
a meeting's two sides in every other one) to a temporary folder, then, offscreen:

* opens the window on them with no index yet (the index is built from the journals, with
  progress), until the sessions are listed: ``open_first_s``;
* closes it and opens a new window on the same index: ``open_again_s``;
* ``--keystrokes`` times: puts a word but its last letter in the search box, waits until that
  query's results are shown and the box has been idle longer than the debounce, then types the
  last letter and measures until the full word's results are on screen (the list painted):
  ``keystroke_to_result_ms`` (median, p95, max). The target: p95 at most 200 ms;
* the same word typed without a pause, from its last key to its results on screen
  (``typing_last_key_to_result_ms``): the debounce's wait, then the search.

Prints JSON (also written to ``--out``) with the date, the CPU and its flags. The engine does not
import Qt, so this lives beside the app. The journals are written by the engine's own journal
writer, and read back by the index as any journal is.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from engine import Appended, JournalWriter, Settled, Word, cpu_description

TARGET_MS = 200
VOCABULARY = (
    "the we to and of a in that is it for on with as this was have be at our so they about "
    "meeting budget quarter team customer release roadmap design review hiring office launch "
    "numbers plan update feedback support ticket sprint deadline contract invoice partner "
    "marketing finance product research interview training security migration database server "
    "network laptop schedule holiday conference workshop presentation proposal report summary"
).split()
# Words each put in a few sessions only: what a user looks for, found among many.
RARE = (
    "photosynthesis kilimanjaro saxophone archipelago thermodynamics marmalade constellation "
    "hieroglyph labyrinth avalanche chrysanthemum quarantine metronome origami tambourine "
    "vineyard zeppelin boomerang catamaran dandelion eucalyptus flamingo gondola hammock igloo "
    "jacaranda kaleidoscope lighthouse mandolin nebula"
).split()


def write_journal(path: Path, started: datetime, words: list[tuple[str, str]]) -> None:
    """One closed session journal, written by the engine's own journal writer: each (word,
    speaker) settled, 0.4 s apart, a sentence ended every twelve words."""
    meeting = any(s for _, s in words)
    header = {"started": started.isoformat(timespec="seconds"), "recognizer": "whisper-tiny.en",
              "source": "Meeting" if meeting else "Built-in Microphone"}  # fmt: skip
    writer = JournalWriter(path, header, fsync_interval=3600)
    for position, (text, speaker) in enumerate(words):
        ends, starts = position % 12 == 11, position % 12 == 0
        word = Word(text, round(position * 0.4, 2), round(position * 0.4 + 0.3, 2), 0.9, speaker=speaker)
        form, mark, case = (text.capitalize(), "none", "capitalized") if starts else (text, "none", "lower")
        writer.apply([Appended(position, word), Settled(position, "period" if ends else mark, case, 1, form)])
    writer.close()
    ended = started.timestamp() + len(words) * 0.4
    os.utime(path, (ended, ended))


def write_corpus(folder: Path, sessions: int, words: int, seed: int = 7) -> list[str]:
    """``sessions`` journals in ``folder``, newest today; returns the rare words they hold."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    chance = random.Random(seed)
    today = datetime.now().astimezone().replace(hour=10, minute=0, second=0, microsecond=0)
    for n in range(sessions):
        started = today - timedelta(days=n, minutes=chance.randrange(0, 480))
        meeting = n % 2 == 0
        spoken = []
        for k in range(words):
            speaker = ("me" if (k // 40) % 2 == 0 else "others:1") if meeting else ""
            spoken.append((chance.choice(VOCABULARY), speaker))
        for _ in range(2):  # two rare words somewhere in it
            spoken[chance.randrange(words)] = (chance.choice(RARE), spoken[0][1])
        write_journal(folder / started.strftime("session-%Y%m%d-%H%M%S.jsonl"), started, spoken)
    return list(RARE)


def _wait(signal, accept=lambda *args: True, timeout_s: float = 120.0) -> bool:
    """Run the event loop until ``signal`` brings arguments ``accept`` takes (the loop sleeps in Qt
    meanwhile, so the index's thread has the CPU and the GIL)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop, seen = QEventLoop(), []

    def got(*args):
        if accept(*args):
            seen.append(args)
            loop.quit()

    signal.connect(got)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    if not seen:
        loop.exec()
    signal.disconnect(got)
    return bool(seen)


def _pause(ms: int) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _summary(values: list[float]) -> dict:
    return {
        "median": round(statistics.median(values), 1),
        "p95": round(_percentile(values, 0.95), 1),
        "max": round(max(values), 1),
        "runs": len(values),
    }


def measure(folder: Path, queries: list[str], keystrokes: int) -> dict:
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.history.window import DEBOUNCE_MS, HistoryWindow
    from app.settings import AppSettings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    settings = AppSettings(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
    journals, index = folder / "journal", folder / "history" / "index.sqlite"

    def open_window() -> tuple[HistoryWindow, float]:
        window = HistoryWindow(settings, journals, index)
        t0 = time.perf_counter()
        window.show()
        if not _wait(window.sessions_shown, timeout_s=1800):
            raise RuntimeError(f"the window did not list the sessions: {window.status_line.text()}")
        app.processEvents()
        return window, time.perf_counter() - t0

    first, open_first = open_window()
    listed = first.sessions_list.count()
    first.close()
    first.shutdown()
    first.client.wait()
    window, open_again = open_window()
    box = window.search_box
    times, typing, counts = [], [], []
    for query in (queries * (keystrokes // len(queries) + 1))[:keystrokes]:
        prefix = query[:-1]
        box.setFocus()
        if box.text() != prefix:
            box.setText(prefix)
            _wait(window.results_shown, lambda q, p=prefix: q == p)
        _pause(DEBOUNCE_MS + 50)  # the user paused: the next key searches at once
        t0 = time.perf_counter()
        QTest.keyClick(box, query[-1])
        if not _wait(window.results_shown, lambda q, w=query: q == w):
            raise RuntimeError(f"no results shown for {query!r}")
        window.results_list.viewport().repaint()  # on screen, not only in the list
        times.append((time.perf_counter() - t0) * 1000)
        counts.append(window.results_list.count())
        box.setText("")
        _pause(DEBOUNCE_MS + 50)
        # Typed without a pause: the last key waits for the debounce, then searches.
        QTest.keyClicks(box, prefix)
        t0 = time.perf_counter()
        QTest.keyClick(box, query[-1])
        if not _wait(window.results_shown, lambda q, w=query: q == w):
            raise RuntimeError(f"no results shown for {query!r}")
        window.results_list.viewport().repaint()
        typing.append((time.perf_counter() - t0) * 1000)
        box.setText("")
    window.close()
    window.shutdown()
    window.client.wait()
    p95 = _percentile(times, 0.95)
    return {
        "sessions_listed": listed,
        "open_first_s": round(open_first, 3),
        "open_again_s": round(open_again, 3),
        "keystroke_to_result_ms": _summary(times),
        "typing_last_key_to_result_ms": _summary(typing),
        "results_per_query_median": statistics.median(counts),
        "debounce_ms": DEBOUNCE_MS,
        "target_ms": TARGET_MS,
        "meets_target": p95 <= TARGET_MS,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.history.benchmark", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--words", type=int, default=2000, help="words in each session")
    parser.add_argument("--keystrokes", type=int, default=30)
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="livecap-history-bench-") as tmp:
        folder = Path(tmp)
        os.environ["LIVECAP_DATA_DIR"] = str(folder / "data")  # nothing of the user's touched
        t0 = time.perf_counter()
        queries = write_corpus(folder / "journal", args.sessions, args.words)
        written = time.perf_counter() - t0
        figures = measure(folder, queries, args.keystrokes)
    result = {
        "benchmark": "history window",
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        **cpu_description(),
        "python": platform.python_version(),
        "qt_platform": os.environ.get("QT_QPA_PLATFORM", "native"),
        "sessions": args.sessions,
        "words_per_session": args.words,
        "corpus_written_s": round(written, 1),
        **figures,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
