"""A word's prosody, measured on its audio with numpy in a fraction of a millisecond.

People mark the end of a sentence and the break at a comma with more than silence: the pitch
falls (or, for many questions, rises) over the last word, the next phrase starts higher (a pitch
reset), the voice loses energy, and the last syllable is drawn out (pre-boundary lengthening).
Faber, *Punctuation Prediction for Speech Data*, estimates pitch by the average magnitude
difference; text plus pitch beats text alone, most of all on commas and questions. Silva,
Theobald and Apostoloff, *Multimodal punctuation prediction with contextual dropout*, take
acoustic features around each token's alignment. Here a word's own measures are taken once,
when it is committed; what they mean (against the speaker's recent pitch and pace, against the
next word) is worked out by ``engine.punctuation.word_cues``.

Pitch: autocorrelation of 25 ms frames every 10 ms (one batched FFT per word), the best lag
between 70 and 400 Hz, a frame voiced when its normalised peak and its energy are high enough.
Values are in semitones above 100 Hz, so a pitch movement means the same for a low and a high
voice. Word times from a recognizer are approximate (Whisper's come from its attention), so every
measure uses the voiced frames it finds inside the word's span and is NaN when there are too few.
For the same reason the pause before a word is heard, not read off the times: the longest quiet
run between the previous word's middle and this one's (``silence_seconds``).
"""

from __future__ import annotations

import numpy as np

from engine.audio import SAMPLE_RATE

PROSODY_FIELDS = (
    "f0_start",  # semitones above 100 Hz, median of the word's first voiced frames
    "f0_end",  # the same, of its last voiced frames
    "f0_slope_end",  # semitones per second over the word's last voiced 0.25 s
    "energy_db",  # the word's loudest frame, dB below full scale
    "energy_drop_db",  # its last frames against its loudest (<= 0)
    "final_syllable",  # seconds from the word's last energy peak to where its sound ends
    "silence_before",  # seconds of the longest quiet stretch since the previous word's middle
)
FRAME = int(0.025 * SAMPLE_RATE)
HOP = int(0.010 * SAMPLE_RATE)
F0_RANGE = (70.0, 400.0)  # Hz: men's and women's speaking voices
MIN_LAG, MAX_LAG = int(SAMPLE_RATE / F0_RANGE[1]), int(SAMPLE_RATE / F0_RANGE[0])
OCTAVE_GUARD = 0.85
VOICING = 0.45  # normalised autocorrelation peak a voiced frame reaches
SILENT_DB = -50.0  # frames quieter than this (dB full scale) are not the word's sound
QUIET_BELOW_PEAK = 25.0  # dB under the word's peak: the sound has ended
EDGE_FRAMES = 3  # frames a pitch at the start or end is the median of
SLOPE_SECONDS = 0.25
OCTAVE_SLIP = 5.0  # semitones from the tail's median pitch
HEAD_FRAMES = 8  # pitch is estimated on a word's first frames and its last SLOPE_SECONDS only
_WINDOW = np.hanning(FRAME).astype(np.float32)
_FFT_SIZE = 1 << int(np.ceil(np.log2(2 * FRAME)))
NOTHING = (np.nan,) * len(PROSODY_FIELDS)
# The pause before a word, heard rather than read off the recognizer's times: Whisper's word times
# come from its attention and wander by a tenth of a second or more, into the pause or out of it.
# A frame is quiet this far under the loudest frame between the two words' middles (or under an
# absolute floor, for a quiet speaker); the search reaches at most SILENCE_SPAN back.
QUIET_UNDER_PEAK = 35.0
QUIET_FLOOR_DB = -60.0
SILENCE_SPAN = 3.0


def _frames(samples: np.ndarray) -> np.ndarray:
    if len(samples) < FRAME:
        return np.zeros((0, FRAME), np.float32)
    count = 1 + (len(samples) - FRAME) // HOP
    return np.lib.stride_tricks.sliding_window_view(samples, FRAME)[::HOP][:count]


