"""Soak test of the live pipeline: ``python -m engine.evaluation.soak --hours 2`` (prints JSON).

Hours of generated speech and silence go through the real path, as fast as it
decodes: a generated source → the recognizer thread (``--recognizer``: by default
the one the app picks, Whisper tiny.en on most computers; or whisper,
pocketsphinx, vosk) → the stabiliser → the punctuation engine thread → the journal.
It checks what must hold however long a session runs:

- no word is lost: the words the stabiliser committed (net of retractions) =
  the transcript's words = the journal's words, text for text (``lost_words``
  counts the ones missing from either);
- memory stays bounded: resident memory is sampled at the start and at every
  tenth of the audio (``rss_mb``: start, median, end); growth is counted from
  the first tenth (once warm).

The speech is a bank of espeak-ng clips (a few dozen seconds in all) replayed
in a shuffled order with silences of varied length between them, generated
chunk by chunk so the soak itself holds no hours of audio in memory.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from engine.audio.base import SAMPLE_RATE, AudioSource, Resampler
from engine.recognizers.kinds import CHOICES, POCKETSPHINX

SENTENCES = (
    "the weather is nice today and we are going to the park",
    "we will meet again next week to talk about the plan",
    "can you send me the report before the end of the day",
    "the train was late this morning so i missed the meeting",
    "please turn off the lights when you leave the room",
    "i think we should try a different approach this time",
    "how many people are coming to the party on saturday",
    "the children are playing in the garden with the dog",
    "thank you all for coming and have a good evening",
    "what time does the store open on sunday morning",
)
CHUNK_SECONDS = 0.1
SILENCES = (0.3, 0.6, 1.0, 1.5, 2.5, 4.0)  # seconds between clips: pauses, sentence ends, long gaps


def speak(text: str, voice: str = "en-us", speed: int = 130) -> np.ndarray:
    """``text`` spoken by espeak-ng, as 16 kHz mono int16."""
    import soundfile as sf

    if shutil.which("espeak-ng") is None:
        raise RuntimeError(
            "espeak-ng is not installed (apt-get install espeak-ng): it synthesises the soak's speech"
        )
    wav = subprocess.run(
        ["espeak-ng", "--stdout", "-v", voice, "-s", str(speed), text], capture_output=True, check=True
    ).stdout
    data, rate = sf.read(io.BytesIO(wav), dtype="int16")
    resampler = Resampler(rate)
    return np.concatenate([resampler.process(data), resampler.flush()])


class GeneratedSpeech(AudioSource):
    """Clips and silences in a seeded random order, ``seconds`` long in all, as fast as read.

    ``words``: how many words each clip says; ``spoken_words`` then counts those of the clips
    emitted whole, against which a recognizer that falls silent mid-run shows."""

    def __init__(
        self, clips: list[np.ndarray], seconds: float, seed: int = 0, words: list[int] | None = None
    ):
        super().__init__("generated speech")
        if words is not None and len(words) != len(clips):
            raise ValueError(f"{len(words)} word counts for {len(clips)} clips")
        self.clips = clips
        self.words = words or [0] * len(clips)
        self.total = int(seconds * SAMPLE_RATE)
        self.emitted = 0
        self.spoken_words = 0
        self._rng = random.Random(seed)
        self._buffer = np.zeros(0, np.int16)
        self._pending: deque[tuple[int, int]] = deque()  # (stream sample where a clip ends, its words)
        self._stopped = threading.Event()

    def start(self) -> GeneratedSpeech:
        return self

    def read(self, timeout: float) -> np.ndarray | None:
        if self._stopped.is_set() or self.emitted >= self.total:
            if not self._finished:
                self._finished = True
                self._emit("finished", f"{self.name}: {self.total / SAMPLE_RATE / 3600:.2f} h generated")
            return None
        step = min(int(CHUNK_SECONDS * SAMPLE_RATE), self.total - self.emitted)
        while len(self._buffer) < step:
            gap = np.zeros(int(self._rng.choice(SILENCES) * SAMPLE_RATE), np.int16)
            i = self._rng.randrange(len(self.clips))
            self._pending.append((self.emitted + len(self._buffer) + len(self.clips[i]), self.words[i]))
            self._buffer = np.concatenate([self._buffer, self.clips[i], gap])
        chunk, self._buffer = self._buffer[:step], self._buffer[step:]
        self.emitted += step
        while self._pending and self._pending[0][0] <= self.emitted:
            self.spoken_words += self._pending.popleft()[1]
        return chunk

    def stop(self) -> None:
        self._stopped.set()


def rss_mb() -> float:
    """Resident memory of this process now (Linux), or its peak elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def punctuation_model_dir(requested: Path | None, scratch: Path) -> tuple[Path, str]:
    from engine.punctuation.model import model_folder

    folder = model_folder(requested)
    if (folder / "model.onnx").exists():
        return folder, str(folder)
    from engine.evaluation.synthetic_model import MINILM_L6, write_model_dir

    # No trained model shipped yet: a same-shape model with random weights costs the same to run.
    return write_model_dir(
        scratch / "model", shape=MINILM_L6, quantize=True
    ), "random-weights MiniLM-L6 shape, int8"


