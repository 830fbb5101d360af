"""Recognizer output with word timings on training text: ``python -m training.speech_timing --out
runs/speech/timing.json [--excerpts 48] [--recognizers whisper pocketsphinx]`` (prepare stage, no torch).

A model trained on text alone never sees a pause, yet the pause after a word is the best cue a
live session has. Here training excerpts (``--excerpts``, 40–90 words, from the train and modern
folders only: dev stays unheard) are read by espeak-ng in several voices and speeds, one reading
of a few minutes per (voice, speed), and heard by the recognizers the way a session hears them;
each recognized word is aligned to the text that was read, so it carries the reference mark and
case of the word it stands for (null where the recognizer inserted it).

Whisper listens live (``WhisperRecognizer(live=True)``, fed 0.1 s at a time, as a session feeds
it), since a session's words are what the timings must resemble: its commits, its trimmed buffers
and its word times all differ from a file's. That costs about 0.7 CPU-second per second of speech:
48 excerpts, about 15 minutes of speech, take about 10 CPU-minutes (``--whisper-mode file``: a
tenth of that). PocketSphinx (one pass, as live) costs about 0.1 CPU-second per second, so it
hears every reading too (about 2 CPU-minutes).

Each (recognizer, voice, speed) reading is cached in ``<out>.parts/`` and a rerun resumes; the
final file is written atomically, and a summary (WER, and the median pause after a word per
reference mark) goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.evaluation.e2e_score import align, split_by_spans
from engine.evaluation.e2e_speech import SAMPLE_RATE, Excerpt, choose_excerpts, synthesize
from engine.evaluation.recognized_dev import (
    PART_VERSION,
    RECOGNIZERS,
    SetupError,
    check_tts,
    make_recognizer,
    read_part,
    recognize_batches,
    recognizer_settings,
    write_json,
)
from engine.evaluation.recognized_sets import parts_folder
from engine.words import PUNCT_LABELS, Word

# Conversational text (game dialogue, chat) and narrative prose: the pauses differ.
MODERN_FILES = ("chitchat", "freedroidrpg", "renpy", "wesnoth", "naev", "freedink")
TRAIN_FILES = (
    "austen_emma", "austen_mansfieldpark", "austen_northangerabbey", "austen_prideprejudice",
    "austen_sensesensibility", "melville_mobydick", "fortunes",
)  # fmt: skip
VOICES = ("en-us", "en", "en-gb-x-rp")
SPEEDS = (140, 170, 200)
GAP = 1.0  # seconds of silence between excerpts


# -- excerpts --------------------------------------------------------------------------------------
def training_excerpts(
    folders: Sequence[Path], files: Sequence[str], count: int, min_words: int, max_words: int, seed: int
) -> list[Excerpt]:
    """``count`` excerpts from the named files of the folders, each file in turn. Each folder is
    labelled whole (``prepare_folder``), as training labels it."""
    from engine.punctuation.labelled_text import PrepareError, prepare_folder

    docs = []
    for folder in folders:
        try:
            docs += [d for d in prepare_folder(folder) if Path(d.name.rsplit("#", 1)[0]).stem in files]
        except PrepareError as exc:
            raise SetupError(str(exc)) from exc
    if not docs:
        raise SetupError(f"none of {', '.join(files)} is in {', '.join(map(str, folders))}")
    try:
        return choose_excerpts(docs, count, min_words, max_words, seed)
    except ValueError as exc:
        raise SetupError(str(exc)) from exc


def espeak_voices(wanted: Sequence[str]) -> list[str]:
    """The wanted espeak-ng voices this installation has."""
    listing = subprocess.run(["espeak-ng", "--voices=en"], capture_output=True, text=True, check=True).stdout
    have = {line.split()[1] for line in listing.splitlines()[1:] if len(line.split()) > 1}
    return [v for v in wanted if v in have]


def groups(excerpts: Sequence[Excerpt], voices: Sequence[str], speeds: Sequence[int]):
    """(voice, speed, excerpts) readings: the excerpts dealt out in turn, so each file is heard in
    several voices and speeds."""
    grid = [(v, s) for v in voices for s in speeds]
    return [
        (v, s, list(excerpts[k :: len(grid)])) for k, (v, s) in enumerate(grid) if excerpts[k :: len(grid)]
    ]


# -- alignment -------------------------------------------------------------------------------------
def aligned_rows(excerpts: Sequence[Excerpt], spans, words: Sequence[Word]) -> list[dict]:
    """One row per recognized word, in order, with the reference mark, case and index of the word
    it aligns to (a substitution keeps them; an insertion has None). Words are split between
    excerpts at the middle of each silence and aligned excerpt by excerpt, as the e2e score does."""
    times = [None if w.start is None or w.end is None else (w.start + w.end) / 2 for w in words]
    buckets = split_by_spans(times, spans)
    ref_of: list[int | None] = [None] * len(words)
    marks = [m for e in excerpts for m in e.marks]
    cases = [c for e in excerpts for c in e.cases]
    ref_at = 0
    for k, e in enumerate(excerpts):
        idx = [j for j, b in enumerate(buckets) if b == k]
        for i, j in align(e.words, [words[j].text for j in idx]):
            if i is not None and j is not None:
                ref_of[idx[j]] = ref_at + i
        ref_at += len(e.words)
    rows = []
    for w, r, k in zip(words, ref_of, buckets):
        rows.append(
            {
                "text": w.text,
                "start": None if w.start is None else round(w.start, 3),
                "end": None if w.end is None else round(w.end, 3),
                "written": w.written,
                "ref_mark": None if r is None else marks[r],
                "ref_case": None if r is None else cases[r],
                "ref_index": r,
                "excerpt": k,
            }
        )
    return rows


def reference(excerpts: Sequence[Excerpt]) -> dict:
    return {
        "words": [w for e in excerpts for w in e.words],
        "marks": [m for e in excerpts for m in e.marks],
        "cases": [c for e in excerpts for c in e.cases],
    }


def errors(reading: dict) -> tuple[int, int]:
    """(word errors, reference words) of a reading, from its rows."""
    ref = reading["reference"]["words"]
    rows = reading["words"]
    paired = [r for r in rows if r["ref_index"] is not None]
    substituted = sum(1 for r in paired if r["text"].lower() != ref[r["ref_index"]])
    inserted = len(rows) - len(paired)
    deleted = len(ref) - len(paired)
    return substituted + inserted + deleted, len(ref)


def pauses_after(rows: Sequence[dict]) -> list[tuple[str, float]]:
    """(reference mark, or "inserted"; seconds to the next recognized word) for each word followed
    by one in the same excerpt: the silence between excerpts is the reading's, not the text's."""
    out = []
    for a, b in zip(rows, rows[1:]):
        if a["excerpt"] != b["excerpt"] or a["end"] is None or b["start"] is None:
            continue
        out.append((a["ref_mark"] or "inserted", round(b["start"] - a["end"], 3)))
    return out


# -- the run ---------------------------------------------------------------------------------------
def build_readings(
    readings_wanted, recognizers: Sequence[str], whisper_live: bool, parts: Path, log: Callable[[str], None]
) -> tuple[list[dict], dict]:
    made: dict[str, object] = {}
    readings, settings = [], {}
    for voice, speed, excerpts in readings_wanted:
        speech = None
        for name in recognizers:
            live = whisper_live or name != "whisper"
            key = {
                "recognizer": name, "live": live, "tts": "espeak-ng", "voice": voice, "speed": speed,
                "gap": GAP, "sources": [e.source for e in excerpts],
            }  # fmt: skip
            part_path = parts / f"{name}_espeak-ng_{voice}_{speed}.json"
            cached = read_part(part_path, key)
            if cached is not None:
                log(f"{name} {voice} {speed}: cached in {part_path}")
                readings.append(cached["reading"])
                settings.setdefault(name, cached.get("settings"))
                continue
            if speech is None:
                speech = synthesize(excerpts, gap=GAP, voice=voice, speed=speed)
                seconds = len(speech.audio) / SAMPLE_RATE
                log(f"{voice} {speed}: {len(excerpts)} excerpts, {seconds:.0f} s of speech")
            if name not in made:
                made[name] = make_recognizer(name, live)
                settings[name] = {**recognizer_settings(made[name]), "live": live}
            batches, cpu, _ = recognize_batches(made[name], speech.audio, live)
            words = [w for batch, _ in batches for w in batch]
            reading = {
                "recognizer": name, "tts": "espeak-ng", "voice": voice, "speed": speed, "live": live,
                "audio_seconds": round(len(speech.audio) / SAMPLE_RATE, 2), "cpu_seconds": round(cpu, 1),
                "excerpts": [{"source": e.source, "words": len(e.words)} for e in excerpts],
                "spans": [[round(a, 3), round(b, 3)] for a, b in speech.spans],
                "words": aligned_rows(excerpts, speech.spans, words),
                "reference": reference(excerpts),
            }  # fmt: skip
            wrong, total = errors(reading)
            wer = wrong / max(total, 1)
            log(f"{name} {voice} {speed}: {len(words)} words, WER {wer:.3f}, {cpu:.0f} CPU-s")
            write_json(
                part_path,
                {"version": PART_VERSION, "key": key, "settings": settings[name], "reading": reading},
            )
            readings.append(reading)
    return readings, settings


def summary(readings: Sequence[dict]) -> dict:
    out: dict[str, dict] = {}
    for r in readings:
        row = out.setdefault(
            r["recognizer"],
            {"readings": 0, "words": 0, "audio_seconds": 0.0, "cpu_seconds": 0.0, "_e": [0, 0], "_p": {}},
        )
        row["readings"] += 1
        row["words"] += len(r["words"])
        row["audio_seconds"] = round(row["audio_seconds"] + r["audio_seconds"], 1)
        row["cpu_seconds"] = round(row["cpu_seconds"] + r["cpu_seconds"], 1)
        wrong, total = errors(r)
        row["_e"][0] += wrong
        row["_e"][1] += total
        for mark, pause in pauses_after(r["words"]):
            row["_p"].setdefault(mark, []).append(pause)
    for row in out.values():
        wrong, total = row.pop("_e")
        row["wer"] = round(wrong / total, 4) if total else None
        found = row.pop("_p")
        row["median_pause_after"] = {
            m: round(statistics.median(found[m]), 3) for m in (*PUNCT_LABELS, "inserted") if found.get(m)
        }
        row["pauses_counted"] = {m: len(found[m]) for m in (*PUNCT_LABELS, "inserted") if found.get(m)}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.speech_timing", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the JSON to write (parts cached beside it)")
    parser.add_argument("--excerpts", type=int, default=48)
    parser.add_argument("--min-words", type=int, default=40)
    parser.add_argument("--max-words", type=int, default=90)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recognizers", nargs="+", default=list(RECOGNIZERS), choices=RECOGNIZERS)
    parser.add_argument(
        "--voices", nargs="+", default=list(VOICES), help="espeak-ng voices (missing ones skipped)"
    )
    parser.add_argument("--speeds", nargs="+", type=int, default=list(SPEEDS), help="words per minute")
    parser.add_argument("--whisper-mode", choices=("live", "file"), default="live")
    parser.add_argument(
        "--files", nargs="+", default=[*MODERN_FILES, *TRAIN_FILES], help="file stems to draw from"
    )
    parser.add_argument(
        "--corpus", type=Path, nargs="+", default=None, help="folders (default: train and modern)"
    )
    args = parser.parse_args(argv)
    log = lambda msg: print(f"speech_timing: {msg}", file=sys.stderr, flush=True)  # noqa: E731

    from engine.evaluation.corpus import modern_corpus, train_corpus

    try:
        check_tts("espeak-ng")
        voices = espeak_voices(args.voices)
        if not voices:
            raise SetupError(f"espeak-ng has none of the voices {', '.join(args.voices)}")
        if len(voices) < len(args.voices):
            log(f"voices missing, skipped: {', '.join(v for v in args.voices if v not in voices)}")
        folders = args.corpus or [train_corpus(), modern_corpus()]
        log(f"labelling {', '.join(map(str, folders))} ...")
        excerpts = training_excerpts(
            folders, args.files, args.excerpts, args.min_words, args.max_words, args.seed
        )
        wanted = groups(excerpts, voices, args.speeds)
        readings, settings = build_readings(
            wanted, args.recognizers, args.whisper_mode == "live", parts_folder(args.out), log
        )
    except SetupError as exc:
        print(f"speech_timing: {exc}", file=sys.stderr)
        return 2
    result = summary(readings)
    out = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python -m training.speech_timing " + " ".join(argv if argv is not None else sys.argv[1:]),
        "recognizers": settings,
        "gap_seconds": GAP,
        "summary": result,
        "readings": readings,
    }
    write_json(args.out, out)
    log(f"wrote {args.out}")
    print(json.dumps({"out": str(args.out), "readings": len(readings), **result}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
