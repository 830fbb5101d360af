"""A meeting in two languages, captioned in English: ``python -m engine.evaluation.language_meeting``
(prints JSON).

You speak English on the microphone; the others speak another language (German by default) from
the call. The session is the one the window and ``livecap listen --source mic --source app:NAME
--language auto --translate`` run: one Whisper base model, a stream per side, each side telling its
own language from its first speech. The two sides are two WAV files on one clock, turn by turn
(the project's passages, ``language_passages.json``, read by espeak-ng: yours in English, theirs in
their language), as a headset hears them: no echo. Paced in real time, it measures:

- each side's language as told (``LanguageDetected``, with its side);
- the others' English captions against the English original of what they said (``overlap_f1``),
  and your words' WER against what you said;
- committed p90 per side, from each word's end; the process's CPU share of one core while it
  ran (two base streams on one CPU: the figure that says whether a small computer can follow a
  meeting this way), and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_latency import latencies
from engine.evaluation.e2e_run import progress_every
from engine.evaluation.e2e_score import align, word_errors
from engine.evaluation.e2e_speech import SAMPLE_RATE, synthesize
from engine.evaluation.languages import VOICES, Passage, load_passages, overlap_f1, words_of

__all__ = ["main"]


def tracks(language: str, turns: int, gap: float, speed: int, tts: str = "espeak-ng"):
    """(me, others, my passages, their passages): two int16 tracks of one length, turns
    alternating, yours first, ``gap`` seconds between turns."""
    mine, theirs, me, others = [], [], [], []
    passages = load_passages(language)
    for turn in range(turns):
        passage = passages[turn % len(passages)]
        english = turn % 2 == 0
        said = Passage(passage.english, passage.english) if english else passage
        speech = synthesize(
            [said], lead=0.0, tail=gap, voice=VOICES[tts]["en" if english else language], speed=speed
        )
        (me if english else others).append(speech.audio)
        (others if english else me).append(np.zeros_like(speech.audio))
        (mine if english else theirs).append(passage)
    lead = np.zeros(int(0.5 * SAMPLE_RATE), np.int16)
    return np.concatenate([lead, *me]), np.concatenate([lead, *others]), mine, theirs


def run(me_wav: Path, others_wav: Path, translate: bool, progress) -> dict:
    """The meeting session on the two tracks, paced; its words, events, CPU and wall time."""
    from engine.audio.pausable import SourceChoice
    from engine.evaluation.e2e_latency import Probe
    from engine.events import LanguageDetected
    from engine.punctuation.model import PunctuationModel, model_folder
    from engine.recognizers.select import live_load, open_recognizer
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    opened = []

    def factory(kind, name, options=None):
        opened.append(open_recognizer(kind, name, options=options, models_dir=None))
        return opened[-1]

    model = PunctuationModel(model_folder(None))
    spec = SessionSpec(
        source=SourceChoice("file", str(me_wav)), others=SourceChoice("file", str(others_wav)),
        language="auto", translate=translate, realtime=True, journal=False, history_index=False,
    )  # fmt: skip
    session, _ = build_live_session(spec, SessionResources(factory, lambda folder: model))
    probe, told = Probe(session), []
    session.subscribe(probe)
    session.subscribe(lambda events: told.extend(e for e in events if isinstance(e, LanguageDetected)))
    cpu0, wall0 = time.process_time(), time.monotonic()
    try:
        session.start()
        while not session.wait(1.0):
            progress(session.stream_time)
        transcript = session.stop()
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        origin = session.sides[0].source.started_at
        probe_share = live_load(opened[0].recognizer)
    finally:
        for recognizer, *_ in opened:
            recognizer.close()
    return {
        "words": transcript.words, "probe": probe, "origin": origin, "told": told, "cpu": cpu,
        "wall": wall, "error": session.error, "probe_share": probe_share,
    }  # fmt: skip


def side_latency(words, probe, origin, mine: bool) -> dict:
    """Committed and first-display latency of one side's words (the other's left out)."""
    kept = [w if (w.speaker == "me") == mine else replace(w, heard=replace(w.heard, end=None)) for w in words]
    lat = latencies(kept, probe, origin)
    return {key: lat[key] for key in ("first_display_s", "committed_s")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.evaluation.language_meeting", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--language", default="de", help="what the others speak (default de)")
    parser.add_argument("--turns", type=int, default=6, help="turns, yours first (default 6)")
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between turns")
    parser.add_argument("--speed", type=int, default=130, help="espeak-ng words per minute")
    parser.add_argument("--no-translate", action="store_true", help="captions in each side's language")
    parser.add_argument(
        "--tts", choices=("espeak-ng", "mbrola"), default="espeak-ng", help="the others' voice"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    log = lambda msg: print(f"language_meeting: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()
    import soundfile as sf

    from engine.machine import cpu_description

    me, others, mine, theirs = tracks(args.language, args.turns, args.gap, args.speed, args.tts)
    log(f"{len(me) / SAMPLE_RATE:.0f} s, {args.turns} turns; running the meeting in real time...")
    progress = progress_every(log)

    with tempfile.TemporaryDirectory(prefix="livecap-language-meeting-") as folder:
        me_wav, others_wav = Path(folder) / "me.wav", Path(folder) / "others.wav"
        sf.write(me_wav, me, SAMPLE_RATE, subtype="PCM_16")
        sf.write(others_wav, others, SAMPLE_RATE, subtype="PCM_16")
        result = run(me_wav, others_wav, not args.no_translate, progress)
    words = result["words"]
    my_words = words_of(" ".join(w.text for w in words if w.speaker == "me"))
    their_words = words_of(" ".join(w.text for w in words if w.speaker != "me"))
    my_reference = words_of(" ".join(p.english for p in mine))
    their_reference = words_of(" ".join(p.english if not args.no_translate else p.text for p in theirs))
    report = {
        "command": "python -m engine.evaluation.language_meeting "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "others_language": args.language,
        "voices": {"me": VOICES[args.tts]["en"], "others": VOICES[args.tts][args.language]},
        "translate": not args.no_translate,
        "audio_seconds": round(len(me) / SAMPLE_RATE, 1),
        "told": [
            {"side": e.speaker, "language": e.language, "probability": round(e.probability, 3)}
            for e in result["told"]
        ],  # fmt: skip
        "me": {
            **word_errors(my_reference, my_words, align(my_reference, my_words)),
            **side_latency(words, result["probe"], result["origin"], mine=True),
        },  # fmt: skip
        "others": {
            ("overlap_f1" if not args.no_translate else "wer"): (
                overlap_f1(their_reference, their_words)
                if not args.no_translate
                else word_errors(their_reference, their_words, align(their_reference, their_words))["wer"]
            ),
            **side_latency(words, result["probe"], result["origin"], mine=False),
        },  # fmt: skip
        "cpu_share_of_one_core": round(result["cpu"] / result["wall"], 3),
        "probe_decode_share_of_cadence": round(result["probe_share"], 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "error": result["error"],
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 1 if result["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
