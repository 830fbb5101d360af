"""The history index measured: ``python -m engine.evaluation.history`` (prints JSON; progress on stderr).

Journals are written by the real ``JournalWriter`` (an engine's events, a batch a word) into a
temporary folder: ``--words`` words of the dev corpus (``engine.evaluation.corpus``; a built-in
passage where there is none) in ``--sessions`` sessions of varying length, started over the past
year, each with one, two or three speakers taking turns at sentence ends, and the times of
speech (words of 0.2-0.5 s, pauses after sentences). Then:

- **reindex**: the index built whole from them (``HistoryIndex.open`` on a missing file), words
  a second;
- **search**: ``--queries`` searches mixing words, "two or three word phrases" and prefixes
  (``budg*``) drawn from the same text, p50 and p95 of each search's wall time;
- **live**: a session of ``--live-words`` words journaled with a ``LiveIndexer`` beside that
  index, committed every three words (a second of speech at the commit interval): the cost of
  a settled word on the engine's thread (the hand-over) and on the indexer's (its commit);
- **size**: the index (after a checkpoint) against the journals it was made from;
- **open**: opening the built index again (its damage check and a sync with nothing new), what
  each History window and each ``livecap history`` command pays.

The targets the figures are read against are printed with them (``targets``); docs/PERFORMANCE.md
has the figures of a full run.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

__all__ = ["main"]

TARGETS = {
    "reindex_words_per_s": ">= 50000",
    "search_p95_ms": "<= 50",
    "live_commit_ms_per_word_median": "<= 0.1",
    "live_enqueue_ms_per_word_median": "<= 0.1",
    "index_to_journals": "<= 1.5",
}
MARKS = {".": "period", "!": "period", "?": "question", ",": "comma", ";": "comma", ":": "comma"}
SPEAKER_SETS = (("",), ("me", "others"), ("me", "others:1", "others:2"))
LIVE_COMMIT_WORDS = 3  # words a live commit holds: about a second of speech


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- the journals -----------------------------------------------------------------------------
def corpus_tokens() -> list[str]:
    """The dev corpus's words as written (marks and capitals on them), or a built-in passage's."""
    from engine.evaluation.corpus import dev_corpus

    tokens: list[str] = []
    try:
        for path in sorted(dev_corpus().glob("*.txt")):
            tokens += path.read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        pass
    if len(tokens) < 1000:
        from engine.evaluation.bench import PASSAGE

        tokens = PASSAGE.split()
    return tokens


def spoken(token: str) -> tuple[str, str, str, str] | None:
    """(text, form, mark, case) of a written token, as a recognizer and the decoder would give it."""
    mark = MARKS.get(token[-1:], "none")
    form = token.rstrip(".!?,;:\"')]").lstrip("\"'([")
    if not form:
        return None
    return form.lower(), form, mark, "capitalized" if form[0].isupper() else "lower"


def session_sizes(words: int, sessions: int, rng: random.Random) -> list[int]:
    """``words`` split into ``sessions`` sessions of varied length (a few long, many short)."""
    weights = [rng.lognormvariate(0, 0.8) for _ in range(sessions)]
    total = sum(weights)
    sizes = [max(1, int(words * w / total)) for w in weights]
    sizes[0] += words - sum(sizes)
    return [max(1, s) for s in sizes]


def write_journals(folder: Path, words: int, sessions: int, tokens: list[str], rng: random.Random) -> int:
    """Journal ``words`` words in ``sessions`` sessions into ``folder``; returns the words written."""
    from engine.events import Appended, Settled
    from engine.transcript.journal import JournalWriter
    from engine.words import Word

    now = datetime.now().astimezone().replace(microsecond=0)
    starts = sorted(rng.sample(range(60, 365 * 86400), sessions), reverse=True)
    cursor, written = rng.randrange(len(tokens)), 0
    for number, (size, ago) in enumerate(zip(session_sizes(words, sessions, rng), starts), start=1):
        started = now - timedelta(seconds=ago)
        speakers = rng.choice(SPEAKER_SETS)
        header = {"started": started.isoformat(), "recognizer": "vosk", "model": "bench", "source": "mic"}
        if len(speakers) > 1:
            header["others_source"] = "app:Meeting"
        writer = JournalWriter(folder / f"session-{started:%Y%m%d-%H%M%S}.jsonl", header, fsync_interval=3600)
        t, speaker, position = rng.uniform(0.5, 3.0), speakers[0], 0
        while position < size:
            said = spoken(tokens[cursor % len(tokens)])
            cursor += 1
            if said is None:
                continue
            text, form, mark, case = said
            length = rng.uniform(0.2, 0.5)
            word = Word(
                text, round(t, 2), round(t + length, 2), round(rng.uniform(0.6, 1.0), 2), speaker=speaker
            )
            writer.apply([Appended(position, word), Settled(position, mark, case, 1, form)])
            t += length + rng.uniform(0.02, 0.15)
            if mark in ("period", "question"):
                t += rng.uniform(0.3, 1.5)
                if rng.random() < 0.3:
                    speaker = rng.choice(speakers)
            position += 1
        writer.close()
        written += size
        if number % 50 == 0 or number == sessions:
            _progress(f"history: {number}/{sessions} sessions journaled")
    return written


# ---- the measurements -------------------------------------------------------------------------
def make_queries(tokens: list[str], count: int, rng: random.Random) -> list[str]:
    """Words, phrases of two or three words, and prefixes, as a user would type them."""
    words = [s[0] for s in map(spoken, tokens) if s is not None and s[0].isalpha()]
    queries = []
    for k in range(count):
        at = rng.randrange(len(words) - 3)
        kind = k % 3
        if kind == 0:
            queries.append(words[at])
        elif kind == 1:
            queries.append('"' + " ".join(words[at : at + rng.choice((2, 3))]) + '"')
        else:
            long = next((w for w in words[at:] if len(w) >= 5), "budget")
            queries.append(long[: rng.randint(3, 5)] + "*")
    rng.shuffle(queries)
    return queries


def measure_search(index, queries: list[str]) -> dict:
    index.search(queries[0])  # warm-up: the first search loads the tables' first pages
    times, hits = [], []
    for query in queries:
        started = time.perf_counter()
        found = index.search(query)
        times.append((time.perf_counter() - started) * 1000)
        hits.append(len(found))
    times.sort()
    return {
        "search_p50_ms": round(statistics.median(times), 3),
        "search_p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 3),
        "search_hits_mean": round(statistics.mean(hits), 1),
    }


class _TimedObserver:
    """Hands the writer's lines to the live indexer, timing the hand-over per settled word."""

    def __init__(self, indexer):
        self.indexer = indexer
        self.per_word_ms: list[float] = []

    def journal_written(self, path, records) -> None:
        started = time.perf_counter()
        self.indexer.journal_written(path, records)
        elapsed = time.perf_counter() - started
        words = sum(1 for r in records if r.get("t") == "word")
        if words:
            self.per_word_ms.append(elapsed * 1000 / words)

    def journal_closed(self, path) -> None:
        self.indexer.journal_closed(path)


