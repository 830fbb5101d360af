"""Training speech with a person's prosody: ``python -m training.piper_speech --out runs/speech/piper_train
[--readings 400] [--time-budget MINUTES]`` (prepare stage, no torch).

espeak-ng and festival end every sentence alike, with flat pitch and a fixed pause, so what a
model learns from their timing does not carry over to people. Piper's en_US-joe-medium voice is
a neural (VITS) voice trained on one human reader's recordings (CC0): Whisper places commas from
its prosody as it does from a person's. Here the modern training text (never dev) is read by it,
each passage in its own speaking style drawn from ``STYLE_RANGES`` (``PiperStyle``: pace, timbre
and pitch noise, rhythm noise, the pause between sentences), so one voice gives many speakers'
habits; the settings outside those ranges are kept for the held-out check (docs/QUALITY.md).

Whisper tiny.en hears each reading live, fed 0.1 s at a time as a session feeds it, since the
word times a session gives (commits, trimmed buffers) are what the prosody features are computed
against. Each recognized word is aligned to the text read (``speech_timing.aligned_rows``), so it
carries the reference mark and case of the word it stands for.

Each reading is one part in ``--out``: ``reading_NNNN.json`` (words, reference, styles) and
``reading_NNNN.npy`` (the 16 kHz int16 audio, from which ``engine.prosody`` computes the
features at training time). A part is written whole or not at all; a rerun skips the parts that
exist and goes on, so the hours this takes on 2 cores can be spread over many runs
(``--time-budget`` stops cleanly after the reading under way).

``--recognizer pocketsphinx --audio-from runs/speech/piper_train --out DIR`` hears the readings
already made there with another built-in recognizer, so that what is learnt from one
recognizer's words can be checked on another's, on the same audio: nothing is spoken again, and
the audio is linked, not copied.

``--phrasing`` has Piper read a text whose commas are not the labels': a voice that reads text
aloud pauses at every comma and nowhere else, so what a fusion learns from it is "a pause is a
mark". People (and festival's phrasing) pause between phrases where no mark is written, and run
through many commas. So each comma is left unread with ``UNREAD_COMMA_SHARE``, and a comma is
read, but not labelled, before a phrase's first word (``PHRASE_STARTS``) with
``PHRASE_BREAK_SHARE`` where the words since the last mark make a phrase. The labels stay the
text's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_speech import SAMPLE_RATE, Excerpt, PiperStyle, Speech, speak_piper
from engine.evaluation.recognized_dev import (
    RECOGNIZERS,
    SetupError,
    atomic_save_npy,
    check_tts,
    make_recognizer,
    recognize_batches,
    recognizer_settings,
    write_json,
)
from engine.words import MARK_TEXT, apply_case
from training.speech_timing import aligned_rows, errors, reference, training_excerpts

PART_VERSION = 1
# The speaking styles training draws from, uniformly per passage. The voice's own is (1.0, 0.667,
# 0.8, 0.25); the held-out readings use settings outside every range (docs/QUALITY.md).
STYLE_RANGES = {
    "length_scale": (0.85, 1.3),
    "noise_scale": (0.45, 0.85),
    "noise_w": (0.5, 1.05),
    "sentence_pause": (0.05, 0.6),
}
# The modern files, each in turn (``choose_excerpts``): conversation (chat turns, game dialogue)
# is half of them, and the rest is prose and reference text, as captions hear both.
FILES = (
    "chitchat", "freedroidrpg", "renpy", "wesnoth", "naev", "freedink", "crawl", "widelands",
    "cfi_en", "jargon", "debian_handbook", "gnome_user_docs",
)  # fmt: skip
EXCERPTS_PER_READING = 6
# --phrasing: how often a comma is read through, and how often an unmarked phrase break is paused at.
UNREAD_COMMA_SHARE = 0.3
PHRASE_BREAK_SHARE = 0.35
PHRASE_WORDS = 4  # the fewest words since the last mark that make a phrase
PHRASE_STARTS = frozenset(
    "and but or that which who when where while because if as since though in on at for "
    "with from into about after before than".split()
)
GAP = (0.8, 2.0)  # seconds of silence between passages, drawn


@dataclass
class Reading:
    number: int
    excerpts: list[Excerpt]
    styles: list[PiperStyle]
    gaps: list[float]


def draw_style(rng: random.Random) -> PiperStyle:
    return PiperStyle(**{name: rng.uniform(*span) for name, span in STYLE_RANGES.items()})


def plan_readings(excerpts: Sequence[Excerpt], count: int, seed: int) -> list[Reading]:
    """The excerpts dealt into readings, each passage with its own style: the plan depends only on
    the seed, so a rerun makes the same readings in the same order."""
    rng = random.Random(seed)
    out = []
    for k in range(min(count, len(excerpts) // EXCERPTS_PER_READING)):
        chosen = list(excerpts[k * EXCERPTS_PER_READING : (k + 1) * EXCERPTS_PER_READING])
        out.append(Reading(k, chosen, [draw_style(rng) for _ in chosen], [rng.uniform(*GAP) for _ in chosen]))
    return out


def phrased_text(excerpt: Excerpt, rng: random.Random) -> str:
    """The excerpt as Piper reads it with ``--phrasing``: some commas left unread, and unlabelled
    commas before some phrases' first words."""
    out, since_mark = [], 0
    for k, (word, case, mark) in enumerate(zip(excerpt.words, excerpt.cases, excerpt.marks)):
        spoken = mark
        if mark == "comma" and rng.random() < UNREAD_COMMA_SHARE:
            spoken = "none"
        following = excerpt.words[k + 1] if k + 1 < len(excerpt.words) else ""
        since_mark = 0 if mark != "none" else since_mark + 1
        if (
            spoken == "none"
            and mark == "none"
            and since_mark >= PHRASE_WORDS
            and following in PHRASE_STARTS
            and rng.random() < PHRASE_BREAK_SHARE
        ):
            spoken, since_mark = "comma", 0
        out.append(apply_case(word, case) + MARK_TEXT[spoken])
    return " ".join(out)


