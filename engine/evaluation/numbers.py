"""Numbers as people write them: ``python -m engine.evaluation.numbers`` (prints JSON; progress on
stderr).

The numbers in a meeting are what people go back for: the budget, the date, the percentage. This
reads the project's own sentences (``numbers_sentences.txt``: money, percentages, clock times,
dates, ordinals, phone numbers, versions, decimals, ranges, counts, numbers a person writes in
words, hyphenated words and abbreviations, each expression marked with its written forms) with
each voice (Piper's joe, festival's kal), one sentence after another, into one WAV, and writes
it down by each path:

- ``whisper-file``: as ``livecap transcribe`` (``live_vs_file.file_transcript``: Whisper's file
  settings, its own marks);
- ``whisper-live``: through the live session users run (``e2e_run.run_live``), in lockstep with
  the punctuation engine, as the rooms benchmark runs it (same words on a busy machine);
- ``pocketsphinx-file`` and ``pocketsphinx-live``: the built-in recognizer, which writes spoken
  forms, through the written-form step (``engine.recognizers.written_forms``) as a session applies it;
- ``vosk-file``: the same for Vosk, with an English model (``--vosk-model``; skipped without one);
- ``spoken``: no audio: the sentence's spoken words as a recognizer that writes spoken forms
  writes them when it hears every word right, through the written-form step (and
  ``spoken_raw`` without it): the step's own share of the misses.

Each transcript is split into sentences at the middle of the silences between them and scored
(``numbers_material``): the exact-match rate of the number expressions (overall and per
category; hyphenated words and abbreviations apart) and WER against the written sentences, for
all the sentences, the half the written-form step was tuned on and the held-out half.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from engine.evaluation.e2e_score import texts_by_span
from engine.evaluation.numbers_material import PARTS, by_part, load_sentences, misses, score_sentence
from engine.evaluation.numbers_material import spoken_words as said_words
from engine.evaluation.report import emit

__all__ = ["AUDIO_PATHS", "PATHS", "VOICES", "main"]

VOICES = ("piper", "festival")  # TTS engines (``e2e_speech.TTS_ENGINES``) at their own voice and pace
AUDIO_PATHS = ("whisper-file", "whisper-live", "pocketsphinx-file", "pocketsphinx-live", "vosk-file")
PATHS = (*AUDIO_PATHS, "spoken")
DEFAULT_PATHS = ("whisper-file", "whisper-live", "pocketsphinx-file", "vosk-file", "spoken")


def _by_sentence(words, spans) -> list[list[str]]:
    """Each sentence's words as written (``Word`` or ``TranscriptWord``: its ``text``)."""
    return texts_by_span(words, spans)


def _whisper_file(wav: Path, context) -> list:
    from engine.evaluation.live_vs_file import file_transcript
    from engine.recognizers.whisper_options import WhisperOptions

    return file_transcript(wav, WhisperOptions())[0]


def _live(wav: Path, recognizer, context) -> list:
    from engine.evaluation.e2e_run import run_live

    run = run_live(wav, recognizer, context["model"], realtime=False)
    if run["error"]:
        raise RuntimeError(run["error"])
    return run["transcript"].words


def _whisper_live(wav: Path, context) -> list:
    from engine.recognizers.whisper_options import WhisperOptions
    from engine.recognizers.whisper_rec import WhisperRecognizer

    # Unpaced, the audio waits for each decode: the decodes follow the audio alone.
    recognizer = WhisperRecognizer(None, live=True, options=WhisperOptions(keep_pace=False))
    try:
        return _live(wav, recognizer, context)
    finally:
        recognizer.close()


def _file_words(wav: Path, recognizer) -> list:
    """``recognizer``'s words for ``wav`` as ``livecap transcribe`` recognizes them (its written
    forms included), before punctuation: marks are not scored."""
    from engine.audio.file_source import read_all
    from engine.session.batch import recognize_audio

    try:
        return recognize_audio(read_all(wav), recognizer)
    finally:
        recognizer.close()


def _pocketsphinx_file(wav: Path, context) -> list:
    from engine.recognizers.kinds import POCKETSPHINX

    return _file_words(wav, POCKETSPHINX.open(None, live=False))


def _pocketsphinx_live(wav: Path, context) -> list:
    from engine.recognizers.kinds import POCKETSPHINX

    recognizer = POCKETSPHINX.open(None, live=True)
    try:
        return _live(wav, recognizer, context)
    finally:
        recognizer.close()


def _vosk_file(wav: Path, context) -> list:
    from engine.recognizers.kinds import VOSK

    return _file_words(wav, VOSK.open(context["vosk_model"], live=False))


RUNS = {
    "whisper-file": _whisper_file,
    "whisper-live": _whisper_live,
    "pocketsphinx-file": _pocketsphinx_file,
    "pocketsphinx-live": _pocketsphinx_live,
    "vosk-file": _vosk_file,
}


