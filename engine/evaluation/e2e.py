"""End-to-end accuracy and latency of live captions: ``python -m engine.evaluation.e2e`` (prints JSON).

Dev-corpus excerpts spoken by espeak-ng (``engine.evaluation.e2e_speech``) are written to
one 16 kHz WAV, which goes through the real live path: ``FileSource`` →
``LiveSession`` (recognizer thread, ``WordStabiliser``) → the punctuation
engine thread with the shipped model and its default streaming decoder. The
final transcript is scored against the excerpts (``engine.evaluation.e2e_score``: WER,
P/R/F1 per mark, casing). ``engine.evaluation.e2e_run`` runs the session and
``engine.evaluation.e2e_latency`` times it; this module is the command and its report.

Latency, per word of the final transcript, from the moment its audio ended
(its end time in the stream, as the recognizer reports it):

- *first display*: until it first appeared in any event, a ``PartialWords``
  or an ``Appended`` with the same text and an overlapping time span;
- *settled*: until the ``Settled`` event that gave its position its final mark.

With real-time pacing (the default) a stream time ``t`` happened at wall-clock
``t0 + t``, where ``t0`` is when the file source started: the source hands out
each 0.1 s chunk only once its last sample is due, as a microphone would, so
the figures include the chunking, the recognizer, the stabiliser, the engine
queue and the model. ``--fast`` feeds the audio as fast as it decodes, in
lockstep with the engine (a chunk goes in only once the engine has handled
everything before it); marks, retractions and accuracy come out the same (they
depend on the audio, not the pace), and latency is counted in stream time:
the audio fed when the event fired, minus the word's end. That is the
algorithmic latency (chunking, endpointing, stabiliser agreement, lookahead),
without compute time: a quick look, while the targets are judged on paced runs.

CPU share: process CPU time (all threads) over wall time while the session
ran, as a fraction of one core; meaningful only when paced.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e_latency import (
    DISPLAY_TOLERANCE,
    Probe,
    Shown,
    first_display,
    latencies,
    percentile,
)
from engine.evaluation.e2e_run import (
    TARGETS,
    WHISPER_TARGETS,
    Lockstep,
    evaluate,
    progress_every,
    run_live,
    silence_cost,
    whole_file_wer,
)
from engine.evaluation.e2e_speech import SAMPLE_RATE, espeak_version, load_excerpts, synthesize
from engine.files.digest import file_digest
from engine.recognizers.kinds import NAMES, POCKETSPHINX
from engine.session.marks import MARKS

# The command and its option parsing are here; the run and the latency figures, which other
# benchmarks and tests use too, are e2e_run's and e2e_latency's, and named here as well so that
# ``from engine.evaluation.e2e import ...`` goes on working.
__all__ = ["main", "parse_options", "parse_whisper_options", "espeak_version"]
__all__ += [
    "TARGETS",
    "WHISPER_TARGETS",
    "Lockstep",
    "evaluate",
    "run_live",
    "silence_cost",
    "whole_file_wer",
]
__all__ += ["DISPLAY_TOLERANCE", "Probe", "Shown", "first_display", "latencies", "percentile"]


def parse_whisper_options(items: Sequence[str]) -> dict:
    """``KEY=VALUE`` pairs as ``WhisperOptions`` fields."""
    from engine.recognizers.whisper_options import WhisperOptions

    known = dataclasses.asdict(WhisperOptions())
    settings = parse_options(items)
    for key in settings:
        if key not in known:
            raise SystemExit(f"e2e: unknown Whisper option {key!r}: choose from {', '.join(known)}")
    return settings


def parse_options(items: Sequence[str]) -> dict:
    """``["lw=6.5", "bestpath=no"]`` -> ``{"lw": 6.5, "bestpath": False}``."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"e2e: --decoder-option wants KEY=VALUE, got {item!r}")
        low = value.lower()
        if low in ("yes", "true", "on", "no", "false", "off"):
            out[key] = low in ("yes", "true", "on")
            continue
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.e2e",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="folder of punctuated .txt (default: $LIVECAP_CORPUS/dev, else ../shared/corpus/dev)",
    )
    parser.add_argument(
        "--excerpts",
        type=int,
        default=None,
        help="excerpts (default 12), or passages per language (default 5)",
    )
    parser.add_argument("--min-words", type=int, default=40)
    parser.add_argument("--max-words", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds of silence between excerpts")
    parser.add_argument("--voice", default=None, help="the TTS voice (default: en-us, or the language's)")
    parser.add_argument(
        "--tts",
        choices=("espeak-ng", "mbrola"),
        default="espeak-ng",
        help="with --language: espeak-ng's own voices, or its MBROLA ones (Debian's mbrola-de1 ...)",
    )
    parser.add_argument(
        "--language",
        default="en",
        help="another language, or several (de,es,...): Whisper base on the project's passages "
        "(engine.evaluation.languages)",
    )
    parser.add_argument(
        "--translate",
        action="store_true",
        help="with --language: English captions, scored against the English",
    )
    parser.add_argument(
        "--detection", action="store_true", help="with --language: also the language told from 10 s clips"
    )
    parser.add_argument("--batch-only", action="store_true", help="with --language: no live run")
    parser.add_argument("--speed", type=int, default=130, help="espeak-ng words per minute")
    parser.add_argument("--recognizer", choices=NAMES, default=POCKETSPHINX.name)
    parser.add_argument("--model", default=None, help="Vosk or Whisper model folder or installed name")
    parser.add_argument(
        "--marks",
        choices=MARKS,
        default="auto",
        help="whose marks: the punctuation engine's, Whisper's own, or the default for the recognizer",
    )
    parser.add_argument(
        "--whisper-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Whisper streaming setting (WhisperOptions), e.g. cadence=0.75 or prompt=true (repeatable)",
    )
    parser.add_argument(
        "--silence",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also run this long a recording of a quiet room (noise at -60 dBFS), paced: CPU in silence",
    )
    parser.add_argument(
        "--whole-file",
        action="store_true",
        help="Whisper: also decode the WAV as one file (transcribe's path) and report its WER",
    )
    parser.add_argument(
        "--final-pass",
        action="store_true",
        help="PocketSphinx: also run its fwdflat and bestpath passes (the batch setting)",
    )
    parser.add_argument(
        "--decoder-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="PocketSphinx decoder setting, e.g. lw=6.5 (repeatable)",
    )
    parser.add_argument(
        "--rewrite-agreement",
        type=int,
        default=None,
        help="stabiliser: partials a rewrite of a committed word must stand for (default: its own)",
    )
    parser.add_argument(
        "--agreement",
        type=int,
        default=None,
        help="stabiliser: partials a new word must stand for before it is committed (default: its own)",
    )
    parser.add_argument(
        "--max-age",
        type=float,
        default=None,
        help="stabiliser: seconds after which an unchanged word is committed anyway (default: its own)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="punctuation decoder: entropy threshold h in bits (default: the model's config)",
    )
    parser.add_argument(
        "--l-max",
        type=int,
        default=None,
        help="punctuation decoder: most words of lookahead it waits for (default: the model's config)",
    )
    parser.add_argument(
        "--model-dir", type=Path, default=None, help="punctuation model (default: the shipped one)"
    )
    parser.add_argument("--threads", type=int, default=1, help="threads for the punctuation model")
    parser.add_argument(
        "--fast", action="store_true", help="no real-time pacing: latency in stream time only"
    )
    parser.add_argument("--keep-wav", type=Path, default=None, help="also save the synthesised speech here")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    command = "python -m engine.evaluation.e2e " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.language != "en" or args.translate:
        from engine.evaluation import languages

        if args.recognizer != "whisper":
            parser.error("--language and --translate measure Whisper base: add --recognizer whisper")
        args.excerpts = args.excerpts or 5
        return languages.main(args, parse_whisper_options, command)
    args.excerpts = args.excerpts or 12
    args.voice = args.voice or "en-us"
    log = lambda msg: print(f"e2e: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()

    from engine.files import paths
    from engine.machine import cpu_description
    from engine.punctuation.model import PunctuationModel, model_folder
    from engine.recognizers.base import RecognizerError
    from engine.recognizers.select import open_recognizer

    corpus = args.corpus or dev_corpus()
    excerpts = load_excerpts(corpus, args.excerpts, args.min_words, args.max_words, args.seed)
    log(f"{len(excerpts)} excerpts, {sum(len(e.words) for e in excerpts)} words from {corpus}")
    speech = synthesize(excerpts, args.gap, voice=args.voice, speed=args.speed)
    log(f"{len(speech.audio) / SAMPLE_RATE:.1f} s of speech")
    # Each kind's own settings; a kind refuses the others' (``kinds``' openers).
    options = {
        **parse_options(args.decoder_option),
        **({"final_pass": True} if args.final_pass else {}),
        **(parse_whisper_options(args.whisper_option) if args.whisper_option else {}),
    }
    try:
        recognizer, notice, _ = open_recognizer(
            args.recognizer, args.model, models_dir=paths.recognizer_models_dir(), options=options
        )
    except RecognizerError as exc:
        parser.error(str(exc))
    if notice:
        log(notice)
    from engine.recognizers.stabiliser import WordStabiliser

    stabiliser_settings = {
        key: value
        for key, value in (
            ("agreement", args.agreement),
            ("max_age", args.max_age),
            ("rewrite_agreement", args.rewrite_agreement),
        )
        if value is not None
    }
    stabiliser = WordStabiliser.for_recognizer(recognizer, **stabiliser_settings)
    model_dir = model_folder(args.model_dir)
    model = PunctuationModel(model_dir, threads=args.threads)
    with tempfile.TemporaryDirectory(prefix="livecap-e2e-") as scratch:
        import soundfile as sf

        wav = args.keep_wav or Path(scratch) / "speech.wav"
        sf.write(wav, speech.audio, SAMPLE_RATE, subtype="PCM_16")
        mode = "fast" if args.fast else "real time"
        log(f"running the live session ({mode}, {recognizer.name})...")
        progress = progress_every(log)
        result = evaluate(
            excerpts,
            speech,
            wav,
            recognizer,
            model,
            realtime=not args.fast,
            progress=progress,
            stabiliser=stabiliser,
            threshold=args.threshold,
            l_max=args.l_max,
            marks=args.marks,
        )
        if args.silence > 0:
            result["silence"] = silence_cost(recognizer, model, args.silence, Path(scratch))
        if args.whole_file and args.recognizer == "whisper":
            result["whole_file"] = whole_file_wer(excerpts, speech, wav, args.model)
    result = {
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "recognizer": recognizer.name,
        "recognizer_model": str(recognizer.model_path or "built-in"),
        "recognizer_settings": (
            {"final_pass": recognizer.final_pass, **parse_options(args.decoder_option)}
            if args.recognizer == "pocketsphinx"
            else (dataclasses.asdict(recognizer.options) | {"threads": recognizer.threads})
            if args.recognizer == "whisper"
            else {}
        ),
        "stabiliser": {
            "agreement": stabiliser.agreement,
            "max_age": stabiliser.max_age,
            "rewrite_agreement": stabiliser.rewrite_agreement,
        },
        "punctuation_model": str(model_dir),
        "punctuation_decoder": {
            "threshold": args.threshold if args.threshold is not None else model.config.decoder.threshold,
            "l_max": args.l_max if args.l_max is not None else model.config.decoder.l_max,
        },
        # which model file was measured: it is retrained, and figures are compared across versions
        "punctuation_model_sha256": file_digest(model_dir / "model.onnx"),
        "espeak_ng": espeak_version(),
        "excerpts": [e.source for e in excerpts],
        "settings": {
            "seed": args.seed,
            "excerpts": args.excerpts,
            "words": [args.min_words, args.max_words],
            "gap_s": args.gap,
            "voice": args.voice,
            "speed_wpm": args.speed,
            "threads": args.threads,
        },
        **result,
        "elapsed_seconds": round(time.monotonic() - began, 1),  # the whole command: synthesis, load, run
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if result["error"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