def spoken_texts(reading: Reading, phrasing: bool) -> list[str]:
    """What Piper reads for each passage: the text, or with ``phrasing`` its rephrased reading (by
    the reading's own draw, so a rerun reads the same)."""
    if not phrasing:
        return [e.text for e in reading.excerpts]
    rng = random.Random(f"phrasing {reading.number}")
    return [phrased_text(e, rng) for e in reading.excerpts]


def speak_reading(reading: Reading, lead: float = 0.5, phrasing: bool = False) -> Speech:
    """The reading's passages, each in its style, with its gap of silence after it."""
    parts, spans, at = [np.zeros(int(lead * SAMPLE_RATE), np.int16)], [], int(lead * SAMPLE_RATE)
    for text, style, gap in zip(spoken_texts(reading, phrasing), reading.styles, reading.gaps):
        clip = speak_piper(text, style=style)
        voiced = np.flatnonzero(np.abs(clip) > 200)
        first, last = (voiced[0], voiced[-1] + 1) if len(voiced) else (0, len(clip))
        spans.append(((at + first) / SAMPLE_RATE, (at + last) / SAMPLE_RATE))
        pause = np.zeros(int(gap * SAMPLE_RATE), np.int16)
        parts += [clip, pause]
        at += len(clip) + len(pause)
    return Speech(np.concatenate(parts), spans)


def check_audio_from(folder: Path, out: Path) -> None:
    """One line (``SetupError``) for a folder that cannot give its readings to ``out``."""
    if not folder.is_dir() or not load_readings(folder):
        raise SetupError(f"{folder}: no readings there; make them first with --out {folder}")
    if folder.resolve() == out.resolve():
        raise SetupError(
            f"--out {out} is the folder the audio comes from: give another, so nothing is overwritten"
        )


def check_phrasing(out: Path, phrasing: bool) -> None:
    """One line (``SetupError``) where ``out`` already holds readings spoken the other way: a
    resumed folder must not mix plain and phrased readings unnoticed."""
    other = [path for data, path in load_readings(out) if ("spoken" in data) != phrasing]
    if other:
        made = "with" if not phrasing else "without"
        raise SetupError(
            f"{out} holds readings made {made} --phrasing ({other[0].stem} and {len(other) - 1} more): "
            f"give the flag as they were made, or another --out"
        )


