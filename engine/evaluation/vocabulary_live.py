"""The vocabulary benchmark's live half (``python -m engine.evaluation.vocabulary --live``).

The voice's WAV goes through the session users run (``e2e_run.run_live``: ``FileSource`` →
Whisper live → stabiliser → the vocabulary's ``LiveTerms`` → punctuation engine), in lockstep
with the engine as the rooms benchmark runs it (the audio waits for each decode, so the words do
not depend on the machine's load), once for each vocabulary size of ``--entries``:

- ``0``: no vocabulary (today's captions);
- ``N``: the terms the sentences say, then distractors never said, ``N`` entries in all (the
  first ``N`` terms where the sentences say more).

Each run reports exact-form recall, false insertions and WER on the other words
(``vocabulary_material.score_sentences``, insertions counted against the run with 0 entries),
the CPU seconds of the whole run (the process's and espeak-ng's) and the committed p90 on the
audio's clock: the audio fed past a word's end when it was committed, which holds the wait of a
word that may begin a term and not the decode times.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from engine.evaluation.vocabulary_material import PARTS, score_sentences
from engine.vocabulary import Vocabulary

__all__ = ["DEFAULT_ENTRIES", "by_sentence", "cpu_seconds", "live_voice", "sized_vocabulary"]

DEFAULT_ENTRIES = (0, 50, 500)


def cpu_seconds() -> float:
    """This process's CPU time and its finished children's (espeak-ng)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def by_sentence(words, spans) -> list[list[str]]:
    """Each sentence's words as shown (``TranscriptWord.word``)."""
    from engine.evaluation.e2e_score import texts_by_span

    return texts_by_span(words, spans, lambda word: word.word)


def sized_vocabulary(terms: Vocabulary, distractors: Vocabulary, size: int) -> Vocabulary:
    """``size`` entries: ``terms`` first, then ``distractors``."""
    if size <= len(terms):
        return Vocabulary(tuple(terms)[:size])
    return Vocabulary((*terms, *tuple(distractors)[: size - len(terms)]))


def live_voice(wav: Path, speech, sentences, entries, context, log) -> dict:
    """Each vocabulary size of ``entries`` live on ``wav`` (``speech``: its sentences' spans)."""
    from engine.evaluation.e2e_latency import latencies
    from engine.evaluation.e2e_run import run_live
    from engine.recognizers.whisper_options import WhisperOptions
    from engine.recognizers.whisper_rec import WhisperRecognizer
    from engine.vocabulary.phonemes import forget

    terms, distractors = context["vocabularies"]["terms"], context["distractors"]
    recognizer = WhisperRecognizer(live=True, options=dataclasses.replace(WhisperOptions(), keep_pace=False))
    out: dict = {}
    baseline = None
    try:
        for size in sorted(set(entries)):
            vocabulary = sized_vocabulary(terms, distractors, size)
            forget()  # each run asks espeak-ng for its entries and words
            began, wall = cpu_seconds(), time.monotonic()
            run = run_live(wav, recognizer, context["model"], realtime=False, vocabulary=vocabulary)
            cpu = cpu_seconds() - began
            words = run["transcript"].words
            shown = by_sentence(words, speech.spans)
            baseline = shown if size == 0 else baseline
            lat = latencies(words, run["probe"], run["origin"])
            result: dict = {
                "entries": len(vocabulary),
                "cpu_s": round(cpu, 1),
                "wall_s": round(time.monotonic() - wall, 1),
                "committed_p50_s": lat["committed_s"]["p50"],
                "committed_p90_s": lat["committed_s"]["p90"],
                "first_display_p90_s": lat["first_display_s"]["p90"],
                "latency_clock": lat["clock"],
                "error": run["error"],
            }
            for part in PARTS:
                chosen = [k for k, s in enumerate(sentences) if part == "all" or s.part == part]
                scored = score_sentences(
                    [sentences[k] for k in chosen],
                    [shown[k] for k in chosen],
                    distractors,
                    [baseline[k] for k in chosen] if baseline is not None else None,
                )
                if part != "all" or not context["misses"]:
                    scored.pop("missed")
                    scored.pop("distractors_written") if part != "all" else None
                result[part] = scored
            out[str(size)] = result
            a = result["all"]
            log(
                f"  live, {size} entries: recall {a['exact_recall_pct']} %, "
                f"{a['false_insertions']} insertions, "
                f"other-word WER {a['other_words_wer_pct']} %, committed p90 {result['committed_p90_s']} s, "
                f"{cpu:.1f} s CPU"
            )
    finally:
        recognizer.close()
    return out
