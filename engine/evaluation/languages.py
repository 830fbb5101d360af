"""Other languages, and English captions of them: ``python -m engine.evaluation.e2e --recognizer
whisper --language de[,es,...] [--translate] [--detection]`` (prints JSON).

The speech is the project's own: passages written for these benchmarks in English and in German,
Spanish, French, Italian, Portuguese and Dutch (``language_passages.json``, each language saying
what the English one says), read by espeak-ng (or festival's voices for a language, ``--tts``).
Per language it measures, with Whisper base from the language pack:

- *batch*: the WAV decoded as ``livecap transcribe --language L`` decodes a file; WER against the
  passages, or, translating, how many of the English original's words the translation has
  (``overlap_f1``: unigram F1 of the two bags of words, case and marks aside);
- *live*: the WAV through the live session users run (``run_live``, paced in real time), with
  the recognizer's live cadence and the probe's decision: first-display and committed p90 from
  each word's end, the process's CPU share of one core while it ran, peak RSS, and the live WER;
- *detection* (``--detection``): the language told from the first ``DETECT_AFTER`` seconds of
  each passage, the way a session started with "auto" tells it, for every language: accuracy.

Words are compared as Unicode lowercase letters (accents kept), split at anything that is not a
letter, a digit or an inner apostrophe, so "¿Vienes?" and "vienes" are one word.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_run import progress_every
from engine.evaluation.e2e_score import align, word_errors
from engine.evaluation.e2e_speech import SAMPLE_RATE, espeak_version, synthesize

__all__ = ["LANGUAGE_TARGETS", "ESPEAK_VOICES", "Passage", "load_passages", "words_of", "overlap_f1", "main"]

PASSAGES = Path(__file__).with_name("language_passages.json")
# espeak-ng's voice for each language of the passages.
ESPEAK_VOICES = {"de": "de", "es": "es", "fr": "fr-fr", "it": "it", "pt": "pt", "nl": "nl", "en": "en-us"}
# MBROLA's diphone voices (recordings of people), read through espeak-ng: Debian's ``mbrola`` and
# ``mbrola-de1`` ... (contrib and non-free, so not in CI). Whisper base hears them far better than
# espeak-ng's own; these are the ones with the fewest missing diphones on the passages.
MBROLA_VOICES = {
    "de": "mb-de1",
    "es": "mb-es3",
    "fr": "mb-fr1",
    "it": "mb-it3",
    "pt": "mb-pt1",
    "nl": "mb-nl2",
    "en": "en-us",
}
VOICES = {"espeak-ng": ESPEAK_VOICES, "mbrola": MBROLA_VOICES}
# The language benchmark's targets (French's WER is reported apart: espeak-ng's French is poor).
LANGUAGE_TARGETS = {
    "batch_wer": 0.15,
    "committed_p90_s": 4.0,
    "cpu_share_of_one_core": 1.2,
    "peak_rss_mb": 800,
    "detection_accuracy": 0.90,
}
WER_JUDGED = ("de", "es", "it", "pt", "nl")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


@dataclass(frozen=True)
class Passage:
    text: str  # in the language spoken: what the voice reads
    english: str  # the same passage in English: what a translation is scored against


def load_passages(language: str, count: int | None = None, path: Path = PASSAGES) -> list[Passage]:
    """The first ``count`` passages (None: all) in ``language`` with their English originals."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if language != "en" and language not in data["languages"]:
        raise SystemExit(f"e2e: no passages in {language!r}: choose from {', '.join(data['languages'])}")
    passages = [Passage(p[language], p["en"]) for p in data["passages"]]
    return passages[:count] if count else passages


def words_of(text: str) -> list[str]:
    """``text``'s words, lowercase, marks and quotes dropped (see the module's note)."""
    text = unicodedata.normalize("NFC", text).replace("’", "'").lower()
    return _WORD.findall(text)


def overlap_f1(reference: Sequence[str], hypothesis: Sequence[str]) -> float | None:
    """Unigram F1 of two bags of words: the share of the English original's words a translation
    has, and of its words the original has, as one figure (1.0: the same words)."""
    ref, hyp = Counter(reference), Counter(hypothesis)
    common = sum((ref & hyp).values())
    if not ref or not hyp:
        return None
    precision, recall = common / sum(hyp.values()), common / sum(ref.values())
    return round(2 * precision * recall / (precision + recall), 4) if common else 0.0


