"""The end-to-end benchmark's run: dev-corpus speech through the live session users run, scored.

Part of ``python -m engine.evaluation.e2e`` (its help says what is measured and how). Here: the
session built as the app builds it (``build_live_session``) from a WAV file, paced in real time
or in lockstep with the punctuation engine (``Lockstep``); the run's CPU, memory and counts; the
transcript scored (``engine.evaluation.e2e_score``) and timed (``engine.evaluation.e2e_latency``);
and the latency and CPU targets judged. Kept apart from the command so other benchmarks
(``live_vs_file``) and tests run a session the same way without its options and report.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_latency import Probe, latencies
from engine.evaluation.e2e_score import case_class, score
from engine.evaluation.e2e_speech import SAMPLE_RATE, Excerpt, Speech

__all__ = [
    "TARGETS",
    "WHISPER_TARGETS",
    "Lockstep",
    "evaluate",
    "progress_every",
    "run_live",
    "silence_cost",
    "whole_file_wer",
]

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


def progress_every(log, seconds: float = 30.0, label: str = ""):
    """A ``progress(done, total=None)`` for ``run_live`` that logs the stream time each ``seconds``
    of it: a paced run takes as long as its audio, and a silent one looks hung."""
    last = [0.0]

    def progress(done: float, total: float | None = None) -> None:
        if done - last[0] >= seconds:
            last[0] = done
            log(f"{label}{done:.0f}" + (f" / {total:.0f} s" if total else " s"))

    return progress


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
    language: str = "en",
    translate: bool = False,
    vocabulary=None,
    on_session=None,
) -> dict:
    """``wav`` through the session users run (``build_live_session``), with ``recognizer`` and
    ``model`` already loaded, no journal; ``vocabulary``: the session's terms (None: none);
    ``on_session(session)``: called before it starts (another subscriber, a caption page).

    ``threshold`` and ``l_max`` override the decoder's entropy threshold h and its longest
    lookahead (default: the model's config), as the window's latency control does. ``language``
    and ``translate``: the session's (``SessionSpec``), for a recognizer loaded for them.
    """
    from engine.audio.file_source import FileSource
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    file = FileSource(wav, realtime=realtime)
    source = file if realtime else Lockstep(file)
    spec = SessionSpec(
        realtime=realtime, journal=False, threshold=threshold, l_max=l_max, marks=marks,
        language=language, translate=translate,
        **({"vocabulary": vocabulary} if vocabulary is not None else {}),
    )  # fmt: skip
    loaded = SessionResources(lambda kind, name, options=None: (recognizer, ""), lambda folder: model)
    session, _ = build_live_session(spec, loaded, source=source, stabiliser=stabiliser)
    if not realtime:
        source.session = session
    probe = Probe(session)
    session.subscribe(probe)
    if on_session is not None:
        on_session(session)
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
