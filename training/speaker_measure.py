"""Measure the speaker encoder on project-made speech: the similarity threshold's curve, the speaker
error of online clustering, and the cost per second of audio.

    python -m training.speaker_measure [--out models/speaker/threshold_curve.json] [--meetings 40]

Nine synthetic voices from four engines (espeak-ng variants, festival, flite, Piper; flite's kal is
left out: it is festival's kal speaker) read ten sentences each. Then:

1. similarity: cosine of two sentences by one voice against two by different voices, for whole
   sentences and for their first 1 s and 2 s of speech (turns are often that short);
2. clustering: seeded meetings of three voices, twelve one-sentence turns in an order that never
   repeats a voice twice running, fed through ``VoiceClusters`` at each threshold; the speaker
   error (words, after the best mapping) per threshold; then again with each turn cut to a random
   40–100 % of its sentence (1.1–4 s), as short turns are where a voice is split;
3. cost: milliseconds per second of audio of ``SpeakerEncoder.embed`` on one thread, median of ten
   runs per span length.

Needs no torch: it runs the shipped ONNX model, with the runtime's front end.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from pathlib import Path

import numpy as np

from engine.machine import cpu_description
from engine.speakers.clustering import VoiceClusters, speaker_error
from engine.speakers.embedding import SAMPLE_RATE, SpeakerEncoder

__all__ = [
    "SENTENCES",
    "VOICES",
    "cost",
    "meetings",
    "similarity_curve",
    "trim_silence",
    "voice_clips",
]

OUT = Path(__file__).resolve().parents[1] / "models" / "speaker" / "threshold_curve.json"
VOICES = (  # (engine, voice)
    ("espeak-ng", "en-us+m3"),
    ("espeak-ng", "en-us+f2"),
    ("espeak-ng", "en+m7"),
    ("festival", None),
    ("flite", "slt"),
    ("flite", "rms"),
    ("flite", "awb"),
    ("piper", None),
    ("espeak-ng", "en-gb+f4"),
)
SENTENCES = (
    "the weather is nice today and we are going to the park",
    "please send me the report before the meeting on thursday",
    "i think we should move the launch to the second week of march",
    "could you share your screen so everyone can see the numbers",
    "the budget for the new office was approved by the board yesterday",
    "we still need someone to review the design before friday",
    "my connection dropped for a minute so i missed the last part",
    "let us take five minutes and then come back to the roadmap",
    "the customer asked whether the update works on older laptops",
    "thanks everyone that was a very useful discussion",
)
THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(9))  # 0.50 … 0.90


def trim_silence(audio: np.ndarray, floor_db: float = -40.0) -> np.ndarray:
    """``audio`` without its leading and trailing 10 ms frames quieter than ``floor_db`` below
    its peak frame: the runtime embeds recognised words, not the silence around them."""
    hop = SAMPLE_RATE // 100
    frames = audio[: len(audio) // hop * hop].astype(np.float64).reshape(-1, hop)
    energy = np.sqrt(np.mean(frames**2, axis=1)) + 1e-12
    loud = np.flatnonzero(20 * np.log10(energy / energy.max()) > floor_db)
    return audio[loud[0] * hop : (loud[-1] + 1) * hop]


def voice_clips() -> dict[str, list[np.ndarray]]:
    """Each voice's ten sentences, trimmed, float32 16 kHz: voice name → clips."""
    from engine.evaluation.e2e_speech import speak_with

    clips = {}
    for tts, voice in VOICES:
        name = f"{tts}:{voice or 'default'}"
        clips[name] = [
            trim_silence(speak_with(tts, text, voice).astype(np.float32) / 32768) for text in SENTENCES
        ]
    return clips


def _quantiles(values: list[float]) -> dict[str, float]:
    points = {"min": 0, "p05": 5, "p25": 25, "median": 50, "p75": 75, "p95": 95, "max": 100}
    return {name: round(float(np.percentile(values, q)), 4) for name, q in points.items()}