def _accuracy(passages: Sequence[Passage], words: Sequence[str], translate: bool) -> dict:
    if translate:
        reference = words_of(" ".join(p.english for p in passages))
        return {
            "reference_words": len(reference),
            "words": len(words),
            "overlap_f1": overlap_f1(reference, words),
        }
    reference = words_of(" ".join(p.text for p in passages))
    return word_errors(reference, words, align(reference, words))


def _options(language: str, translate: bool, extra: dict) -> dict:
    return {"language": language, "task": "translate" if translate else "transcribe", **extra}


def batch(language: str, translate: bool, audio: np.ndarray, passages, extra: dict) -> dict:
    """The WAV decoded once as a file (``livecap transcribe``'s path), scored."""
    from engine.recognizers.select import open_recognizer
    from engine.session.batch import recognize_audio

    extra = {k: v for k, v in extra.items() if k != "cadence"}  # a live setting
    recognizer, _, _ = open_recognizer(
        "whisper-base", live=False, options=_options(language, translate, extra)
    )
    try:
        started = time.monotonic()
        words = recognize_audio(audio, recognizer)
        wall = time.monotonic() - started
    finally:
        recognizer.close()
    return {
        **_accuracy(passages, words_of(" ".join(w.text for w in words)), translate),
        "threads": recognizer.threads,
        "real_time_factor": round(wall / (len(audio) / SAMPLE_RATE), 4),
        "text": " ".join(
            w.written or w.text for w in words
        ),  # as written, marks included: what a reader sees
    }


def live(
    language: str, translate: bool, wav: Path, passages, extra: dict, progress, realtime: bool = True
) -> dict:
    """The WAV through the live session, paced (``realtime``; else in lockstep, latency in stream
    time): latency, CPU, memory, and the live words' score."""
    from engine.evaluation.e2e_latency import latencies
    from engine.evaluation.e2e_run import run_live
    from engine.punctuation.model import PunctuationModel, model_folder
    from engine.recognizers.select import live_load, open_recognizer

    opened = open_recognizer("whisper-base", live=True, options=_options(language, translate, extra))
    recognizer = opened.recognizer
    probe = live_load(recognizer)  # what the timed probe found (measured as it opened)
    model = PunctuationModel(model_folder(None))
    try:
        run = run_live(
            wav,
            recognizer,
            model,
            realtime=realtime,
            progress=progress,
            language=language,
            translate=translate,
        )
    finally:
        recognizer.close()
    words = run["transcript"].words
    lat = latencies(words, run["probe"], run["origin"])
    return {
        "audio_seconds": round(run["audio"], 1),
        "cadence_s": recognizer.options.cadence,
        "probe_decode_share_of_cadence": round(probe, 3),
        "notice": opened.notice,
        **_accuracy(passages, words_of(" ".join(w.text for w in words)), translate),
        "latency": lat,
        "cpu_share_of_one_core": round(run["cpu"] / run["wall"], 3) if run["wall"] else None,
        "peak_rss_mb": run["peak_rss_mb"],
        "recognizer_decodes": recognizer.decodes,
        "mean_decode_s": round(recognizer.decode_seconds / recognizer.decodes, 3)
        if recognizer.decodes
        else None,
        "marks_by": run["decoder"],
        "text": " ".join(w.written or w.text for w in words),
        "settled_marks_withdrawn": run["withdrawn"],
        "error": run["error"],
    }


def detection(languages: Sequence[str], clips: int, tts: str, speed: int) -> dict:
    """The language told from the first ``DETECT_AFTER`` seconds of ``clips`` passages per
    language, by a recognizer told none (a session's "auto")."""
    from engine.recognizers.select import open_recognizer
    from engine.recognizers.whisper_rec import DETECT_AFTER

    recognizer = open_recognizer("whisper-base", live=True, options={"language": None}).recognizer
    told: dict[str, list] = {}
    try:
        for language in languages:
            told[language] = []
            for passage in load_passages(language, clips):
                speech = synthesize([passage], lead=0.0, tail=0.0, **_voice(tts, language, speed))
                voiced = speech.audio[int(speech.spans[0][0] * SAMPLE_RATE) :]
                clip = voiced[: int(DETECT_AFTER * SAMPLE_RATE)].astype(np.float32) / 32768
                code, probability = recognizer.tell_language(clip)
                told[language].append([code, round(probability, 3)])
    finally:
        recognizer.close()
    right = sum(code == language for language, found in told.items() for code, _ in found)
    total = sum(len(found) for found in told.values())
    return {"clip_seconds": DETECT_AFTER, "told": told, "right": right, "clips": total,
            "accuracy": round(right / total, 4) if total else None}  # fmt: skip


