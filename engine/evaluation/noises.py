"""Noises for the acoustic-conditions benchmark (``engine.evaluation.rooms``), 16 kHz mono float32.

Coloured noise (pink, brown), a motor's hum, typing, room tone, babble of other talkers and music.
Each maker takes a length and a seed and returns the same audio for the same pair; the levels are
arbitrary (about -20 dBFS RMS) because a condition sets them against the speech
(``degrade.mix_at_snr``) or at a fixed loudness (``degrade.nonspeech``).

Babble is the project's own synthetic voices (espeak-ng, festival, flite) reading other texts, from
the training corpus, so the voice under test never talks over itself. Music is General MIDI played by
a real SoundFont synthesiser (``tinysoundfont``, with the TimGM6mb SoundFont shipped inside the
``pretty-midi`` wheel: nothing is downloaded); where either is missing it falls back to chords and
arpeggios of harmonic tones with envelopes, made with numpy.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE

__all__ = [
    "babble",
    "brown_noise",
    "fan_hum",
    "music",
    "music_synthesiser",
    "pink_noise",
    "room_tone",
    "typing",
]

_LEVEL = 0.1  # RMS of what the makers return (-20 dBFS): a level mixing or leveling then changes


def _at_rms(audio: np.ndarray, rms: float = _LEVEL) -> np.ndarray:
    now = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0
    return (audio * (rms / now) if now > 0 else audio).astype(np.float32)


def _coloured(seconds: float, seed: int, exponent: float, floor_hz: float = 20.0) -> np.ndarray:
    """Gaussian noise with power falling as 1/f**exponent above ``floor_hz`` (flat below it, so
    brown noise does not drift off into DC)."""
    n = max(1, int(round(seconds * SAMPLE_RATE)))
    rng = np.random.default_rng(seed)
    spectrum = rng.standard_normal(n // 2 + 1) + 1j * rng.standard_normal(n // 2 + 1)
    freqs = np.maximum(np.fft.rfftfreq(n, 1 / SAMPLE_RATE), floor_hz)
    spectrum *= freqs ** (-exponent / 2)
    spectrum[0] = 0
    return _at_rms(np.fft.irfft(spectrum, n))


def pink_noise(seconds: float, seed: int = 0) -> np.ndarray:
    return _coloured(seconds, seed, 1.0)


def brown_noise(seconds: float, seed: int = 0) -> np.ndarray:
    return _coloured(seconds, seed, 2.0)


def _lowpass(audio: np.ndarray, cutoff_hz: float, order: int = 4) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    return sosfilt(butter(order, cutoff_hz, fs=SAMPLE_RATE, output="sos"), audio).astype(np.float32)


def fan_hum(seconds: float, seed: int = 0) -> np.ndarray:
    """A motor: a fundamental between 50 and 120 Hz and its harmonics (falling off), wavering a little
    in pitch and beating at the blade rate, over low broadband rumble."""
    rng = np.random.default_rng(seed)
    n = max(1, int(round(seconds * SAMPLE_RATE)))
    t = np.arange(n) / SAMPLE_RATE
    f0 = rng.uniform(50, 120)
    wobble = 1 + 0.004 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t)  # the speed hunts slightly
    phase = 2 * np.pi * f0 * np.cumsum(wobble) / SAMPLE_RATE
    hum = sum((0.6**k) * np.sin(k * phase + rng.uniform(0, 2 * np.pi)) for k in range(1, 9) if k * f0 < 4000)
    beat = 1 + 0.15 * np.sin(2 * np.pi * f0 / rng.integers(3, 7) * t)
    rumble = _lowpass(_coloured(seconds, seed + 1, 1.0), 400.0)
    return _at_rms(_at_rms(hum * beat, 0.08) + _at_rms(rumble, 0.06))


def room_tone(seconds: float, seed: int = 0) -> np.ndarray:
    """An office's air: HVAC's smooth low-passed pink noise with a faint hum of the mains' second
    harmonic under it."""
    n = max(1, int(round(seconds * SAMPLE_RATE)))
    air = _lowpass(_coloured(seconds, seed, 1.0), 1500.0, order=2)
    hum = np.sin(2 * np.pi * 100 * np.arange(n) / SAMPLE_RATE)
    return _at_rms(_at_rms(air) + _at_rms(hum, 0.01))


def _key_click(rng: np.random.Generator, loud: float) -> np.ndarray:
    """One key: a sharp plastic tick (noise bursting and dying in a few ms) and the key bottoming
    out, a damped resonance of a few hundred Hz."""
    n = int(0.04 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    tick = rng.standard_normal(n) * np.exp(-t / rng.uniform(0.0015, 0.004))
    tick = np.diff(tick, prepend=0.0)  # the tick is bright: mostly above 2 kHz
    thock = np.sin(2 * np.pi * rng.uniform(180, 450) * t) * np.exp(-t / rng.uniform(0.006, 0.015))
    return (loud * (0.6 * tick + 0.5 * thock)).astype(np.float32)


def typing(seconds: float, seed: int = 0) -> np.ndarray:
    """Someone typing: words of 2–9 keystrokes ~100–250 ms apart (log-normal, as people type), a
    louder space bar between words, a key's release click after its press, and pauses of half a
    second to a few seconds between phrases."""
    rng = np.random.default_rng(seed)
    n = max(1, int(round(seconds * SAMPLE_RATE)))
    out = np.zeros(n + SAMPLE_RATE, np.float32)
    at = rng.uniform(0.0, 0.5)
    while at < seconds:
        for _phrase_word in range(rng.integers(2, 8)):
            for key in range(rng.integers(2, 10)):
                loud = rng.uniform(0.5, 1.0) * (1.6 if key == 0 else 1.0)  # the space bar before a word
                for when, gain in ((at, loud), (at + rng.uniform(0.06, 0.12), 0.3 * loud)):
                    click, start = _key_click(rng, gain), int(when * SAMPLE_RATE)
                    if start < len(out):  # a phrase may run past the end: its keys there are cut
                        out[start : start + len(click)] += click[: len(out) - start]
                at += rng.lognormal(np.log(0.16), 0.35)
        at += rng.uniform(0.5, 3.0)
    return _at_rms(out[:n])


# Babble's talkers: (TTS engine, voice), every one unlike Piper's joe and each other
BABBLE_VOICES = (
    ("flite", "awb"),
    ("espeak-ng", "en-gb+f3"),
    ("festival", None),
    ("flite", "rms"),
    ("espeak-ng", "en-us+m3"),
    ("flite", "slt"),
)
_ASCII_WORDS = re.compile(r"[A-Za-z][A-Za-z',.;?!-]*")


def _train_passages(seed: int, count: int, words: int = 60) -> list[str]:
    """``count`` passages of about ``words`` words from the training texts, one file each in turn:
    texts the dev excerpts (what the voice under test reads) never come from."""
    from engine.evaluation.corpus import train_corpus

    files = sorted(Path(train_corpus()).glob("*.txt"))
    if not files:
        raise RuntimeError(f"no training texts in {train_corpus()}: babble reads them")
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        tokens = _ASCII_WORDS.findall(files[(seed + k) % len(files)].read_text(encoding="utf-8"))
        start = int(rng.integers(0, max(1, len(tokens) - words)))
        out.append(" ".join(tokens[start : start + words]))
    return out


@functools.lru_cache(maxsize=8)
def _babble_cached(samples: int, seed: int, talkers: int) -> np.ndarray:
    from engine.evaluation.e2e_speech import speak_with

    rng = np.random.default_rng(seed)
    mix = np.zeros(samples, np.float32)
    for k in range(talkers):
        tts, voice = BABBLE_VOICES[(seed + k) % len(BABBLE_VOICES)]
        talker, texts, round_ = np.zeros(0, np.float32), [], 0
        while len(talker) < samples:  # a talker goes on reading new passages until the mix is full
            if not texts:
                texts = _train_passages(seed * 1000 + k * 10 + round_, 3)
                round_ += 1
            clip = speak_with(tts, texts.pop(), voice).astype(np.float32) / 32768
            pause = np.zeros(int(rng.uniform(0.2, 0.8) * SAMPLE_RATE), np.float32)
            talker = np.concatenate([talker, clip, pause])
        shift = int(rng.integers(0, len(talker)))  # talkers start mid-sentence, none in step
        mix += _at_rms(np.roll(talker, -shift)[:samples])
    return _at_rms(mix)


def babble(seconds: float, seed: int = 0, talkers: int = 4) -> np.ndarray:
    """``talkers`` other voices of the project (flite, espeak-ng, festival) reading training texts at
    once, each at the same level: a café or an open office. Synthesised once per length and seed."""
    return _babble_cached(max(1, int(round(seconds * SAMPLE_RATE))), seed, talkers).copy()


def music_synthesiser() -> tuple[object, Path] | None:
    """(the tinysoundfont module, the General MIDI SoundFont in pretty-midi's wheel), or None where
    either is not installed."""
    spec = importlib.util.find_spec("pretty_midi")  # not imported: only its SoundFont file is read
    soundfont = Path(spec.submodule_search_locations[0]) / "TimGM6mb.sf2" if spec else None
    try:
        import tinysoundfont
    except ImportError:
        return None
    return (tinysoundfont, soundfont) if soundfont and soundfont.is_file() else None


# Chord progressions as semitones above a key's root (I–V–vi–IV, ii–V–I–vi, i–VI–III–VII)
_PROGRESSIONS = (
    ((0, 4, 7), (7, 11, 14), (9, 12, 16), (5, 9, 12)),
    ((2, 5, 9), (7, 11, 14), (0, 4, 7), (9, 12, 16)),
    ((0, 3, 7), (8, 12, 15), (3, 7, 10), (10, 14, 17)),
)
# General MIDI programs: pianos, guitars, organ, strings, pads, ... (no voices: they are not speech)
_PROGRAMS = (0, 1, 4, 5, 16, 19, 24, 25, 26, 46, 48, 49, 52, 61, 73, 81, 88, 89)


def _score(rng: np.random.Generator, seconds: float) -> list[tuple[float, float, int, int, int]]:
    """Notes (start s, length s, channel, key, velocity): bars of a progression, its chords held on
    channel 0, arpeggiated on channel 1 and their roots as a bass on channel 2."""
    tempo, root = rng.uniform(70, 140), int(rng.integers(48, 60))
    beat, notes, at, bar = 60 / tempo, [], 0.0, 0
    progression = _PROGRESSIONS[int(rng.integers(len(_PROGRESSIONS)))]
    while at < seconds:
        chord = [root + s for s in progression[bar % len(progression)]]
        notes += [(at, 4 * beat, 0, k, 60) for k in chord]
        notes.append((at, 2 * beat, 2, chord[0] - 12, 85))
        notes.append((at + 2 * beat, 2 * beat, 2, chord[0] - 12, 75))
        for step in range(8):  # eighth notes up and down the chord, an octave up
            key = chord[(step if step < 3 else 6 - step) % 3] + 12
            notes.append((at + step * beat / 2, beat / 2, 1, key, int(rng.integers(60, 95))))
        at, bar = at + 4 * beat, bar + 1
    return notes


def _render_soundfont(notes, seconds: float, rng: np.random.Generator, synthesiser) -> np.ndarray:
    tinysoundfont, soundfont = synthesiser
    synth = tinysoundfont.Synth(samplerate=SAMPLE_RATE)
    font = synth.sfload(str(soundfont))
    for channel in range(3):
        bass = (32, 33, 34, 35, 38)
        program = int(rng.choice(bass)) if channel == 2 else int(rng.choice(_PROGRAMS))
        synth.program_select(channel, font, 0, program)
    events = sorted(
        [(start, 1, ch, key, vel) for start, _, ch, key, vel in notes]
        + [(start + length, 0, ch, key, 0) for start, length, ch, key, _ in notes]
    )  # at one time, offs (0) before ons (1): a repeated key is struck again
    parts, now = [], 0
    for when, on, channel, key, velocity in events:
        due = min(int(when * SAMPLE_RATE), int(seconds * SAMPLE_RATE))
        if due > now:
            parts.append(np.frombuffer(synth.generate(due - now), np.float32)[::2])  # stereo: the left
            now = due
        synth.noteon(channel, key, velocity) if on else synth.noteoff(channel, key)
    rest = int(seconds * SAMPLE_RATE) - now
    if rest > 0:
        parts.append(np.frombuffer(synth.generate(rest), np.float32)[::2])
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def _render_tones(notes, seconds: float) -> np.ndarray:
    """The numpy fallback: each note a few harmonics under an attack–decay envelope."""
    out = np.zeros(int(seconds * SAMPLE_RATE) + 4 * SAMPLE_RATE, np.float32)
    for start, length, _, key, velocity in notes:
        n = int((length + 0.3) * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        f = 440.0 * 2 ** ((key - 69) / 12)
        tone = sum(np.sin(2 * np.pi * h * f * t) / h**1.5 for h in range(1, 6) if h * f < 7000)
        envelope = np.minimum(t / 0.01, 1) * np.exp(-t / max(length, 0.1))
        begin = int(start * SAMPLE_RATE)
        out[begin : begin + n] += (velocity / 127 * tone * envelope)[: len(out) - begin]
    return out[: int(seconds * SAMPLE_RATE)]


def music(seconds: float, seed: int = 0) -> np.ndarray:
    """Instrumental music: a random key, tempo, progression and instruments per 30 s piece, played by
    the SoundFont synthesiser where it is installed, else by ``_render_tones``."""
    rng = np.random.default_rng(seed)
    synthesiser, pieces, left = music_synthesiser(), [], seconds
    while left > 0:
        length = min(30.0, left)
        notes = _score(rng, length)
        piece = _render_soundfont(notes, length, rng, synthesiser) if synthesiser else None
        pieces.append(_at_rms(piece if piece is not None else _render_tones(notes, length)))
        left -= length
    return _at_rms(np.concatenate(pieces))
