"""Whisper's own marks against the punctuation engine's, on the same words: ``python -m
engine.evaluation.whisper_marks`` (prints JSON).

Speech: the e2e excerpts (``engine.evaluation.e2e``'s default set), and per dev file a set of
excerpts of that file alone (``--per-file``), read by espeak-ng. The live Whisper recognizer
hears each reading once, fed 0.1 s at a time as the session feeds it; its committed words are
then punctuated three ways, and each is scored against the text that was read
(``engine.evaluation.e2e_score``):

- ``whisper``: the marks and capitals Whisper wrote (``written_marks``);
- ``engine_live``: the streaming decoder on the same words, stripped of marks, lower-cased and
  timed, fed in the batches the recognizer committed them in, with the audio clock advancing
  as in a session (silence settles marks), on the model's default settings;
- ``engine_offline``: the offline decoder on the same words (what a saved transcript gets).

These figures chose Whisper's own marks over the engine's alone (``marks_by_default`` in
``engine.recognizers.kinds``); the live default with a model that folds Whisper's marks in
(``engine_with_hints_live``) was chosen on ``training.evaluate``'s held-out readings
(docs/QUALITY.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e_score import case_class, score
from engine.evaluation.e2e_speech import SAMPLE_RATE, choose_excerpts, load_excerpts, synthesize
from engine.punctuation.labelled_text import prepare_folder

CHUNK = 1600  # 0.1 s, as a live source delivers


class Writings(NamedTuple):
    """How a recognizer that revises its writing (live Whisper) wrote its committed words over
    time: ``first[i]``, the writing word ``i`` was committed with where a newer one came later,
    and ``rewrites``, each newer writing as (batch, word index, writing), given right after that
    batch's words, as a session hands them to the decoder."""

    first: dict[int, str]
    rewrites: list[tuple[int, int, str]]


def recognize_live_writings(recognizer, audio: np.ndarray) -> tuple[list[tuple[list, float]], Writings]:
    """The batches of words ``recognizer`` committed, each with the session's silence clock when
    it came: the stream time before which every word is committed (``committed_through``), which
    is what a session hands the decoder. A batch without words says the clock moved on, or a
    writing changed. Each word has its last writing (live Whisper rewrites a committed word's marks
    until they settle); ``Writings`` says which it had before, and when each came."""
    from engine.recognizers.stabiliser import committed_through

    recognizer.reset()
    batches, where = [], []  # where[i]: (batch, place in it) of the i-th committed word
    writings = Writings({}, [])
    clock = 0.0

    def take(update, now: float) -> None:
        nonlocal clock
        clock = max(clock, committed_through(update.partial, update.heard_through, now))
        if update.final:
            batches.append((list(update.final), clock))
            where.extend((len(batches) - 1, i) for i in range(len(update.final)))
        elif update.rewritten or not batches or clock >= batches[-1][1] + CHUNK / SAMPLE_RATE - 1e-9:
            batches.append(([], clock))
        for index, word in update.rewritten.items():
            batch, i = where[index]
            writings.first.setdefault(index, batches[batch][0][i].written)
            writings.rewrites.append((len(batches) - 1, index, word.written))
            batches[batch][0][i] = word

    for at in range(0, len(audio), CHUNK):
        take(recognizer.accept(audio[at : at + CHUNK]), (at + CHUNK) / SAMPLE_RATE)
    take(recognizer.flush(), len(audio) / SAMPLE_RATE)
    return batches, writings


def engine_live_settled(
    model, batches, hints: bool = False, recognizer: str | None = None, writings: Writings | None = None
) -> list:
    """The streaming decoder's last ``Settled`` event per word, fed as a session feeds it;
    ``hints``: the words keep what the recognizer wrote, for a model that folds it in or reads
    it as hints: each word as it was committed and then its newer writings as they came, where
    ``writings`` says so (else its last one from the start); ``recognizer``: whose words they
    are (its cue fusion, as a session uses it)."""
    from engine.events import Settled
    from engine.punctuation.streaming import StreamingDecoder

    decoder = StreamingDecoder.from_model(model, recognizer=recognizer)
    settled: dict[int, Settled] = {}
    first = writings.first if (hints and writings) else {}
    revisions: dict[int, list[tuple[int, str]]] = {}
    for batch, index, written in writings.rewrites if (hints and writings) else ():
        revisions.setdefault(batch, []).append((index, written))

    def take(events):
        for e in events:
            if isinstance(e, Settled):
                settled[e.position] = e

    fed: list = []
    for k, (words, now) in enumerate(batches):
        here = len(fed)
        fed += [
            dataclasses.replace(w, written=first.get(here + j, w.written) if hints else "")
            for j, w in enumerate(words)
        ]
        take(decoder.push_many(fed[here:]))
        if k in revisions:
            for index, written in revisions[k]:
                fed[index] = dataclasses.replace(fed[index], written=written)
            take(decoder.revise_writings({index: fed[index] for index, _ in revisions[k]}, 0))
        take(decoder.advance_time(now))
    take(decoder.flush())
    return [settled[p] for p in range(decoder.word_count)]