def _voice(tts: str, language: str, speed: int) -> dict:
    """How ``synthesize`` reads ``language`` with ``tts`` ("espeak-ng" or "mbrola")."""
    return {"tts": "espeak-ng", "voice": VOICES[tts][language], "speed": speed}


def run_language(language: str, args, extra: dict, log, scratch: Path) -> dict:
    """One language's batch and live figures, judged."""
    import soundfile as sf

    passages = load_passages(language, args.excerpts)
    voice = _voice(args.tts, language, args.speed)
    if args.voice is not None:  # one voice named for this run
        voice["voice"] = args.voice
    speech = synthesize(passages, args.gap, **voice)
    wav = scratch / f"{language}.wav"
    sf.write(wav, speech.audio, SAMPLE_RATE, subtype="PCM_16")
    log(f"{language}: {len(passages)} passages, {len(speech.audio) / SAMPLE_RATE:.1f} s; batch...")
    result: dict = {
        "passages": len(passages),
        "batch": batch(language, args.translate, speech.audio, passages, extra),
    }
    if not args.batch_only:
        log(f"{language}: live (real time)...")
        progress = progress_every(log, label=f"{language}: ")
        result["live"] = live(language, args.translate, wav, passages, extra, progress, not args.fast)
    return result


def _judge(results: dict, detected: dict | None, translate: bool) -> dict:
    judged = {}
    for language, result in results.items():
        lat = result.get("live", {}).get("latency", {})
        measured = {
            "batch_wer": None if translate or language not in WER_JUDGED else result["batch"]["wer"],
            "committed_p90_s": lat.get("committed_s", {}).get("p90"),
            "cpu_share_of_one_core": result.get("live", {}).get("cpu_share_of_one_core"),
            "peak_rss_mb": result.get("live", {}).get("peak_rss_mb"),
        }
        judged[language] = {
            key: {"target": LANGUAGE_TARGETS[key], "measured": value, "met": value <= LANGUAGE_TARGETS[key]}
            for key, value in measured.items()
            if value is not None
        }
    if detected is not None:
        value = detected["accuracy"]
        target = LANGUAGE_TARGETS["detection_accuracy"]
        met = value is not None and value >= target
        judged["detection_accuracy"] = {"target": target, "measured": value, "met": met}
    return judged


def main(args, parse_whisper_options, argv_text: str) -> int:
    """The language benchmark, from ``e2e``'s parsed options."""
    from engine.machine import cpu_description
    from engine.recognizers.base import RecognizerError
    from engine.session.plan import RecognitionChoice

    log = lambda msg: print(f"e2e: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()
    codes = [code.strip() for code in args.language.split(",") if code.strip()]
    languages = [RecognitionChoice(language=code).language for code in codes]  # checked as a session's
    extra = parse_whisper_options(args.whisper_option) if args.whisper_option else {}
    results: dict = {}
    try:
        with tempfile.TemporaryDirectory(prefix="livecap-languages-") as folder:
            for language in languages:
                results[language] = run_language(language, args, extra, log, Path(folder))
        detected = None
        if args.detection:
            log("detection: 6 languages, 5 clips each...")
            detected = detection(("de", "es", "fr", "it", "pt", "nl"), 5, args.tts, args.speed)
    except RecognizerError as exc:
        raise SystemExit(f"e2e: {exc}") from exc
    report = {
        "command": argv_text,
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "recognizer": "whisper-base",
        "task": "translate" if args.translate else "transcribe",
        "tts": args.tts,
        "espeak_ng": espeak_version(),
        "voices": {language: args.voice or VOICES[args.tts][language] for language in languages},
        "settings": {"excerpts": args.excerpts, "gap_s": args.gap, "speed_wpm": args.speed, "whisper": extra},
        "languages": results,
        **({"detection": detected} if detected is not None else {}),
        "targets": _judge(results, detected, args.translate),
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    errors = [r["live"]["error"] for r in results.values() if r.get("live", {}).get("error")]
    return 1 if errors else 0