def measure_live(index_path: Path, folder: Path, words: int, tokens: list[str], rng: random.Random) -> dict:
    from engine.events import Appended, Settled
    from engine.history.live import LiveIndexer
    from engine.transcript.journal import JournalWriter
    from engine.words import Word

    indexer = LiveIndexer(index_path, commit_interval=3600, commit_words=10**9)
    observer = _TimedObserver(indexer)
    writer = JournalWriter.create(folder, {"recognizer": "vosk", "source": "mic"}, observer=observer)
    indexer.flush()  # its row made: what follows is the steady state
    indexer.commit_costs.clear()
    t, position = 1.0, 0
    while position < words:
        said = spoken(tokens[rng.randrange(len(tokens))])
        if said is None:
            continue
        text, form, mark, case = said
        word = Word(text, round(t, 2), round(t + 0.3, 2), 0.9)
        writer.apply([Appended(position, word), Settled(position, mark, case, 1, form)])
        t += 0.4
        position += 1
        if position % LIVE_COMMIT_WORDS == 0:
            indexer.flush()
    writer.close()
    per_word = [seconds * 1000 / count for seconds, count in indexer.commit_costs]
    return {
        "live_words": words,
        "live_commits": len(per_word),
        "live_enqueue_ms_per_word_median": round(statistics.median(observer.per_word_ms), 4),
        "live_commit_ms_per_word_median": round(statistics.median(per_word), 4) if per_word else None,
        "live_failed": indexer.failed,
    }


def index_bytes(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return sum(
        Path(f"{path}{suffix}").stat().st_size for suffix in ("", "-wal") if Path(f"{path}{suffix}").exists()
    )


def run(args) -> dict:
    from engine.history import HistoryIndex
    from engine.machine import cpu_description

    rng = random.Random(args.seed)
    out: dict = {
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "words": args.words,
        "sessions": args.sessions,
        "queries": args.queries,
    }
    tokens = corpus_tokens()
    with tempfile.TemporaryDirectory(prefix="livecap-history-") as tmp:
        folder, index_path = Path(tmp) / "journal", Path(tmp) / "history.sqlite3"
        folder.mkdir()
        _progress(f"history: journaling {args.words} words in {args.sessions} sessions")
        started = time.perf_counter()
        write_journals(folder, args.words, args.sessions, tokens, rng)
        out["generation_s"] = round(time.perf_counter() - started, 2)
        out["journals_bytes"] = sum(p.stat().st_size for p in folder.glob("*.jsonl"))

        _progress("history: indexing them all")
        started = time.perf_counter()
        index = HistoryIndex.open(index_path, folder)
        seconds = time.perf_counter() - started
        out["reindex_s"] = round(seconds, 2)
        out["reindex_words_per_s"] = round(args.words / seconds)
        out["index_bytes"] = index_bytes(index_path)
        out["index_to_journals"] = round(out["index_bytes"] / out["journals_bytes"], 3)
        index.close()
        started = time.perf_counter()  # what each later open costs: the damage check, a sync
        index = HistoryIndex.open(index_path, folder)
        out["open_s"] = round(time.perf_counter() - started, 3)

        _progress(f"history: {args.queries} searches")
        out.update(measure_search(index, make_queries(tokens, args.queries, rng)))

        live_words = min(args.live_words, max(args.words, 30))
        _progress(f"history: a live session of {live_words} words")
        out.update(measure_live(index_path, folder, live_words, tokens, rng))
        index.close()
    out["targets"] = TARGETS
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m engine.evaluation.history", description=__doc__.split("\n")[0]
    )
    p.add_argument("--words", type=int, default=1_000_000, help="words journaled in all (default: 1000000)")
    p.add_argument("--sessions", type=int, default=500, help="sessions they are split into (default: 500)")
    p.add_argument("--queries", type=int, default=200, help="searches timed (default: 200)")
    p.add_argument("--live-words", type=int, default=3000, help="words of the live session (default: 3000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = p.parse_args(argv)
    if args.words < args.sessions or args.sessions < 1 or args.queries < 1:
        p.error("give at least one session, one query, and at least as many words as sessions")
    text = json.dumps(run(args), indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