def similarity_curve(
    encoder: SpeakerEncoder, clips: dict[str, list[np.ndarray]], seconds: float | None
) -> dict:
    """Same-voice and different-voice cosine distributions, and the rates either side of each
    threshold, for spans cut to their first ``seconds`` (None: whole sentences)."""
    cut = (lambda a: a[: int(seconds * SAMPLE_RATE)]) if seconds else (lambda a: a)
    embeddings = [(voice, encoder.embed(cut(a))) for voice, voice_clips in clips.items() for a in voice_clips]
    same, different = [], []
    for (va, ea), (vb, eb) in itertools.combinations(embeddings, 2):
        (same if va == vb else different).append(float(np.dot(ea, eb)))
    rates = {
        str(t): {
            "same_below": round(float(np.mean(np.array(same) < t)), 4),  # a voice split in two
            "different_at_or_above": round(float(np.mean(np.array(different) >= t)), 4),  # two merged
        }
        for t in THRESHOLDS
    }
    return {"same_voice": _quantiles(same), "different_voice": _quantiles(different), "rates": rates}


def meetings(
    encoder: SpeakerEncoder,
    clips: dict[str, list[np.ndarray]],
    count: int,
    shortest: float = 1.0,
    seed: int = 0,
) -> dict:
    """Speaker error of online clustering per threshold over ``count`` seeded three-voice meetings;
    each turn is a sentence cut to a random share of it from ``shortest`` to 1 (words in proportion)."""
    rng = random.Random(seed)
    plans = []
    for _ in range(count):
        voices = rng.sample(sorted(clips), 3)
        order = [0, 1, 2]
        while len(order) < 12:
            order.append(rng.choice([v for v in range(3) if v != order[-1]]))
        sentences = [rng.randrange(len(SENTENCES)) for _ in order]
        shares = [rng.uniform(shortest, 1.0) for _ in order]
        plans.append((voices, order, sentences, shares))
    turns = {}  # (voice, sentence, share) → (embedding, seconds, words), embedded once
    for voices, order, sentences, shares in plans:
        for v, s, share in zip(order, sentences, shares):
            audio = clips[voices[v]][s]
            audio = audio[: int(len(audio) * share)]
            words = max(1, round(len(SENTENCES[s].split()) * share))
            turns[voices[v], s, share] = (encoder.embed(audio), len(audio) / SAMPLE_RATE, words)
    curve = {}
    for threshold in THRESHOLDS:
        errors, found = [], []
        for voices, order, sentences, shares in plans:
            clusters, reference, hypothesis = VoiceClusters(threshold), [], []
            for v, s, share in zip(order, sentences, shares):
                embedding, seconds, words = turns[voices[v], s, share]
                number = clusters.assign(embedding, seconds)
                reference += [v] * words
                hypothesis += [number] * words
            errors.append(speaker_error(reference, hypothesis))
            found.append(len(clusters.voices))
        curve[str(threshold)] = {
            "mean_error": round(float(np.mean(errors)), 4),
            "worst_error": round(float(np.max(errors)), 4),
            "meetings_over_10pct": int(np.sum(np.array(errors) > 0.10)),
            "voices_found": _quantiles(found),
        }
    return curve


def cost(encoder: SpeakerEncoder, clips: dict[str, list[np.ndarray]], repeats: int = 10) -> dict:
    """Median milliseconds of ``embed`` per second of audio, per span length."""
    speech = np.concatenate([a for voice_clips in clips.values() for a in voice_clips])
    encoder.embed(speech[:SAMPLE_RATE])  # the first run allocates
    result, per_second = {}, []
    for seconds in (1, 2, 4, 8):
        span = speech[: seconds * SAMPLE_RATE]
        times = []
        for _ in range(repeats):
            begin = time.perf_counter()
            encoder.embed(span)
            times.append((time.perf_counter() - begin) * 1000)
            per_second.append(times[-1] / seconds)
        result[f"{seconds}s"] = {
            "median_ms": round(float(np.median(times)), 2),
            "ms_per_second": round(float(np.median(times)) / seconds, 2),
        }
    return {"median_ms_per_second": round(float(np.median(per_second)), 2), "by_span": result}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--meetings", type=int, default=40)
    args = parser.parse_args(argv)
    encoder = SpeakerEncoder(threads=1)
    clips = voice_clips()
    report = {
        "voices": sorted(clips),
        "sentences": len(SENTENCES),
        "similarity": {
            "whole_sentence": similarity_curve(encoder, clips, None),
            "first_2s": similarity_curve(encoder, clips, 2.0),
            "first_1s": similarity_curve(encoder, clips, 1.0),
        },
        "clustering": {
            "meetings": args.meetings,
            "turns": 12,
            "whole_sentence_turns": meetings(encoder, clips, args.meetings),
            "turns_of_40_to_100pct_of_a_sentence": meetings(encoder, clips, args.meetings, shortest=0.4),
        },
        "cost": {**cpu_description(), "threads": 1, **cost(encoder, clips)},
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