def _scored(sentences, transcripts: list[list[str]], show_misses: bool) -> dict:
    scores = [score_sentence(s, t) for s, t in zip(sentences, transcripts)]
    out = by_part(sentences, scores)
    if show_misses:
        out["misses"] = misses(sentences, scores)
    return out


def spoken_path(sentences, show_misses: bool) -> dict:
    """The ``spoken`` path: each sentence's spoken words through the written-form step, and as
    they stand (``spoken_raw``)."""
    from engine.recognizers.written_forms import written_forms
    from engine.words import Word

    said = [said_words(s.spoken) for s in sentences]
    written = [[w.text for w in written_forms([Word(t) for t in words])] for words in said]
    return {
        "spoken": _scored(sentences, written, show_misses),
        "spoken_raw": _scored(sentences, said, False),
    }


def one_voice(voice: str, sentences, paths: list[str], context, log) -> dict:
    import soundfile as sf

    from engine.evaluation.e2e_speech import SAMPLE_RATE, synthesize
    from engine.evaluation.live_vs_file import missing_engine

    missing = missing_engine(voice)
    if missing:
        log(f"{voice}: skipped ({missing})")
        return {"skipped": missing}
    speech = synthesize(sentences, gap=1.0, tts=voice)
    seconds = len(speech.audio) / SAMPLE_RATE
    log(f"{voice}: {seconds:.0f} s of speech")
    out: dict = {"audio_seconds": round(seconds, 1)}
    with tempfile.TemporaryDirectory(prefix="livecap-numbers-") as folder:
        wav = Path(folder) / f"{voice}.wav"
        sf.write(wav, speech.audio, SAMPLE_RATE, subtype="PCM_16")
        for path in paths:
            if path == "vosk-file" and context["vosk_model"] is None:
                out[path] = {"skipped": "no English Vosk model: name one with --vosk-model"}
                continue
            began = time.monotonic()
            words = RUNS[path](wav, context)
            out[path] = _scored(sentences, _by_sentence(words, speech.spans), context["show_misses"])
            out[path]["seconds"] = round(time.monotonic() - began, 1)
            all_ = out[path]["all"]
            log(
                f"{voice} {path}: numbers {all_['number_exact_pct']} % exact, "
                f"WER {all_['wer_pct']} % ({out[path]['seconds']} s)"
            )
    return out


def _english_vosk_model(given: Path | None) -> Path | None:
    """``given``, else the first English Vosk model installed in the models folder, else None."""
    if given is not None:
        return given
    from engine.files import paths
    from engine.vosk_models.catalogue import model_language
    from engine.vosk_models.layout import installed_model_folders
    from engine.words import is_english

    for folder in installed_model_folders(paths.recognizer_models_dir()):
        language = model_language(folder)
        if language is not None and is_english(language):
            return folder
    return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.numbers",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--voice", action="append", choices=VOICES, help="default: every voice")
    add("--path", action="append", choices=PATHS, help=f"default: {', '.join(DEFAULT_PATHS)}")
    add("--sentences", type=int, default=None, help="the first N sentences only (a quick run)")
    add("--part", choices=PARTS, default="all", help="tune: the even sentences; held-out: the odd")
    add("--vosk-model", type=Path, default=None, help="an English Vosk model (default: one installed)")
    add("--misses", action="store_true", help="list every expression missed, with what was written")
    add("--out", type=Path, default=None, help="also write the JSON here")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    log = lambda msg: print(f"numbers: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()
    from engine.machine import cpu_description

    try:
        sentences = load_sentences(part=args.part, count=args.sentences)
    except (OSError, ValueError) as exc:
        log(str(exc))
        return 2
    paths = args.path or list(DEFAULT_PATHS)
    audio_paths = [p for p in paths if p in AUDIO_PATHS]
    context = {"vosk_model": _english_vosk_model(args.vosk_model), "show_misses": args.misses, "model": None}
    if any(p.endswith("-live") for p in audio_paths):
        from engine.punctuation.model import PunctuationModel, model_folder

        context["model"] = PunctuationModel(model_folder(None), threads=1)
    log(f"{len(sentences)} sentences, {sum(len(s.expressions) for s in sentences)} expressions")
    voices = (
        {v: one_voice(v, sentences, audio_paths, context, log) for v in args.voice or VOICES}
        if audio_paths
        else {}
    )
    result = {
        "command": "python -m engine.evaluation.numbers "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "settings": {"part": args.part, "sentences": len(sentences), "paths": paths},
        "vosk_model": None if context["vosk_model"] is None else str(context["vosk_model"]),
        "voices": voices,
        **(spoken_path(sentences, args.misses) if "spoken" in paths else {}),
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    if not voices:
        result.pop("voices")
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
