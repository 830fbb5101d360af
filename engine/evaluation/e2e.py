"""End-to-end accuracy and latency of live captions: ``python -m engine.evaluation.e2e`` (prints JSON).

Dev-corpus excerpts spoken by espeak-ng (``engine.evaluation.e2e_speech``) are written to
one 16 kHz WAV, which goes through the real live path: ``FileSource`` →
``LiveSession`` (recognizer thread, ``WordStabiliser``) → the punctuation
engine thread with the shipped model and its default streaming decoder. The
final transcript is scored against the excerpts (``engine.evaluation.e2e_score``: WER,
P/R/F1 per mark, casing). This module times the run.

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
import os
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e_score import case_class, score
from engine.evaluation.e2e_speech import (
    SAMPLE_RATE,
    Excerpt,
    Speech,
    load_excerpts,
    synthesize,
)
from engine.files.digest import file_digest
from engine.recognizers.kinds import NAMES, POCKETSPHINX

TARGETS = {"first_display_p90_s": 1.0, "settled_p90_s": 2.0, "cpu_share_of_one_core": 0.5}
# A recognizer that commits its own words (Whisper) re-decodes a buffer each cadence and commits on
# the agreement of two decodes: its targets allow for that (and its CPU share is the whole
# pipeline's, one core at most).
WHISPER_TARGETS = {
    "first_display_p90_s": 2.0,
    "committed_p90_s": 3.0,
    "settled_p90_s": 3.5,
    "cpu_share_of_one_core": 1.0,
    "peak_rss_mb": 600,
}
DISPLAY_TOLERANCE = 0.15  # seconds: a displayed word is "the same word" if its span overlaps within this


@dataclass
class Shown:
    wall: float  # time.monotonic() when the subscriber got it
    stream: float  # seconds of audio the session had fed by then
    text: str
    start: float | None
    end: float | None


@dataclass
class Probe:
    """A session subscriber that timestamps every displayed word and every settled position."""

    session: object = None
    shown: list[Shown] = field(default_factory=list)
    settled: dict[int, tuple[float, float]] = field(
        default_factory=dict
    )  # position -> (wall, stream), the last one
    appended: dict[int, tuple[float, float]] = field(
        default_factory=dict
    )  # position -> (wall, stream), the last one
    withdrawn: int = 0  # settled marks taken back because the recognizer replaced their word
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, events: list) -> None:
        from engine.events import Appended, PartialWords, Settled, Withdrawn

        wall = time.monotonic()
        stream = self.session.stream_time if self.session is not None else 0.0
        with self.lock:
            for event in events:
                if isinstance(event, PartialWords):
                    self.shown += [Shown(wall, stream, w.text, w.start, w.end) for w in event.words]
                elif isinstance(event, Appended):
                    w = event.word
                    self.shown.append(Shown(wall, stream, w.text, w.start, w.end))
                    self.appended[event.position] = (wall, stream)
                elif isinstance(event, Settled):
                    self.settled[event.position] = (wall, stream)  # a re-settled position: the last one holds
                elif isinstance(event, Withdrawn):
                    self.withdrawn += 1


def first_display(word, shown: Sequence[Shown], tolerance: float = DISPLAY_TOLERANCE) -> Shown | None:
    """The earliest display of ``word``: same text, time span overlapping (within ``tolerance``)."""
    best = None
    for s in shown:
        if s.text != word.text or s.start is None or s.end is None:
            continue
        if (
            s.start < word.end + tolerance
            and s.end > word.start - tolerance
            and (best is None or s.wall < best.wall)
        ):
            best = s
    return best


def percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if len(values) else None


def latencies(words, probe: Probe, origin: float | None) -> dict:
    """Per-word first-display and settled latencies in seconds: wall clock against ``origin + end``
    when paced (``origin`` = wall time of stream time 0), else stream time fed against ``end``."""
    by_text = defaultdict(list)
    for s in probe.shown:
        by_text[s.text].append(s)
    display, committed, settled = [], [], []
    for p, w in enumerate(words):
        if w.end is None:
            continue
        heard = (origin + w.end) if origin is not None else w.end
        s = first_display(w, by_text[w.text])
        if s is not None:
            display.append((s.wall if origin is not None else s.stream) - heard)
        if p in probe.appended:  # committed: handed to the punctuation engine for good
            wall, stream = probe.appended[p]
            committed.append((wall if origin is not None else stream) - heard)
        if p in probe.settled:
            wall, stream = probe.settled[p]
            settled.append((wall if origin is not None else stream) - heard)
    summary = lambda xs: {
        "p50": percentile(xs, 50),
        "p90": percentile(xs, 90),
        "max": percentile(xs, 100),
        "words": len(xs),
    }
    return {
        "clock": "wall" if origin is not None else "stream",
        "first_display_s": summary(display),
        "committed_s": summary(committed),
        "settled_s": summary(settled),
    }


class Lockstep:
    """A file read as fast as it decodes, but each chunk only once the punctuation engine has
    handled everything before it: stream time at an event is then exactly the audio it needed."""

    def __init__(self, source):
        self.source = source
        self.session = None

    def __getattr__(self, name):  # name, events, finished, duration, stop ...
        return getattr(self.source, name)

    def start(self):
        self.source.start()
        return self

    def read(self, timeout: float):
        if self.session is not None:
            self.session.engine.wait_idle(60.0)
        return self.source.read(timeout)


def run_live(
    wav: Path,
    recognizer,
    model,
    realtime: bool = True,
    progress=None,
    stabiliser=None,
    threshold: float | None = None,
    l_max: int | None = None,
    marks: str = "auto",
) -> dict:
    """``wav`` through the session users run (``build_live_session``), with ``recognizer`` and
    ``model`` already loaded, no journal.

    ``threshold`` and ``l_max`` override the decoder's entropy threshold h and its longest
    lookahead (default: the model's config), as the window's latency control does.
    """
    from engine.audio.file_source import FileSource
    from engine.session.build import SessionResources, SessionSpec, build_live_session

    file = FileSource(wav, realtime=realtime)
    source = file if realtime else Lockstep(file)
    spec = SessionSpec(realtime=realtime, journal=False, threshold=threshold, l_max=l_max, marks=marks)
    loaded = SessionResources(lambda kind, name: (recognizer, ""), lambda folder: model)
    session, _ = build_live_session(spec, loaded, source=source, stabiliser=stabiliser)
    if not realtime:
        source.session = session
    probe = Probe(session)
    session.subscribe(probe)
    load = os.getloadavg()
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0, wall0 = time.process_time(), time.monotonic()
    session.start()
    while not session.wait(1.0):
        if progress:
            progress(session.stream_time, file.duration)
    transcript = session.stop()
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    # A recognizer isolated in a child process spends its CPU there (counted once it has exited).
    child_cpu = (children1.ru_utime + children1.ru_stime) - (children0.ru_utime + children0.ru_stime)
    # Stream time t is due at started_at + t: a paced read() releases a chunk only then.
    origin = file.started_at if realtime else None
    return {
        "transcript": transcript,
        "probe": probe,
        "origin": origin,
        "cpu": cpu,
        "engine_cpu": session.engine.cpu_seconds,
        "model_windows": getattr(getattr(session.engine.decoder, "scorer", None), "windows_tagged", None),
        "decoder": type(session.engine.decoder).__name__,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "recognizer_cpu": session.recognizer_cpu_seconds + child_cpu,
        "wall": wall,
        "pushed": session.words_pushed,
        "retracted": session.words_retracted,
        "error": session.error,
        "withdrawn": probe.withdrawn,
        "all_settled": session.builder.all_settled,
        "audio": session.stream_time,
        "load": [round(x, 2) for x in load + os.getloadavg()],
    }


def evaluate(
    excerpts: Sequence[Excerpt],
    speech: Speech,
    wav: Path,
    recognizer,
    model,
    realtime: bool = True,
    progress=None,
    stabiliser=None,
    threshold: float | None = None,
    l_max: int | None = None,
    marks: str = "auto",
) -> dict:
    run = run_live(wav, recognizer, model, realtime, progress, stabiliser, threshold, l_max, marks)
    words = run["transcript"].words
    result = score(
        excerpts,
        speech.spans,
        [w.text for w in words],
        [w.mark for w in words],
        [case_class(w.word) for w in words],
        [None if w.start is None else (w.start + w.end) / 2 for w in words],
    )
    lat = latencies(words, run["probe"], run["origin"])
    cpu_share = run["cpu"] / run["wall"] if run["wall"] else None
    result = {
        "audio_seconds": round(run["audio"], 1),
        "wall_seconds": round(run["wall"], 1),
        "paced": realtime,
        **result,
        "latency": lat,
        "cpu_seconds": round(run["cpu"], 1),
        "cpu_share_of_one_core": round(cpu_share, 3) if cpu_share is not None else None,
        # Each thread's own CPU time over the run's wall time: the punctuation engine apart from
        # the recognizer (the rest of the process share is audio reading, events and Python).
        "engine_cpu_share_of_one_core": round(run["engine_cpu"] / run["wall"], 4) if run["wall"] else None,
        "recognizer_cpu_share_of_one_core": (
            round(run["recognizer_cpu"] / run["wall"], 4) if run["wall"] else None
        ),
        "peak_rss_mb": run["peak_rss_mb"],
        "marks_by": run["decoder"],
        "committed_words": run["pushed"],
        # The engine's work: windows the model tagged, per word committed (retracted ones count too)
        "model_windows": run["model_windows"],
        "model_windows_per_committed_word": (
            round(run["model_windows"] / run["pushed"], 3) if run["pushed"] and run["model_windows"] else None
        ),
        "retracted_words": run["retracted"],
        "retraction_rate": round(run["retracted"] / run["pushed"], 4) if run["pushed"] else 0.0,
        "settled_marks_withdrawn": run["withdrawn"],
        "all_settled": run["all_settled"],
        "error": run["error"],
        "load_average_before_after": run["load"],
    }
    if recognizer.decodes is not None:  # Whisper: how often it decoded, and for how long
        result["recognizer_decodes"] = recognizer.decodes
        result["recognizer_decode_seconds"] = round(recognizer.decode_seconds, 1)
    if realtime:
        measured = {
            "first_display_p90_s": lat["first_display_s"]["p90"],
            "committed_p90_s": lat["committed_s"]["p90"],
            "settled_p90_s": lat["settled_s"]["p90"],
            "cpu_share_of_one_core": result["cpu_share_of_one_core"],
            "peak_rss_mb": result["peak_rss_mb"],
        }
        targets = WHISPER_TARGETS if recognizer.commits_words else TARGETS
        result["targets"] = {
            k: {"target": t, "measured": measured[k], "met": measured[k] is not None and measured[k] <= t}
            for k, t in targets.items()
        }
    return result


def silence_cost(recognizer, model, seconds: float, folder: Path) -> dict:
    """The live session on a quiet room, paced: what listening costs while nobody speaks."""
    import soundfile as sf

    rng = np.random.default_rng(0)
    quiet = (rng.standard_normal(int(seconds * SAMPLE_RATE)) * 32768 * 10 ** (-60 / 20)).astype(np.int16)
    wav = folder / "quiet.wav"
    sf.write(wav, quiet, SAMPLE_RATE, subtype="PCM_16")
    decodes = recognizer.decodes
    run = run_live(wav, recognizer, model, realtime=True)
    return {
        "audio_seconds": round(run["audio"], 1),
        "cpu_share_of_one_core": round(run["cpu"] / run["wall"], 4) if run["wall"] else None,
        "words": len(run["transcript"].words),
        "recognizer_decodes": None if decodes is None else recognizer.decodes - decodes,
    }


def whole_file_wer(excerpts, speech: Speech, wav: Path, model: str | None) -> dict:
    """Whisper on the whole WAV as ``livecap transcribe`` decodes it (VAD-packed windows, each
    decoded once): the recognizer's own WER, the bound the live WER is judged against."""
    from engine.audio.file_source import read_all
    from engine.recognizers.whisper_rec import WhisperRecognizer
    from engine.session.batch import recognize_audio

    recognizer = WhisperRecognizer(model, live=False)
    audio = read_all(wav)
    started = time.monotonic()
    words = recognize_audio(audio, recognizer)
    wall = time.monotonic() - started
    scored = score(
        excerpts, speech.spans, [w.text for w in words], ["none"] * len(words), ["lower"] * len(words),
        [None if w.start is None else (w.start + w.end) / 2 for w in words],
    )  # fmt: skip
    return {
        "wer": scored.get("wer"),
        "threads": recognizer.threads,
        "real_time_factor": round(wall / (len(audio) / SAMPLE_RATE), 4),
        "decodes": recognizer.decodes,
    }


def parse_whisper_options(items: Sequence[str]) -> dict:
    """``KEY=VALUE`` pairs as ``WhisperOptions`` fields."""
    from engine.recognizers.whisper_rec import WhisperOptions

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


def espeak_version() -> str | None:
    """espeak-ng's version line: another version speaks differently, and the figures move with it."""
    import subprocess

    try:
        out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split(":")[1].split("Data")[0].strip() if ":" in out else out.strip() or None


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
    parser.add_argument("--excerpts", type=int, default=12)
    parser.add_argument("--min-words", type=int, default=40)
    parser.add_argument("--max-words", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds of silence between excerpts")
    parser.add_argument("--voice", default="en-us")
    parser.add_argument("--speed", type=int, default=130, help="espeak-ng words per minute")
    parser.add_argument("--recognizer", choices=NAMES, default=POCKETSPHINX.name)
    parser.add_argument("--model", default=None, help="Vosk or Whisper model folder or installed name")
    parser.add_argument(
        "--marks",
        choices=("auto", "engine", "recognizer"),
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
    log = lambda msg: print(f"e2e: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()

    from engine.evaluation.bench import cpu_description
    from engine.files import paths
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
            args.recognizer, args.model, models_dir=paths.vosk_models_dir(), options=options
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
        last = [0.0]

        def progress(done, total):
            if done - last[0] >= 30:
                last[0] = done
                log(f"{done:.0f} / {total:.0f} s")

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
        "command": "python -m engine.evaluation.e2e " + " ".join(argv if argv is not None else sys.argv[1:]),
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
