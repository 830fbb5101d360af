"""The user's vocabulary in files and live captions: ``python -m engine.evaluation.vocabulary``
(prints JSON; progress on stderr).

Reads the project's own meeting sentences (``vocabulary_sentences.txt``: rare terms of many
kinds, ``vocabulary_material``) with each voice (Piper's joe at its own pace, slow and fast as
the rooms benchmark declares them, festival's kal, flite), one sentence after another, into one
WAV; recognizes it once as ``livecap transcribe`` does (the built-in Whisper tiny.en, or
``--recognizer``), then makes the transcript from those words
(``batch.finish_file_words``) with each vocabulary:

- ``none``: no entries (today's transcript);
- ``terms``: every term the sentences say, with the spoken forms a user would give;
- ``terms+500``: those and the 500 distractor entries no sentence says;
- ``500``: the distractors alone (every term they write was never said).

Each transcript is split into sentences at the middle of the silences between them and scored:
exact-form recall of the terms, false insertions, WER on the other words, for all the sentences,
the even half (``tune``) and the odd half (``held-out``), with the CPU seconds the matching took.

``--live`` also runs the WAV through live captions with 0, 50 and 500 entries (``--entries``;
``vocabulary_live``): recall, insertions, WER, CPU and committed p90 of each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from engine.evaluation.report import emit
from engine.evaluation.rooms import VOICES as STYLED_VOICES
from engine.evaluation.vocabulary_live import DEFAULT_ENTRIES, by_sentence, cpu_seconds
from engine.evaluation.vocabulary_material import (
    PARTS,
    load_distractors,
    load_sentences,
    score_sentences,
    sentences_vocabulary,
)

__all__ = ["CONDITIONS", "VOICES", "main"]

VOICES = tuple(STYLED_VOICES)  # piper, piper-slow, piper-fast, festival, flite
RECOGNIZERS = ("whisper", "pocketsphinx")
CONDITIONS = ("none", "terms", "terms+500", "500")  # "none" first: insertions are counted from it


def vocabularies(sentences) -> dict:
    from engine.vocabulary import Vocabulary

    terms, distractors = sentences_vocabulary(sentences), load_distractors()
    return {"none": Vocabulary(), "terms": terms, "terms+500": terms.merged(distractors), "500": distractors}


def recognized_words(wav: Path, kind: str) -> tuple[list, str, bool]:
    """(words, recognizer name, whether its own marks are kept) as ``livecap transcribe`` has them."""
    from engine.audio.file_source import read_all
    from engine.recognizers.kinds import POCKETSPHINX, WHISPER
    from engine.session.batch import recognize_audio
    from engine.session.plan import RecognitionChoice, resolve_plan

    recognizer = (WHISPER if kind == "whisper" else POCKETSPHINX).open(None, live=False)
    try:
        plan = resolve_plan(RecognitionChoice(), recognizer, live=False)
        return recognize_audio(read_all(wav), recognizer), recognizer.name, plan.marks == "recognizer"
    finally:
        recognizer.close()


def one_voice(voice: str, sentences, kind: str, conditions, context, log) -> dict:
    import soundfile as sf

    from engine.evaluation.e2e_speech import SAMPLE_RATE, synthesize
    from engine.evaluation.live_vs_file import missing_engine
    from engine.evaluation.vocabulary_live import live_voice
    from engine.session.batch import finish_file_words
    from engine.vocabulary.phonemes import forget

    tts, style = STYLED_VOICES[voice]
    missing = missing_engine(tts)
    if missing:
        log(f"{voice}: skipped ({missing})")
        return {"skipped": missing}
    speech = synthesize(sentences, gap=1.0, tts=tts, style=style)
    seconds = len(speech.audio) / SAMPLE_RATE
    log(f"{voice}: {seconds:.0f} s of speech")
    live = None
    with tempfile.TemporaryDirectory(prefix="livecap-vocabulary-") as folder:
        wav = Path(folder) / f"{voice}.wav"
        sf.write(wav, speech.audio, SAMPLE_RATE, subtype="PCM_16")
        words, name, written, recognizing = [], kind, True, 0.0
        if conditions:
            began = time.process_time()
            words, name, written = recognized_words(wav, kind)
            recognizing = time.process_time() - began
        if context["live"]:
            live = live_voice(wav, speech, sentences, context["entries"], context, log)
    model = None if written else context["model"]
    out: dict = {
        "audio_seconds": round(seconds, 1),
        "recognizer": name,
        "recognize_cpu_s": round(recognizing, 1),
    }
    for condition in conditions:
        vocabulary = context["vocabularies"][condition]
        forget()  # each figure includes asking espeak-ng for the entries and the words
        began = cpu_seconds()
        transcript = finish_file_words(words, name, model, written_marks=written, vocabulary=vocabulary)
        cpu = cpu_seconds() - began
        shown = by_sentence(transcript.words, speech.spans)
        result: dict = {"entries": len(vocabulary), "finish_cpu_s": round(cpu, 2)}
        for part in PARTS:
            chosen = [k for k, s in enumerate(sentences) if part == "all" or s.part == part]
            baseline = out.get("none", {}).get("shown") or shown
            scored = score_sentences(
                [sentences[k] for k in chosen],
                [shown[k] for k in chosen],
                context["distractors"],
                [baseline[k] for k in chosen],
            )
            if part != "all" or not context["misses"]:
                scored.pop("missed")
                scored.pop("distractors_written") if part != "all" else None
            result[part] = scored
        out[condition] = {**result, "shown": shown}
        a = result["all"]
        log(
            f"{voice} {condition}: recall {a['exact_recall_pct']} %, {a['false_insertions']} insertions, "
            f"other-word WER {a['other_words_wer_pct']} % ({cpu:.1f} s CPU)"
        )
    for condition in conditions:
        out[condition].pop("shown")
    if live is not None:
        out["live"] = live
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.vocabulary",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--voice", action="append", choices=VOICES, help="default: piper and festival")
    add("--recognizer", choices=RECOGNIZERS, default="whisper", help="default: whisper (tiny.en)")
    add("--condition", action="append", choices=CONDITIONS, help="default: every one")
    add("--no-file", action="store_true", help="the live runs only (with --live)")
    add("--live", action="store_true", help="also live captions, in lockstep (vocabulary_live)")
    add(
        "--entries", type=int, nargs="+", default=list(DEFAULT_ENTRIES),
        help="the live runs' vocabulary sizes (default: 0 50 500)",
    )  # fmt: skip
    add("--sentences", type=int, default=None, help="the first N sentences only (a quick run)")
    add("--every", type=int, default=1, help="every Nth of those sentences only (a spread subset)")
    add("--misses", action="store_true", help="list every term missed, with the sentence")
    add("--out", type=Path, default=None, help="also write the JSON here")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    log = lambda msg: print(f"vocabulary: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()
    from engine.evaluation.e2e_speech import espeak_version
    from engine.machine import cpu_description
    from engine.punctuation.model import PunctuationModel, model_folder

    sentences = load_sentences(count=args.sentences)[:: args.every]
    context = {
        "vocabularies": vocabularies(sentences),
        "distractors": load_distractors(),
        "misses": args.misses,
        "live": args.live,
        "entries": args.entries,
        "model": PunctuationModel(model_folder(None), threads=1),
    }
    conditions = [] if args.no_file else [c for c in CONDITIONS if c in (args.condition or CONDITIONS)]
    log(f"{len(sentences)} sentences, {sum(len(s.terms) for s in sentences)} terms")
    voices = {
        v: one_voice(v, sentences, args.recognizer, conditions, context, log)
        for v in args.voice or ("piper", "festival")
    }
    result = {
        "command": "python -m engine.evaluation.vocabulary "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "espeak_ng": espeak_version(),
        "settings": {
            "sentences": [s.number for s in sentences],
            "recognizer": args.recognizer,
            "conditions": conditions,
            "live_entries": sorted(set(args.entries)) if args.live else None,
        },
        "voices": voices,
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