def engine_live_marks(
    model, batches, hints: bool = False, recognizer: str | None = None, writings: Writings | None = None
) -> list[tuple[str, str]]:
    """(mark, displayed form) per word from ``engine_live_settled``."""
    return [(e.mark, e.form) for e in engine_live_settled(model, batches, hints, recognizer, writings)]


def scored(excerpts, speech, words, marks, forms) -> dict:
    result = score(
        excerpts, speech.spans, [w.text for w in words], marks, [case_class(f) for f in forms],
        [(w.start + w.end) / 2 for w in words],
    )  # fmt: skip
    micro = result["marks"]["micro"]
    return {
        "marks_f1": micro["f1"],
        "per_mark_f1": {m: result["marks"][m]["f1"] for m in ("comma", "period", "question")},
        "nonlower_f1": result["casing"]["nonlower"]["f1"],
        "wer": result["wer"],
        "marks_by_excerpt": [list(c) for c in result["marks_by_excerpt"]],
    }


def compare(name: str, excerpts, recognizer, model, log) -> dict:
    from engine.punctuation.recognizer_marks import written_marks
    from engine.session.batch import repunctuate

    speech = synthesize(excerpts)
    log(f"{name}: {len(excerpts)} excerpts, {len(speech.audio) / SAMPLE_RATE:.0f} s of speech")
    started = time.monotonic()
    batches, _ = recognize_live_writings(recognizer, speech.audio)
    words = [w for batch, _ in batches for w in batch]
    log(f"{name}: {len(words)} words recognized in {time.monotonic() - started:.0f} s")
    own = [written_marks(w) for w in words]
    live = engine_live_marks(model, batches)
    offline = repunctuate(words, model).words
    return {
        "excerpts": len(excerpts),
        "reference_words": sum(len(e.words) for e in excerpts),
        "audio_seconds": round(len(speech.audio) / SAMPLE_RATE, 1),
        "whisper": scored(excerpts, speech, words, [m for m, _, _ in own], [f for _, _, f in own]),
        "engine_live": scored(excerpts, speech, words, [m for m, _ in live], [f for _, f in live]),
        "engine_offline": scored(
            excerpts, speech, words, [w.mark for w in offline], [w.word for w in offline]
        ),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.evaluation.whisper_marks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=None, help="folder of punctuated .txt (default: dev)")
    parser.add_argument("--per-file", type=int, default=12, help="excerpts read from each file (0: none)")
    parser.add_argument("--min-words", type=int, default=60)
    parser.add_argument("--max-words", type=int, default=100)
    parser.add_argument("--skip-e2e", action="store_true", help="only the per-file readings")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    log = lambda msg: print(f"whisper_marks: {msg}", file=sys.stderr, flush=True)  # noqa: E731

    from engine.machine import cpu_description
    from engine.punctuation.model import PunctuationModel
    from engine.recognizers.whisper_rec import WhisperRecognizer

    corpus = args.corpus or dev_corpus()
    recognizer = WhisperRecognizer(live=True)
    model = PunctuationModel(None, threads=1)
    results = {}
    if not args.skip_e2e:
        results["e2e_excerpts"] = compare("e2e", load_excerpts(corpus, 12, 40, 60, 0), recognizer, model, log)
    if args.per_file:
        docs = prepare_folder(corpus)
        for source in sorted({d.name.rsplit("#", 1)[0] for d in docs}):
            mine = [d for d in docs if d.name.rsplit("#", 1)[0] == source]
            excerpts = choose_excerpts(mine, args.per_file, args.min_words, args.max_words, seed=1)
            results[source] = compare(source, excerpts, recognizer, model, log)
    out = {
        "command": "python -m engine.evaluation.whisper_marks " + " ".join(argv or sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "recognizer": {"model": str(recognizer.model_path), "cadence": recognizer.options.cadence},
        **results,
    }
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
