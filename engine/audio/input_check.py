"""Is the input the problem? Levels measured on the audio a session hears, and a quiet hint when
the microphone is too quiet, clipping, or hears more noise or room than voice.

``InputChecker`` is fed the session's 16 kHz mono blocks on the side's own thread (never in an
audio callback) and cuts them into 100 ms frames. Per frame it measures the RMS level (dBFS),
the clipped samples and a 10 ms envelope; over the last ``WINDOW_SECONDS`` it keeps:

- the speech level: the 95th percentile of frame levels (the loud, voiced frames);
- the noise floor: the 10th percentile (the pauses between words);
- the SNR estimate: their difference;
- the clipped share: samples at or above 99 % of full scale in runs of ``CLIP_RUN`` or more
  (a single loud sample is a peak, a flat run is the converter at its limit), among all samples;
- a reverberation estimate: a room's sound decays no faster than 60 dB per RT60, so after each
  speech offset the 10 ms envelope's fall is fitted with a line, and the steepest of those falls
  (their ``DECAY_PERCENTILE``-th percentile) says how fast the room lets the voice die away:
  ``RT60 = 60 dB / decay rate``. Dry speech falls to its floor within a few tens of ms; speech
  from across a reverberant room cannot (Ratnam et al.'s blind decay-rate estimate, simplified).

Thresholds, measured (``tests/engine/audio/test_input_check.py`` holds each on real audio:
Piper's and espeak-ng's voices, clean, at -50 dBFS, +20 dB and clipped, in pink noise or babble
at 0-5 dB SNR, in pyroomacoustics' room with RT60 0.9 s at 3 m, in 20 dB SNR noise, silence):

- quiet: speech level below ``QUIET_ON_DBFS`` (-40). Speech at a normal level (-20 dBFS RMS)
  measures -14 to -16, the same at -50 dBFS RMS -44 to -46, at -40 dBFS RMS -34 to -36 (no hint).
  Clears above ``QUIET_OFF_DBFS`` (-35).
- clipping: ``CLIP_ON_SHARE`` (0.1 %) of samples in clipped runs. Speech at a normal level has
  none; +20 dB of gain clips 12 % of them, +6 dB (peaks past full scale) 0.3-0.4 %. A word or
  two touching full scale in 10 s stays below it. Clears below ``CLIP_OFF_SHARE`` (0.02 %).
- noisy: SNR estimate below ``NOISY_ON_DB`` (13). Clean speech measures 40 dB and more (its
  pauses are near silence), in 20 dB SNR pink noise 22-27, 5 dB 11-12.5, 0 dB 7.5-8; five-talker
  babble at 0 dB 10-11. Clears above ``NOISY_OFF_DB`` (16).
- echoey: RT60 estimate above ``ECHO_ON_SECONDS`` (0.55). Dry speech measures 0.09-0.16 s (in
  20 dB SNR noise 0.2-0.23), a 0.3 s room at 1 m 0.35-0.39, the 0.9 s room at 3 m 0.64-0.92.
  Clears below ``ECHO_OFF_SECONDS`` (0.45). Noise and echo share one hint: the remedy is the same.

Never flicker: a condition counts only on speech frames (within 15 dB of the speech level, in a
window whose levels vary by ``SPEECH_SPREAD_DB`` or more: a steady hum or silence is not
speech), a hint appears after ``ON_SECONDS`` of speech with its condition, clears after
``OFF_SECONDS`` of speech without it (measured against the looser clearing threshold), and the
same hint is not shown again within ``REPEAT_SECONDS`` of audio after it cleared.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.events import InputHint

__all__ = [
    "HINT_MESSAGES",
    "InputChecker",
    "InputLevels",
]

FRAME_SAMPLES = SAMPLE_RATE // 10  # 100 ms: levels per frame
ENVELOPE_SAMPLES = SAMPLE_RATE // 100  # 10 ms: the envelope the decays are fitted on
WINDOW_SECONDS = 10.0  # the percentiles' window
FRAMES_IN_WINDOW = int(WINDOW_SECONDS * 10)
MIN_FRAMES = 30  # 3 s heard before any percentile is trusted
SILENCE_DBFS = -100.0  # digital silence (1e-10 keeps log10 finite)
# Speech's pre-emphasised frame levels vary by more than this between syllables and pauses; steady
# noise's (pink, white, brown, hum) by under 1 dB. Speech in 0 dB SNR pink noise: 3 dB and more.
SPEECH_SPREAD_DB = 2.0
SPEECH_BELOW_PEAK_DB = 15.0  # a frame this close to the speech level counts as speech
CLIP_LEVEL = 0.99
CLIP_RUN = 3

QUIET_ON_DBFS, QUIET_OFF_DBFS = -40.0, -35.0
CLIP_ON_SHARE, CLIP_OFF_SHARE = 1e-3, 2e-4
NOISY_ON_DB, NOISY_OFF_DB = 13.0, 16.0
ECHO_ON_SECONDS, ECHO_OFF_SECONDS = 0.55, 0.45

ENVELOPE_SECONDS = ENVELOPE_SAMPLES / SAMPLE_RATE
DECAY_HORIZON = 10  # envelope points (100 ms) each fall is measured over
DECAY_START_BELOW_PEAK_DB = 15.0  # a fall starts at a peak near the speech level
DECAY_ABOVE_NOISE_DB = 6.0  # and is measured down to this far above the noise floor
DECAY_PERCENTILE = 10  # of the falls' rates: the steepest tenth, as steep as the room allows
MIN_DECAYS = 8  # falls in the window before the reverberation is judged

ON_SECONDS = 3.0  # of speech with the condition before the hint appears
OFF_SECONDS = 6.0  # of speech without it before the hint clears
REPEAT_SECONDS = 30.0  # of audio before a cleared hint may return

HINT_MESSAGES = {
    "clipping": "The input is clipping: lower the microphone's level",
    "quiet": "The microphone is very quiet: move closer or raise its level",
    "noisy": "Noisy or echoey input: move closer to the microphone, or use a headset",
}
_PRIORITY = ("clipping", "quiet", "noisy")  # the one hint shown when several hold


@dataclass(frozen=True)
class InputLevels:
    """What the checker measured over its window (None: not enough heard yet)."""

    speech_dbfs: float
    noise_dbfs: float
    snr_db: float
    clipped_share: float
    rt60_seconds: float | None
    speech: bool  # the window holds speech (its levels vary like speech)


def _db(power: np.ndarray | float) -> np.ndarray | float:
    return 10.0 * np.log10(np.maximum(power, 1e-10))


class InputChecker:
    """Feed it blocks (``int16`` or float in -1..1); ``feed`` returns an ``InputHint`` when the
    hint changes (``kind`` None: cleared), else None. Not thread-safe: one side's thread owns it.
    ``speaker``: the side's id, carried by its hints."""

    def __init__(self, speaker: str = ""):
        self.speaker = speaker
        self.levels: InputLevels | None = None
        self.hint: str | None = None
        self._pending = np.zeros(0, np.float32)
        self._frame_db: deque[float] = deque(maxlen=FRAMES_IN_WINDOW)
        self._frame_clipped: deque[int] = deque(maxlen=FRAMES_IN_WINDOW)
        # (frame index, rate in dB/s) of each fall fitted in the window
        self._decays: deque[tuple[int, float]] = deque()
        self._raw_envelope: deque[float] = deque(maxlen=3)
        self._envelope: deque[float] = deque(maxlen=DECAY_HORIZON + 2)
        self._emphasised_db: deque[float] = deque(maxlen=FRAMES_IN_WINDOW)
        self._frames = 0
        self._rt60: float | None = None
        self._held = dict.fromkeys(_PRIORITY, 0)  # frames of speech each condition has held
        self._fine = 0  # frames of speech the shown hint's condition has not held
        self._cleared_at: dict[str, int] = {}

    def feed(self, block: np.ndarray) -> InputHint | None:
        samples = np.asarray(block)
        if samples.dtype == np.int16:
            samples = samples.astype(np.float32) * np.float32(1 / 32768)
        samples = np.concatenate([self._pending, samples.astype(np.float32, copy=False).reshape(-1)])
        changed = None
        whole = len(samples) // FRAME_SAMPLES * FRAME_SAMPLES
        for start in range(0, whole, FRAME_SAMPLES):
            event = self._frame(samples[start : start + FRAME_SAMPLES])
            if event is not None:
                changed = event  # the latest change is the one that holds
        self._pending = samples[whole:].copy()
        return changed

    # -- one frame -----------------------------------------------------------------------------
    def _frame(self, x: np.ndarray) -> InputHint | None:
        self._frames += 1
        self._frame_db.append(float(_db(np.mean(x * x))))
        emphasised = np.diff(x)  # pink noise's and hum's low end removed: speech's syllables remain
        self._emphasised_db.append(float(_db(np.mean(emphasised * emphasised))))
        self._frame_clipped.append(_clipped_samples(x))
        envelope = _db(np.mean(x.reshape(-1, ENVELOPE_SAMPLES) ** 2, axis=1))
        if len(self._frame_db) < MIN_FRAMES:
            return None
        levels = np.fromiter(self._frame_db, float)
        speech_db, noise_db = np.percentile(levels, [95, 10])
        self._fit_decays(envelope, speech_db, noise_db)
        while self._decays and self._decays[0][0] <= self._frames - FRAMES_IN_WINDOW:
            self._decays.popleft()
        if len(self._decays) >= MIN_DECAYS:
            rate = np.percentile([r for _, r in self._decays], 100 - DECAY_PERCENTILE)
            self._rt60 = 60.0 / max(rate, 1.0)
        # A stretch with too few falls (a long vowel, a noisy minute) keeps the last estimate:
        # the room has not changed.
        rt60 = self._rt60
        emphasised_spread = np.subtract(*np.percentile(np.fromiter(self._emphasised_db, float), [95, 10]))
        speech = speech_db > SILENCE_DBFS + 10 and emphasised_spread >= SPEECH_SPREAD_DB
        self.levels = InputLevels(
            speech_dbfs=float(speech_db),
            noise_dbfs=float(noise_db),
            snr_db=float(speech_db - noise_db),
            clipped_share=sum(self._frame_clipped) / (len(self._frame_clipped) * FRAME_SAMPLES),
            rt60_seconds=None if rt60 is None else float(rt60),
            speech=bool(speech),
        )
        if not speech or self._frame_db[-1] < speech_db - SPEECH_BELOW_PEAK_DB:
            return None  # only speech is evidence: silence and pauses neither raise nor clear
        return self._judge(self.levels)

    def _fit_decays(self, envelope: np.ndarray, speech_db: float, noise_db: float) -> None:
        """Measure how fast the voice falls from each loud peak of the 10 ms envelope: over the
        next ``DECAY_HORIZON`` points, or until it reaches the noise (then the time it took)."""
        stop = noise_db + DECAY_ABOVE_NOISE_DB  # nearer the floor, noise hides the fall
        for value in envelope:
            self._raw_envelope.append(float(value))
            if len(self._raw_envelope) < 3:
                continue
            # Three points averaged: a 10 ms frame's pitch-period ripple is not a fall.
            self._envelope.append(sum(list(self._raw_envelope)[-3:]) / 3)
            if len(self._envelope) < DECAY_HORIZON + 2:
                continue
            points = np.asarray(list(self._envelope)[-(DECAY_HORIZON + 2) :])
            before, peak, fall = points[0], points[1], points[2:]
            if (
                peak < max(speech_db - DECAY_START_BELOW_PEAK_DB, stop + 10)
                or peak < before
                or peak < fall[0]
            ):
                continue
            below = np.flatnonzero(fall < stop)
            if below.size:
                rate = (peak - stop) / ((below[0] + 1) * ENVELOPE_SECONDS)
            else:
                rate = (peak - fall[-1]) / (DECAY_HORIZON * ENVELOPE_SECONDS)
            self._decays.append((self._frames, float(rate)))

    # -- the hint ------------------------------------------------------------------------------
    def _conditions(self, levels: InputLevels, shown: str | None) -> dict[str, bool]:
        """Which conditions hold; the hint shown is judged against its looser clearing threshold."""

        def holds(kind: str, on: bool, still: bool) -> bool:
            return still if kind == shown else on

        rt60 = levels.rt60_seconds
        echo_on = rt60 is not None and rt60 > ECHO_ON_SECONDS
        echo_still = rt60 is not None and rt60 > ECHO_OFF_SECONDS
        return {
            "clipping": holds(
                "clipping", levels.clipped_share >= CLIP_ON_SHARE, levels.clipped_share >= CLIP_OFF_SHARE
            ),
            "quiet": holds("quiet", levels.speech_dbfs < QUIET_ON_DBFS, levels.speech_dbfs < QUIET_OFF_DBFS),
            "noisy": holds(
                "noisy",
                levels.snr_db < NOISY_ON_DB or echo_on,
                levels.snr_db < NOISY_OFF_DB or echo_still,
            ),
        }

    def _judge(self, levels: InputLevels) -> InputHint | None:
        conditions = self._conditions(levels, self.hint)
        for kind, holding in conditions.items():
            self._held[kind] = self._held[kind] + 1 if holding else 0
        on_frames, off_frames = round(ON_SECONDS * 10), round(OFF_SECONDS * 10)
        candidate = next(
            (
                kind
                for kind in _PRIORITY
                if self._held[kind] >= on_frames
                and self._frames - self._cleared_at.get(kind, -(10**9)) >= REPEAT_SECONDS * 10
            ),
            None,
        )
        if self.hint is not None:
            self._fine = 0 if conditions[self.hint] else self._fine + 1
            outranked = candidate is not None and _PRIORITY.index(candidate) < _PRIORITY.index(self.hint)
            if outranked:
                return self._show(candidate)
            if self._fine >= off_frames:
                self._cleared_at[self.hint] = self._frames
                return self._show(None)
            return None
        return self._show(candidate) if candidate is not None else None

    def _show(self, kind: str | None) -> InputHint:
        self.hint, self._fine = kind, 0
        return InputHint(kind, HINT_MESSAGES[kind] if kind else "", self.speaker)


def _clipped_samples(x: np.ndarray) -> int:
    """Samples at full scale in runs of ``CLIP_RUN`` or more."""
    at_limit = np.abs(x) >= CLIP_LEVEL
    if at_limit.sum() < CLIP_RUN:
        return 0
    starts = at_limit[:-2] & at_limit[1:-1] & at_limit[2:]  # a run of three begins here
    in_run = np.zeros_like(at_limit)
    in_run[:-2] |= starts
    in_run[1:-1] |= starts
    in_run[2:] |= starts
    return int(in_run.sum())
