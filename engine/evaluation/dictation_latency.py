"""How long dictated words take to appear where the user types.

    python -m engine.evaluation.dictation_latency [--excerpts 6] [--out result.json]


Dev-corpus excerpts spoken by espeak-ng (as ``engine.evaluation.e2e``) play in real time through
the live path, ``FileSource`` → ``LiveSession`` → the punctuation engine → ``DictationSink``, which
types with the typist this desktop offers (xdotool on X11) into a real text field in its own
process (``engine.evaluation.text_field``). Without ``--display``, the tool starts its own Xvfb.

Per typed word: from the moment its audio ended (its end in the stream, which started at wall
clock ``t0``) until the field's content first held it. Prints JSON: p50, p90 and max of that
latency, how many words were typed, whether the field ended up holding exactly the settled
transcript, and the CPU: the whole process's share of one core while the session ran, the typing
thread's own share, and the typing tool's processes' share (xdotool runs once per piece).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e import percentile
from engine.evaluation.e2e_speech import load_excerpts, synthesize
from engine.machine import cpu_description
from engine.recognizers.kinds import NAMES, POCKETSPHINX


def appearance_times(pieces: list[str], changes: list[dict]) -> list[float | None]:
    """When the field first held each piece: the first change whose text is at least as long as
    everything typed up to and including it (pieces are only ever appended)."""
    times: list[float | None] = []
    length, k = 0, 0
    for piece in pieces:
        length += len(piece)
        while k < len(changes) and len(changes[k]["text"]) < length:
            k += 1
        times.append(changes[k]["t"] if k < len(changes) else None)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.dictation_latency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--corpus", type=Path, default=None, help="folder of punctuated .txt (default: dev)")
    parser.add_argument("--excerpts", type=int, default=6)
    parser.add_argument("--min-words", type=int, default=40, help="shortest excerpt, in words")
    parser.add_argument("--max-words", type=int, default=60, help="longest excerpt, in words")
    parser.add_argument("--gap", type=float, default=1.0, help="seconds of silence between excerpts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--display", default=None, help="an X display to use (default: start an Xvfb)")
    parser.add_argument("--model-dir", type=Path, default=None, help="punctuation model (default: shipped)")
    parser.add_argument("--recognizer", choices=NAMES, default=POCKETSPHINX.name, help="speech recognizer")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    log = lambda msg: print(f"dictation_latency: {msg}", file=sys.stderr, flush=True)  # noqa: E731

    import soundfile as sf

    from engine.audio.file_source import FileSource
    from engine.dictation.sink import DictationSink
    from engine.dictation.typists import choose_typist
    from engine.evaluation.text_field import TextField, start_xvfb
    from engine.punctuation.model import PunctuationModel
    from engine.recognizers.select import open_recognizer
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    excerpts = load_excerpts(
        args.corpus or dev_corpus(), args.excerpts, args.min_words, args.max_words, args.seed
    )
    speech = synthesize(excerpts, args.gap)
    work = Path(tempfile.mkdtemp(prefix="livecap-dictation-"))
    wav = work / "speech.wav"
    sf.write(wav, speech.audio, 16000, subtype="PCM_16")
    log(f"{len(excerpts)} excerpts, {len(speech.audio) / 16000:.1f} s of speech")

    server = None
    display = args.display
    if display is None:
        try:
            display, server = start_xvfb()
        except RuntimeError as exc:
            raise SystemExit(f"dictation_latency: {exc}; or pass --display") from None
    os.environ["DISPLAY"] = display
    os.environ.pop("WAYLAND_DISPLAY", None)
    field = TextField(display, work / "field.json")
    try:
        typist = choose_typist()
        model = PunctuationModel(args.model_dir, threads=1)
        # The session users run (build_live_session): a file played in real time, no journal.
        spec = SessionSpec(journal=False)
        recognizer, _, _ = open_recognizer(args.recognizer)
        loaded = SessionResources(lambda kind, name: (recognizer, ""), lambda folder: model)
        session, _ = build_live_session(spec, loaded, source=FileSource(wav, realtime=True))
        sink = DictationSink(typist)
        session.subscribe(sink)
        sink.start()
        children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu0, wall0 = time.process_time(), time.monotonic()
        t0 = time.time()
        session.start()
        session.wait()
        transcript = session.stop()
        sink.drain()
        wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
        children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        sink.stop()
        typed_text = field.finish()
        changes = field.changes()
    finally:
        if field.process.poll() is None:
            field.process.kill()
        if server is not None:
            server.terminate()
            server.wait(10)

    pieces = [text for _, text in sink.typed]
    shown = appearance_times(pieces, changes)
    words = transcript.words
    delays = [
        when - (t0 + word.end)
        for word, when in zip(words, shown)
        if when is not None and word.end is not None
    ]
    # Children: xdotool (and the text field, which is ended here, so its share is included).
    child_cpu = (children1.ru_utime + children1.ru_stime) - (children0.ru_utime + children0.ru_stime)
    settled = " ".join(w.display for w in words)
    result = {
        "command": "python -m engine.evaluation.dictation_latency " + " ".join(argv or sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "typist": typist.name,
        "recognizer": recognizer.name,
        "audio_seconds": round(len(speech.audio) / 16000, 1),
        "words_settled": len(words),
        "words_typed": sink.words_typed,
        "typed_equals_settled_transcript": typed_text == settled,
        "word_end_to_typed_s": {
            "p50": percentile(delays, 50),
            "p90": percentile(delays, 90),
            "max": round(float(np.max(delays)), 3) if delays else None,
            "words": len(delays),
        },
        "cpu_share_of_one_core": round(cpu / wall, 4),
        "typing_thread_cpu_share_of_one_core": round(sink.cpu_seconds / wall, 4),
        "typing_tool_cpu_share_of_one_core": round(child_cpu / wall, 4),
        "error": sink.error,
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
