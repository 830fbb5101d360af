"""Captions in real acoustic conditions: ``python -m engine.evaluation.rooms`` (prints JSON; progress on
stderr).

Captions that read well on clean speech can fall apart in an echoey room, in a café or on a call.
This measures by how much, per acoustic condition, with the project's own synthetic voices only.
For each voice, dev-corpus excerpts (whole sentences of narrative and conversation; by default at
least 400 words, 55–70 a excerpt) are read once into clean speech; each condition
(``engine.evaluation.degrade``: a simulated room's reverberation, noise or other talkers at a
signal-to-noise ratio, an Opus call with lost packets, a quiet or clipping microphone, and
combinations) is applied to it, seeded, keeping its timing, and the degraded WAV goes:

- **as a file**, as ``livecap transcribe`` runs it (``live_vs_file.file_transcript``);
- **live**, through the session users run (``e2e_run.run_live``), in lockstep with the punctuation
  engine by default (as fast as it decodes: same words and marks); it reports the committed and
  first-display p90 on the audio's clock (the commit rule's wait, without the decode times);
  ``--paced`` feeds it in real time, reports them on the wall clock, and the CPU share of one core;
- with ``--anchors``, through plain faster-whisper with its own defaults (beam 5, its VAD filter,
  temperature fallback) on tiny.en and on base: what the bare model makes of the same audio.

Each transcript is scored against the text read (``e2e_score``: WER in percent, marks F1) and
checked for loops (``rooms_score.loops``). ``live_over_file`` is the live WER over the file's.
Non-speech (``--nonspeech-minutes`` of noise, music, typing and room tone each) goes through both
paths too: every word written there is a false caption. ``targets`` judges the figures against the
targets per voice (``rooms_score.TARGETS``), ``table`` lists them row by row (``--markdown`` prints it).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.degrade import CONDITIONS, NONSPEECH_KINDS, PRESETS, nonspeech
from engine.evaluation.e2e_speech import SAMPLE_RATE, PiperStyle, Speech, load_excerpts, synthesize
from engine.evaluation.live_vs_file import file_transcript, missing_engine, scored
from engine.evaluation.report import emit
from engine.evaluation.rooms_score import judge_targets, loops, markdown_table, percent, table_rows

__all__ = [
    "VOICES",
    "add_excerpt_options",
    "anchor_wer",
    "excerpts_from",
    "main",
    "nonspeech_words",
    "one_condition",
]

# name -> (TTS engine, Piper's speaking style or None for the engine's own)
VOICES = {
    "piper": ("piper", None),
    "piper-slow": ("piper", PiperStyle(1.45, 0.95, 1.2)),
    "piper-fast": ("piper", PiperStyle(0.75, 0.35, 0.4)),
    "festival": ("festival", None),
    "flite": ("flite", None),
}


def _write_wav(path: Path, audio: np.ndarray) -> None:
    import soundfile as sf

    sf.write(path, np.clip(audio, -1.0, 1.0), SAMPLE_RATE, subtype="PCM_16")


def _ratio(live: float, file: float) -> float | None:
    if file == 0:
        return 1.0 if live == 0 else None  # nothing to divide by: only "both perfect" is a ratio
    return round(live / file, 2)


def _live(excerpts, speech: Speech, wav: Path, recognizer, model, paced: bool) -> tuple[dict, list]:
    """The live session on ``wav``, scored as ``e2e_run.evaluate`` scores it, with its words (which
    ``evaluate`` does not hand back, and the loop check reads)."""
    from engine.evaluation.e2e_latency import latencies
    from engine.evaluation.e2e_run import run_live

    run = run_live(wav, recognizer, model, realtime=paced)
    words = run["transcript"].words
    out = {"scores": scored(excerpts, speech, words), "error": run["error"], "wall": run["wall"]}
    # Paced: the wall clock. In lockstep: the audio the session had been fed when a word showed or
    # was committed, past the word's end; what the commit rule costs, without the decode times.
    lat = latencies(words, run["probe"], run["origin"])
    out["latency_clock"] = lat["clock"]
    out["committed_p90_s"] = lat["committed_s"]["p90"]
    out["first_display_p90_s"] = lat["first_display_s"]["p90"]
    if paced:
        out["cpu_share_of_one_core"] = round(run["cpu"] / run["wall"], 3) if run["wall"] else None
    return out, words


def _maybe(convert, value):
    """``convert(value)``, or None for a figure not measured (the live path under --file-only)."""
    return None if value is None else convert(value)


@dataclasses.dataclass
class Run:
    """What every condition's run shares: the loaded models and the settings."""

    options: object  # WhisperOptions, for files
    folder_model: Path | None  # the Whisper model's folder (None: the shipped tiny.en)
    live_recognizer: object  # None: the file path only
    model: object  # the punctuation model
    paced: bool
    seed: int
    folder: Path
    anchors: dict | None  # name -> faster_whisper model, or a reason it is skipped
    log: object