def made_speech(folder: Path, reading: Reading) -> Speech | None:
    """The reading's audio and passage spans as made in ``folder``, or None if it was not made
    there. A reading of another plan (another seed or corpus) is refused: its words would be
    aligned against the wrong text."""
    meta_path, audio_path = part_paths(folder, reading.number)
    if not (meta_path.is_file() and audio_path.is_file()):
        return None
    data = json.loads(meta_path.read_text(encoding="utf-8"))
    if data["reference"] != reference(reading.excerpts):
        raise SetupError(
            f"{meta_path} was read from other text: give the --seed, --readings, --corpus and word "
            "limits it was made with"
        )
    return Speech(np.load(audio_path), [tuple(span) for span in data["spans"]])


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` (the same audio twice costs nothing), else a copy
    written whole (another file system)."""
    try:
        os.link(source, target)
    except OSError:
        partial = target.with_name(target.name + ".partial")
        shutil.copyfile(source, partial)
        os.replace(partial, target)


def part_paths(out: Path, number: int) -> tuple[Path, Path]:
    return out / f"reading_{number:04d}.json", out / f"reading_{number:04d}.npy"


def recognizer_of(reading: dict) -> str:
    """The recognizer kind whose words a reading holds (the first readings, made before it was
    written down, were Whisper's)."""
    return reading.get("recognizer", {}).get("name", "whisper")


def load_readings(folder: str | Path) -> list[tuple[dict, Path]]:
    """Every finished reading in ``folder``: (its JSON, the path of its audio)."""
    out = []
    for path in sorted(Path(folder).glob("reading_*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        audio = path.with_suffix(".npy")
        if data.get("version") == PART_VERSION and audio.is_file():
            out.append((data, audio))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.piper_speech", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the folder of readings (resumed)")
    parser.add_argument(
        "--readings", type=int, default=400, help=f"readings of {EXCERPTS_PER_READING} passages"
    )
    parser.add_argument("--min-words", type=int, default=30)
    parser.add_argument("--max-words", type=int, default=90)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--time-budget", type=float, default=None, help="minutes; stop after the reading under way"
    )
    parser.add_argument(
        "--corpus", type=Path, default=None, help="a folder of punctuated .txt (default: modern; never dev)"
    )
    parser.add_argument(
        "--first", type=int, default=0, help="start at this reading (share the work between runs)"
    )
    parser.add_argument("--step", type=int, default=1, help="make every STEP-th reading (with --first)")
    parser.add_argument(
        "--phrasing", action="store_true", help="read commas apart from the labels (the module's notes)"
    )
    parser.add_argument("--recognizer", default="whisper", choices=RECOGNIZERS, help="who hears the readings")
    parser.add_argument(
        "--audio-from",
        type=Path,
        default=None,
        help="hear the readings of this folder again (made with the same plan)",
    )
    args = parser.parse_args(argv)
    log = lambda msg: print(f"piper_speech: {msg}", file=sys.stderr, flush=True)  # noqa: E731
    started = time.monotonic()

    from engine.evaluation.corpus import modern_corpus

    try:
        check_phrasing(args.out, args.phrasing)
        if args.audio_from is not None:
            check_audio_from(args.audio_from, args.out)
        else:
            check_tts("piper")
        log("labelling the modern corpus ...")
        count = args.readings * EXCERPTS_PER_READING
        folder = args.corpus or modern_corpus()
        files = FILES if args.corpus is None else tuple(p.stem for p in sorted(folder.glob("*.txt")))
        excerpts = training_excerpts([folder], files, count, args.min_words, args.max_words, args.seed)
    except SetupError as exc:
        print(f"piper_speech: {exc}", file=sys.stderr)
        return 2
    readings = plan_readings(excerpts, args.readings, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    recognizer, made, words_total, wrong_total = None, 0, 0, 0
    for reading in readings[args.first :: args.step]:
        meta_path, audio_path = part_paths(args.out, reading.number)
        if meta_path.is_file() and audio_path.is_file():
            continue
        if args.time_budget is not None and time.monotonic() - started > args.time_budget * 60:
            log(f"time budget spent after {made} readings: run the same command again to go on")
            break
        try:
            speech = (
                speak_reading(reading, phrasing=args.phrasing)
                if args.audio_from is None
                else made_speech(args.audio_from, reading)
            )
            if speech is None:  # not made there (yet)
                continue
            if recognizer is None:
                recognizer = make_recognizer(args.recognizer, live=True)
        except SetupError as exc:
            print(f"piper_speech: {exc}", file=sys.stderr)
            return 2
        batches, cpu, _ = recognize_batches(recognizer, speech.audio, live=True)
        words = [w for batch, _ in batches for w in batch]
        data = {
            "version": PART_VERSION,
            "recognizer": {"name": recognizer.name, **recognizer_settings(recognizer), "live": True},
            "styles": [s.to_dict() for s in reading.styles],
            **({"spoken": spoken_texts(reading, True)} if args.phrasing else {}),
            "audio_seconds": round(len(speech.audio) / SAMPLE_RATE, 2),
            "cpu_seconds": round(cpu, 1),
            "excerpts": [{"source": e.source, "words": len(e.words)} for e in reading.excerpts],
            "spans": [[round(a, 3), round(b, 3)] for a, b in speech.spans],
            "words": aligned_rows(reading.excerpts, speech.spans, words),
            "reference": reference(reading.excerpts),
        }
        if args.audio_from is None:
            atomic_save_npy(audio_path, speech.audio)
        else:
            link_or_copy(part_paths(args.audio_from, reading.number)[1], audio_path)
        write_json(meta_path, data)  # last: a reading counts once its JSON is there
        wrong, total = errors(data)
        made, words_total, wrong_total = made + 1, words_total + total, wrong_total + wrong
        log(
            f"reading {reading.number}: {total} words, {data['audio_seconds']:.0f} s, "
            f"WER {wrong / max(total, 1):.3f}, {cpu:.0f} CPU-s ({time.monotonic() - started:.0f} s so far)"
        )
    done = load_readings(args.out)
    print(json.dumps({
        "out": str(args.out), "readings": len(done), "made_now": made,
        "reference_words": sum(len(d["reference"]["words"]) for d, _ in done),
        "audio_seconds": round(sum(d["audio_seconds"] for d, _ in done), 1),
        "wer_now": round(wrong_total / words_total, 4) if words_total else None,
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