def _frames_and_energy(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 25 ms frames every 10 ms of ``samples``, their mean taken off, and each one's energy
    in dB below full scale."""
    frames = _frames(samples)
    frames = frames - frames.mean(axis=1, keepdims=True)
    return frames, 10 * np.log10(np.mean(frames * frames, axis=1) + 1e-10)


def frame_pitch_and_energy(samples: np.ndarray, head: int | None = None, tail: int | None = None):
    """Per 10 ms frame of ``samples`` (float32, -1..1): pitch in semitones above 100 Hz (NaN where
    unvoiced, and in the middle frames when ``head`` and ``tail`` ask for only the first and last
    frames' pitch: the start and the end are what the features read) and energy in dB below full
    scale."""
    frames, energy = _frames_and_energy(samples)
    if not len(frames):
        return np.zeros(0), np.zeros(0)
    pitch = np.full(len(frames), np.nan)
    chosen = np.arange(len(frames))
    if head is not None and tail is not None and head + tail < len(frames):
        chosen = np.r_[chosen[:head], chosen[-tail:]]
    pitch[chosen] = _pitch(frames[chosen], energy[chosen])
    return pitch, energy


def _pitch(frames: np.ndarray, energy: np.ndarray) -> np.ndarray:
    spectrum = np.fft.rfft(frames * _WINDOW, _FFT_SIZE, axis=1)
    corr = np.fft.irfft(spectrum * np.conj(spectrum), _FFT_SIZE, axis=1)[:, : MAX_LAG + 2]
    zero = np.maximum(corr[:, 0], 1e-12)
    # The window shrinks the overlap at long lags: divide it out so all lags compete fairly.
    taper = np.correlate(_WINDOW, _WINDOW, "full")[FRAME - 1 : FRAME - 1 + MAX_LAG + 2]
    normalised = corr / zero[:, None] * (taper[0] / np.maximum(taper, 1e-6))
    search = normalised[:, MIN_LAG : MAX_LAG + 1]
    top = search.max(axis=1)
    # Every multiple of the period correlates about as well as the period itself: take the
    # shortest lag that is a local peak within OCTAVE_GUARD of the best, not a sub-octave.
    local = np.zeros_like(search, dtype=bool)
    local[:, 1:-1] = (search[:, 1:-1] >= search[:, :-2]) & (search[:, 1:-1] >= search[:, 2:])
    good = local & (search >= OCTAVE_GUARD * top[:, None])
    best = np.where(good.any(axis=1), np.argmax(good, axis=1), np.argmax(search, axis=1))
    peak = search[np.arange(len(best)), best]
    lag = (best + MIN_LAG).astype(np.float64)
    # A parabola through the peak and its neighbours: the lag between samples.
    k = best + MIN_LAG
    inner = (k > MIN_LAG) & (k < MAX_LAG)
    rows = np.arange(len(k))
    left = normalised[rows, np.maximum(k - 1, 0)]
    right = normalised[rows, k + 1]
    centre = normalised[rows, k]
    bend = left - 2 * centre + right
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.where(inner & (bend < 0), 0.5 * (left - right) / bend, 0.0)
    lag = lag + np.clip(shift, -0.5, 0.5)
    # A peak at the edge of the search is no pitch inside it (a fricative's noise, a sub-octave).
    voiced = (peak >= VOICING) & (energy > SILENT_DB) & (k > MIN_LAG) & (k < MAX_LAG)
    return np.where(voiced, 12 * np.log2(SAMPLE_RATE / lag / 100.0), np.nan)


def silence_seconds(samples: np.ndarray) -> float:
    """The longest run of quiet frames in ``samples`` (float32, -1..1, 16 kHz), in seconds."""
    _, energy = _frames_and_energy(np.asarray(samples, dtype=np.float32))
    if not len(energy):
        return 0.0
    quiet = np.r_[False, energy < max(float(energy.max()) - QUIET_UNDER_PEAK, QUIET_FLOOR_DB), False]
    edges = np.flatnonzero(np.diff(quiet.astype(np.int8)))  # starts and ends of the quiet runs
    longest = int((edges[1::2] - edges[::2]).max()) if len(edges) else 0
    return longest * HOP / SAMPLE_RATE


def word_prosody(samples: np.ndarray, before: np.ndarray | None = None) -> tuple[float, ...]:
    """``PROSODY_FIELDS`` of one word's audio (float32, -1..1, 16 kHz; the word's span, from the
    recognizer's times); NaN for what it cannot tell (too short, unvoiced, silent). ``before``:
    the audio from the previous word's middle to this word's middle (``silence_span``), where
    there is a previous word and it is held."""
    silence = np.nan if before is None else silence_seconds(before)
    pitch, energy = frame_pitch_and_energy(
        np.asarray(samples, dtype=np.float32), HEAD_FRAMES, int(SLOPE_SECONDS * SAMPLE_RATE / HOP) + 3
    )
    if len(energy) < 2 or energy.max() <= SILENT_DB:
        return NOTHING[:-1] + (silence,)
    peak = float(energy.max())
    sounding = np.flatnonzero(energy > peak - QUIET_BELOW_PEAK)
    last_sound = int(sounding[-1])
    tail = energy[max(0, last_sound - EDGE_FRAMES + 1) : last_sound + 1]
    # The last syllable: from the last local maximum of the (smoothed) energy to the sound's end.
    smooth = np.convolve(np.pad(energy, 1, mode="edge"), np.ones(3) / 3, mode="valid")
    rising = np.r_[False, smooth[1:] >= smooth[:-1]]
    falling = np.r_[smooth[:-1] >= smooth[1:], True]
    maxima = np.flatnonzero(rising & falling & (smooth > peak - 12))
    maxima = maxima[maxima <= last_sound]
    final_peak = int(maxima[-1]) if len(maxima) else int(np.argmax(energy))
    final_syllable = (last_sound - final_peak + 1) * HOP / SAMPLE_RATE
    voiced = np.flatnonzero(~np.isnan(pitch))
    f0_start = f0_end = slope = np.nan
    if len(voiced) >= 2:
        f0_start = float(np.median(pitch[voiced[:EDGE_FRAMES]]))
        f0_end = float(np.median(pitch[voiced[-EDGE_FRAMES:]]))
        recent = voiced[voiced >= voiced[-1] - SLOPE_SECONDS * SAMPLE_RATE / HOP]
        # An octave slip (a halved or doubled period) is no pitch movement: leave those frames out.
        recent = recent[np.abs(pitch[recent] - np.median(pitch[recent])) <= OCTAVE_SLIP]
        if len(recent) >= 3:
            t = recent * HOP / SAMPLE_RATE
            slope = float(np.polyfit(t, pitch[recent], 1)[0])
    return (f0_start, f0_end, slope, peak, float(tail.mean() - peak), final_syllable, silence)


def silence_span(previous: tuple[float, float], word: tuple[float, float]) -> tuple[float, float]:
    """Where the pause before ``word`` is looked for, from two (start, end) times: between the two
    words' middles, since either time may be off, and no more than ``SILENCE_SPAN``."""
    end = (word[0] + word[1]) / 2
    return max((previous[0] + previous[1]) / 2, end - SILENCE_SPAN), end