def anchor_wer(model, audio: np.ndarray, excerpts, speech: Speech) -> tuple[float, list[str]]:
    """WER and words of plain faster-whisper on ``audio`` with its defaults, scored as the other
    paths are; each word timed within its segment by its place (for splitting by excerpt)."""
    from engine.evaluation.e2e_score import score
    from engine.recognizers.local_agreement import bare_word

    segments, _ = model.transcribe(audio, beam_size=5, vad_filter=True, language="en")
    words, times = [], []
    for seg in segments:
        tokens = [t for t in (bare_word(x) for x in seg.text.split()) if t]
        words += tokens
        times += [seg.start + (i + 0.5) / len(tokens) * (seg.end - seg.start) for i in range(len(tokens))]
    n = len(words)
    result = score(excerpts, speech.spans, words, ["none"] * n, ["lower"] * n, times)
    return result["wer"], words


def one_condition(name: str, excerpts, speech: Speech, clean: np.ndarray, run: Run) -> dict:
    """One voice's speech in condition ``name``, through the file path, the live path and the anchors."""
    condition = CONDITIONS[name]
    audio = condition.apply(clean, run.seed)
    wav = run.folder / f"{name}.wav"
    _write_wav(wav, audio)
    reference = [w for e in excerpts for w in e.words]
    file_words, file_cpu = file_transcript(
        wav, dataclasses.replace(run.options, threads=None), run.folder_model
    )
    file_scores = scored(excerpts, speech, file_words)
    if run.live_recognizer is None:  # --file-only
        live, live_words = {"scores": {"wer": None, "marks_f1": None}, "error": None, "wall": None}, []
    else:
        live, live_words = _live(excerpts, speech, wav, run.live_recognizer, run.model, run.paced)
    file_text, live_text = [w.text for w in file_words], [w.text for w in live_words]
    out = {
        "condition": condition.to_dict(),
        "file_wer_pct": percent(file_scores["wer"]),
        "live_wer_pct": _maybe(percent, live["scores"]["wer"]),
        "live_over_file": _maybe(lambda wer: _ratio(wer, file_scores["wer"]), live["scores"]["wer"]),
        "file_marks_f1": round(file_scores["marks_f1"], 3),
        "live_marks_f1": _maybe(lambda f1: round(f1, 3), live["scores"]["marks_f1"]),
        "file_words": len(file_text),
        "live_words": len(live_text) if run.live_recognizer is not None else None,
        "file_loops": loops(file_text, reference),
        "live_loops": loops(live_text, reference),
        "file_cpu_seconds": round(file_cpu, 1),
        "live_wall_seconds": _maybe(lambda wall: round(wall, 1), live["wall"]),
        "live_error": live["error"],
    }
    out |= {
        k: live[k]
        for k in ("latency_clock", "committed_p90_s", "first_display_p90_s", "cpu_share_of_one_core")
        if k in live
    }
    if run.anchors is not None:
        out["anchors"] = {}
        for anchor, model in run.anchors.items():
            if isinstance(model, str):
                out["anchors"][anchor] = {"skipped": model}
                continue
            wer, words = anchor_wer(model, audio, excerpts, speech)
            out["anchors"][anchor] = {"wer_pct": percent(wer), "loops": loops(words, reference)}
    run.log(
        f"  {name}: file WER {out['file_wer_pct']} %, live {out['live_wer_pct']} %"
        + "".join(f", {a} {v.get('wer_pct')} %" for a, v in out.get("anchors", {}).items())
        + (
            f", loops {out['file_loops'] + out['live_loops']}"
            if out["file_loops"] or out["live_loops"]
            else ""
        )
    )
    return out