RECOGNIZERS = CHOICES


def open_soak_recognizer(kind: str, model: str = "") -> tuple:
    """(recognizer, notice, ways out) as ``open_recognizer`` gives them to the app, except that
    PocketSphinx runs in this process: its memory then counts in the soak's resident memory, as
    Whisper's and Vosk's do (the app puts it in a child process, whose memory ``rss_mb`` misses)."""
    from engine.recognizers.select import open_recognizer

    return open_recognizer(kind, model, isolated=False, live=True)


def lost_words(recognized: int, transcript: list[str], journaled: list[str]) -> int:
    """Words the stabiliser committed that the transcript lacks, plus transcript words the journal
    lacks (text for text, in order)."""
    matcher = SequenceMatcher(a=transcript, b=journaled, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    return max(recognized - len(transcript), 0) + len(transcript) - kept


def run_soak(
    seconds: float,
    model_dir: Path | None = None,
    journal_dir: Path | None = None,
    progress=None,
    seed: int = 0,
    recognizer: str = POCKETSPHINX.name,
    recognizer_model: str = "",
) -> dict:
    """Soak a live session on ``seconds`` of generated speech with ``recognizer`` (one of
    ``RECOGNIZERS``; "auto": the app's choice, ``open_recognizer``). Raises ``RecognizerError``
    when that recognizer cannot be opened."""
    from engine.punctuation.model import PunctuationModel
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    if recognizer not in RECOGNIZERS:
        raise ValueError(f"unknown recognizer {recognizer!r}: choose from {', '.join(RECOGNIZERS)}")
    with tempfile.TemporaryDirectory(prefix="livecap-soak-") as scratch:
        folder, label = punctuation_model_dir(model_dir, Path(scratch))
        clips = [speak(s) for s in SENTENCES]
        source = GeneratedSpeech(clips, seconds, seed, words=[len(s.split()) for s in SENTENCES])
        model = PunctuationModel(folder)
        # The session users run (build_live_session), on generated speech, journaled to its folder.
        spec = SessionSpec(
            journal_dir=journal_dir or Path(scratch) / "journal",
            journal_keep_days=None,
            recognizer=recognizer,
            recognizer_model=recognizer_model,
        )
        loaded = SessionResources(open_soak_recognizer, lambda folder: model)
        try:
            session, info = build_live_session(spec, loaded, source=source)
            return _soak(session, source, info, label, progress)
        finally:
            loaded.close_recognizers()  # Whisper's CTranslate2 model must go before the interpreter does


def _soak(session, source: GeneratedSpeech, info, label: str, progress) -> dict:
    from engine.transcript.journal import read_journal

    journal = session.journal
    rss = {"start": rss_mb()}
    series, clock = [], []  # memory and wall time at every tenth of the audio: growth, or a plateau?
    t0 = time.monotonic()
    session.start()
    while not session.wait(0.5):
        while len(series) < 9 and source.emitted >= (len(series) + 1) * source.total / 10:
            series.append(rss_mb())
            clock.append(time.monotonic() - t0)
        if progress:
            progress(source.emitted / SAMPLE_RATE, source.total / SAMPLE_RATE)
    transcript = session.stop()
    wall = time.monotonic() - t0
    series += [rss_mb()] * (10 - len(series))  # a run too short to sample them on the way
    rss.update(warm=series[0], median=statistics.median(series), middle=series[4], end=series[-1])
    journaled = read_journal(journal.path)
    words = [w.text for w in transcript.words]
    logged = [w.text for w in journaled.transcript.words]
    audio = source.emitted / SAMPLE_RATE
    return {
        "recognizer": info.name,
        "recognizer_model": info.model,
        "recognizer_notice": info.notice,
        "audio_hours": round(audio / 3600, 4),
        "wall_seconds": round(wall, 1),
        "speed_x_realtime": round(audio / wall, 2) if wall else None,
        "rss_mb": {k: round(v, 1) for k, v in rss.items()},
        "rss_growth_mb": round(rss["end"] - rss["warm"], 1),
        "rss_series_mb": [round(v, 1) for v in series],
        "wall_series_s": [round(v, 1) for v in clock + [wall]],
        "recognized_words": session.words_recognized,
        "transcript_words": len(words),
        "journaled_words": len(logged),
        "words_equal": session.words_recognized == len(words) == len(logged) and words == logged,
        "lost_words": lost_words(session.words_recognized, words, logged),
        # Words said in the clips emitted whole: a recognizer that stops hearing shows against it.
        "spoken_words": source.spoken_words,
        "retracted_words": session.words_retracted,
        "all_settled": session.builder.all_settled,
        "journal_closed": journaled.closed,
        "error": session.error,
        "punctuation_model": label,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hours", type=float, default=None)
    length.add_argument("--minutes", type=float, default=None, help="default: 5")
    length.add_argument("--seconds", type=float, default=None, help="a short check")
    parser.add_argument(
        "--recognizer",
        choices=RECOGNIZERS,
        default="auto",
        help="default: auto, the app's choice (a Vosk model installed, else Whisper tiny.en, "
        "else PocketSphinx where Whisper cannot keep up)",
    )
    parser.add_argument(
        "--model", default="", help="a Vosk or Whisper model's name or folder (default: the usual choice)"
    )
    parser.add_argument(
        "--model-dir", type=Path, default=None, help="punctuation model (default: the shipped one)"
    )
    parser.add_argument(
        "--journal-dir", type=Path, default=None, help="keep the journal here (default: a temp dir)"
    )
    args = parser.parse_args(argv)
    if args.hours is not None:
        seconds = 3600 * args.hours
    elif args.seconds is not None:
        seconds = args.seconds
    else:
        seconds = 60 * (args.minutes if args.minutes is not None else 5)
    if seconds <= 0:
        parser.error(f"the soak needs some audio: got {seconds:g} s")
    if shutil.which("espeak-ng") is None:
        print(
            "soak: espeak-ng is not installed (apt-get install espeak-ng): it speaks the soak's audio",
            file=sys.stderr,
        )
        return 2
    from engine.cli.progress import ProgressBar
    from engine.elapsed import format_elapsed
    from engine.recognizers.base import RecognizerError

    bar = ProgressBar("audio")
    try:
        result = run_soak(
            seconds,
            args.model_dir,
            args.journal_dir,
            progress=lambda done, total: bar.update(done, total, f"{format_elapsed(done)} of audio"),
            recognizer=args.recognizer,
            recognizer_model=args.model,
        )
    except RecognizerError as exc:  # no Vosk model installed, a model that will not load: one line
        bar.finish()
        print(f"soak: {exc}", file=sys.stderr)
        return 2
    bar.finish()
    print(json.dumps(result, indent=2))
    return 0 if result["words_equal"] and not result["lost_words"] and result["error"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