def one_voice(voice: str, excerpts, conditions: list[str], run: Run) -> dict:
    tts, style = VOICES[voice]
    missing = missing_engine(tts)
    if missing:
        run.log(f"{voice}: skipped ({missing})")
        return {"skipped": missing}
    try:
        speech = synthesize(excerpts, tts=tts, style=style)
    except (RuntimeError, OSError) as exc:
        return {"skipped": str(exc)}
    clean = speech.audio.astype(np.float32) / 32768
    run.log(f"{voice}: {len(clean) / SAMPLE_RATE:.0f} s of speech")
    return {
        "audio_seconds": round(len(clean) / SAMPLE_RATE, 1),
        "reference_words": sum(len(e.words) for e in excerpts),
        "conditions": {name: one_condition(name, excerpts, speech, clean, run) for name in conditions},
    }


def nonspeech_words(minutes: float, run: Run) -> dict:
    """Words written on ``minutes`` of each kind of non-speech, by the file path and live."""
    from engine.evaluation.e2e_run import run_live

    out = {}
    for kind in NONSPEECH_KINDS:
        wav = run.folder / f"nonspeech-{kind}.wav"
        _write_wav(wav, nonspeech(kind, minutes * 60, run.seed))
        file_words, _ = file_transcript(wav, dataclasses.replace(run.options, threads=None), run.folder_model)
        live_words = (
            run_live(wav, run.live_recognizer, run.model, realtime=False)["transcript"].words
            if run.live_recognizer is not None
            else []
        )
        out[kind] = {
            "file_words": len(file_words),
            "live_words": len(live_words),
            # what was written, to see what the audio was taken for
            "file_text": " ".join(w.text for w in file_words)[:200],
            "live_text": " ".join(w.text for w in live_words)[:200],
        }
        run.log(f"non-speech {kind}: {len(file_words)} words as a file, {len(live_words)} live")
    return out


def _anchor_models(log) -> dict:
    """faster-whisper on tiny.en (the shipped folder) and on base (the language pack), or why not."""
    from faster_whisper import WhisperModel

    from engine.recognizers.language_pack import ensure_language_pack, language_pack_status
    from engine.recognizers.whisper_model import shipped_model_folder

    models: dict = {"tiny.en": WhisperModel(str(shipped_model_folder()), device="cpu", compute_type="int8")}
    status = language_pack_status()
    if not status.installed:
        models["base"] = status.reason
    else:
        folder = status.folder if status.joined else ensure_language_pack()
        models["base"] = WhisperModel(str(folder), device="cpu", compute_type="int8")
    if isinstance(models["base"], str):
        log(f"anchor base skipped: {models['base']}")
    return models


def add_excerpt_options(add) -> None:
    """The dev excerpts a speech benchmark reads (``excerpts_from``): its command line's options."""
    add("--corpus", type=Path, default=None, help="dev texts (default: ../shared/corpus/dev)")
    add("--words", type=int, default=400, help="at least this many words read per voice")
    add("--excerpts", type=int, default=7, help="excerpts at first (more where --words needs them)")
    add("--min-words", type=int, default=55)
    add("--max-words", type=int, default=70)
    add("--seed", type=int, default=0, help="excerpts, rooms, noises and lost packets")


def excerpts_from(args) -> list:
    """At least ``--words`` words: ``--excerpts`` excerpts, more where they fall short."""
    count = args.excerpts
    while True:
        excerpts = load_excerpts(
            args.corpus or dev_corpus(), count, args.min_words, args.max_words, args.seed
        )
        if sum(len(e.words) for e in excerpts) >= args.words:
            return excerpts
        count += 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.rooms",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--voice", action="append", choices=list(VOICES), help="default: every voice")
    add("--condition", action="append", choices=list(CONDITIONS), help="instead of --preset (repeatable)")
    add("--preset", choices=sorted(PRESETS), default="targets", help="a group of conditions")
    add_excerpt_options(add)
    add("--paced", action="store_true", help="live in real time: also latency and CPU")
    add("--anchors", action="store_true", help="also plain faster-whisper on tiny.en and base")
    add("--file-only", action="store_true", help="the file path alone: no live session (no live figures)")
    add(
        "--recognizer",
        choices=("whisper", "whisper-base"),
        default="whisper",
        help="tiny.en (built in), or base (the language pack) told English, with its kind's live settings",
    )
    add("--whisper-option", action="append", default=[], metavar="KEY=VALUE", help="a WhisperOptions field")
    add("--nonspeech-minutes", type=float, default=10.0, help="of each non-speech kind; 0 skips")
    add("--markdown", action="store_true", help="print the table as markdown instead of the JSON")
    add("--out", type=Path, default=None, help="also write the JSON here")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    log = lambda msg: print(f"rooms: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()

    from engine.evaluation.e2e import parse_whisper_options
    from engine.machine import cpu_description
    from engine.punctuation.model import PunctuationModel, model_folder
    from engine.recognizers.whisper_options import WhisperOptions
    from engine.recognizers.whisper_rec import WhisperRecognizer

    try:
        excerpts = excerpts_from(args)
    except (OSError, ValueError) as exc:
        log(str(exc))
        return 2
    conditions = args.condition or PRESETS[args.preset]
    given = parse_whisper_options(args.whisper_option)
    folder_model, live_given = None, dict(given)
    if args.recognizer == "whisper-base":
        from engine.recognizers.kinds import WHISPER_BASE
        from engine.recognizers.language_pack import ensure_language_pack

        folder_model = ensure_language_pack()
        given = {"language": "en", **given}
        live_given = {
            "cadence": WHISPER_BASE.live_cadence, "encoder_least": WHISPER_BASE.live_encoder_least, **given
        }  # fmt: skip
    options = WhisperOptions(**given)
    log(f"{len(excerpts)} excerpts, {sum(len(e.words) for e in excerpts)} words; conditions {conditions}")
    # Unpaced, the audio waits for each decode: its decodes then follow the audio alone, so a run on
    # a busy machine gives the same words as on an idle one.
    live_options = WhisperOptions(**live_given)
    live_options = live_options if args.paced else dataclasses.replace(live_options, keep_pace=False)
    recognizer = None if args.file_only else WhisperRecognizer(folder_model, live=True, options=live_options)
    try:
        with tempfile.TemporaryDirectory(prefix="livecap-rooms-") as folder:
            run = Run(
                options, folder_model, recognizer, PunctuationModel(model_folder(None), threads=1),
                args.paced, args.seed, Path(folder), _anchor_models(log) if args.anchors else None, log,
            )  # fmt: skip
            voices = {v: one_voice(v, excerpts, conditions, run) for v in args.voice or list(VOICES)}
            minutes = args.nonspeech_minutes
            silent = nonspeech_words(minutes, run) if minutes > 0 else None
    finally:
        if recognizer is not None:
            recognizer.close()
    total = sum(k["file_words"] + k["live_words"] for k in silent.values()) if silent else None
    targets = {v: judge_targets(r["conditions"], total) for v, r in voices.items() if "conditions" in r}
    rows = table_rows(voices)
    result = {
        "command": "python -m engine.evaluation.rooms "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "recognizer": args.recognizer,
        "whisper_options": dataclasses.asdict(options),
        "file_beam": options.beam(live=False),
        "live_whisper_options": dataclasses.asdict(live_options),
        "settings": {"seed": args.seed, "paced": args.paced, "words": [args.min_words, args.max_words]},
        "excerpts": [e.source for e in excerpts],
        "reference_words": sum(len(e.words) for e in excerpts),
        "conditions": {name: CONDITIONS[name].to_dict() for name in conditions},
        "voices": voices,
        "nonspeech": {"minutes_each": minutes, "kinds": silent, "total_words": total} if silent else None,
        "targets": targets,
        "all_targets_met": bool(targets)
        and all(t["met"] is not False for judged in targets.values() for t in judged.values()),
        "table": rows,
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    emit(result, args.out, markdown_table(rows) if args.markdown else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
