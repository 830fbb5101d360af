"""Clean speech made to sound like a real room, a noisy place or a call: the acoustic conditions of
``python -m engine.evaluation.rooms``.

Every function takes and returns 16 kHz mono float32 in [-1, 1] and keeps the input's length and
timing, so the word-time spans the scorer splits a transcript by stay valid:

- ``reverberate``: a shoebox room simulated by pyroomacoustics (image sources, walls' absorption
  from Sabine's formula for the RT60 asked), its direct path's delay taken off;
- ``mix_at_snr``: a noise (``engine.evaluation.noises``) at a signal-to-noise ratio measured on the
  speech's active frames, as a listener hears it, not diluted by the pauses;
- ``opus_call``: through the real libopus (``opuslib_next``, from the ``opuslib-next-bundled``
  wheel), VoIP mode at a call's bitrate, packets lost at random and concealed by the decoder;
- ``at_level`` and ``clipped``: a quiet microphone and an overdriven one.

``CONDITIONS`` names them and their combinations; ``PRESETS`` groups names. ``nonspeech`` makes the
audio that must produce no words at all: noise, music, typing, room tone.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.evaluation.noises import babble, brown_noise, fan_hum, music, pink_noise, room_tone, typing

__all__ = [
    "CONDITIONS",
    "NONSPEECH_KINDS",
    "PRESETS",
    "Condition",
    "active_rms",
    "at_level",
    "babble",
    "brown_noise",
    "clipped",
    "dbfs",
    "fan_hum",
    "mix_at_snr",
    "nonspeech",
    "opus_call",
    "pink_noise",
    "reverberate",
    "room_tone",
    "typing",
]

ROOM_DIM = (6.0, 5.0, 3.0)  # a meeting room, metres
FRAME = int(0.02 * SAMPLE_RATE)
# A frame is active speech when within this many dB of the loud frames (the 95th percentile): the
# pauses between words and sentences then do not count in a level or an SNR.
ACTIVE_RANGE_DB = 30.0


def _frame_rms(audio: np.ndarray) -> np.ndarray:
    n = len(audio) // FRAME
    if n == 0:
        return np.sqrt(np.mean(np.square(audio, dtype=np.float64), keepdims=True)) if len(audio) else [0.0]
    frames = audio[: n * FRAME].astype(np.float64).reshape(n, FRAME)
    return np.sqrt(np.mean(frames**2, axis=1))


def active_rms(audio: np.ndarray) -> float:
    """RMS over the frames of ``audio`` that are active (see ``ACTIVE_RANGE_DB``)."""
    rms = np.asarray(_frame_rms(audio))
    loud = np.percentile(rms, 95) if len(rms) else 0.0
    if loud <= 0:
        return 0.0
    active = rms[rms >= loud * 10 ** (-ACTIVE_RANGE_DB / 20)]
    return float(np.sqrt(np.mean(active**2)))


def dbfs(rms: float) -> float:
    return 20 * np.log10(max(rms, 1e-12))


def _scaled(audio: np.ndarray, gain: float) -> np.ndarray:
    return (audio.astype(np.float64) * gain).astype(np.float32)


@functools.lru_cache(maxsize=32)
def _room_response(rt60: float, distance: float, seed: int) -> np.ndarray:
    """The room's impulse response from a talker to a microphone ``distance`` metres away, its
    direct path at sample 0. Placed at random (by ``seed``) at seated height, 0.5 m from the walls."""
    import pyroomacoustics as pra

    absorption, max_order = pra.inverse_sabine(rt60, ROOM_DIM)
    room = pra.ShoeBox(
        ROOM_DIM, fs=SAMPLE_RATE, materials=pra.Material(absorption), max_order=max_order
    )  # fmt: skip
    rng, margin = np.random.default_rng(seed), 0.5
    for _attempt in range(1000):
        source = np.array([rng.uniform(margin, d - margin) for d in ROOM_DIM[:2]] + [1.2])
        angle = rng.uniform(0, 2 * np.pi)
        mic = source + distance * np.array([np.cos(angle), np.sin(angle), 0.0])
        if all(margin <= m <= d - margin for m, d in zip(mic[:2], ROOM_DIM[:2])):
            break
    else:
        raise ValueError(f"a {distance} m path does not fit in a {ROOM_DIM} m room")
    room.add_source(source.tolist())
    room.add_microphone(mic.tolist())
    room.compute_rir()
    rir = np.asarray(room.rir[0][0], np.float64)
    # The direct path is the strongest arrival by its expected time (its fractional-delay filter
    # centred there): the peak within that window, not the whole response, where late reflections
    # of a long room can sum higher.
    delay = distance / pra.constants.get("c") * SAMPLE_RATE
    window = int(delay) + pra.constants.get("frac_delay_length") // 2 + 8
    direct = int(np.argmax(np.abs(rir[: window + 1])))
    return rir[direct:]


def reverberate(audio: np.ndarray, rt60: float, distance: float, seed: int = 0) -> np.ndarray:
    """``audio`` as a microphone ``distance`` metres from the talker hears it in a 6×5×3 m room
    with reverberation time ``rt60`` seconds; aligned with the input (the direct sound where the dry
    sound was), as long as the input (the tail past the end is cut: the synthesised speech ends in
    seconds of silence that hold it), at the input's RMS."""
    from scipy.signal import fftconvolve

    wet = fftconvolve(audio.astype(np.float64), _room_response(float(rt60), float(distance), seed))
    wet = wet[: len(audio)]
    rms_in, rms_out = (float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) for x in (audio, wet))
    return _scaled(wet, rms_in / rms_out if rms_out > 0 else 1.0)


def _fit(noise: np.ndarray, length: int) -> np.ndarray:
    """``noise`` looped or cut to ``length`` samples."""
    if len(noise) == 0:
        raise ValueError("no noise to mix")
    return np.tile(noise, -(-length // len(noise)))[:length]


def mix_at_snr(speech: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    """``speech`` plus ``noise`` (looped or cut to its length) scaled so that the speech's active RMS
    is ``snr_db`` above the noise's RMS."""
    noise = _fit(noise, len(speech)).astype(np.float64)
    noise_rms = float(np.sqrt(np.mean(noise**2)))
    if noise_rms == 0:
        return speech.astype(np.float32)
    gain = active_rms(speech) / noise_rms * 10 ** (-snr_db / 20)
    return (speech.astype(np.float64) + gain * noise).astype(np.float32)


def at_level(audio: np.ndarray, dbfs: float) -> np.ndarray:
    """``audio`` with its active RMS at ``dbfs`` dB full scale (-50: a far or muted mic)."""
    rms = active_rms(audio)
    return _scaled(audio, 10 ** (dbfs / 20) / rms) if rms > 0 else audio.astype(np.float32)


def clipped(audio: np.ndarray, gain_db: float) -> np.ndarray:
    """``audio`` amplified by ``gain_db`` and hard-clipped at full scale: an input whose gain is set
    too high, simulated (an ADC clips; no filter does this)."""
    return np.clip(audio.astype(np.float64) * 10 ** (gain_db / 20), -1.0, 1.0).astype(np.float32)


def _decode_lost(decoder, samples: int) -> bytes:
    """One lost packet concealed: libopus's ``opus_decode`` with no data runs its packet-loss
    concealment (the binding's ``Decoder.decode`` wants bytes, so its C call is made directly)."""
    import ctypes

    import opuslib_next.api as api
    from opuslib_next.api.decoder import libopus_decode

    pcm = (ctypes.c_int16 * samples)()
    got = libopus_decode(decoder.decoder_state, None, 0, ctypes.cast(pcm, api.c_int16_pointer), samples, 0)
    if got < 0:
        raise RuntimeError(f"opus concealment failed ({got})")
    return bytes(pcm)[: 2 * got]


def opus_call(audio: np.ndarray, kbps: int, loss: float = 0.0, seed: int = 0) -> np.ndarray:
    """``audio`` through a call: libopus at 16 kHz, 20 ms frames, VoIP mode, ``kbps`` kbit/s; each
    packet lost with probability ``loss`` (independently, seeded) and concealed by the decoder.
    Aligned with the input (the encoder's lookahead taken off) and as long."""
    import opuslib_next

    encoder = opuslib_next.Encoder(SAMPLE_RATE, 1, opuslib_next.APPLICATION_VOIP)
    encoder.bitrate = int(kbps * 1000)
    if loss > 0:
        encoder.packet_loss_perc = int(round(100 * loss))  # as a call's encoder is told by its peer
    decoder = opuslib_next.Decoder(SAMPLE_RATE, 1)
    lookahead = encoder.lookahead
    pcm = np.clip(np.round(audio.astype(np.float64) * 32767), -32768, 32767).astype(np.int16)
    frames = -(-(len(pcm) + lookahead) // FRAME)
    pcm = np.concatenate([pcm, np.zeros(frames * FRAME - len(pcm), np.int16)])
    rng = np.random.default_rng(seed)
    out = []
    for k in range(frames):
        packet = encoder.encode(pcm[k * FRAME : (k + 1) * FRAME].tobytes(), FRAME)
        lost = loss > 0 and rng.random() < loss
        out.append(_decode_lost(decoder, FRAME) if lost else decoder.decode(packet, FRAME))
    decoded = np.frombuffer(b"".join(out), np.int16).astype(np.float32) / 32768
    return decoded[lookahead : lookahead + len(audio)]


@dataclasses.dataclass(frozen=True)
class Condition:
    """One acoustic condition, applied in the order sound meets it: the room, the noise at the
    microphone, the microphone's level or clipping, then the call's codec. A field left None is a
    stage skipped."""

    name: str
    rt60: float | None = None
    distance: float = 1.0
    noise: str | None = None  # "babble", "pink", "brown", "fan", "typing", "room_tone"
    snr_db: float | None = None
    level_dbfs: float | None = None
    clip_gain_db: float | None = None
    opus_kbps: int | None = None
    loss: float = 0.0

    def apply(self, audio: np.ndarray, seed: int = 0) -> np.ndarray:
        out = audio.astype(np.float32)
        if self.rt60 is not None:
            out = reverberate(out, self.rt60, self.distance, seed)
        if self.noise is not None:
            made = NOISES[self.noise](len(out) / SAMPLE_RATE, seed + 101)
            out = mix_at_snr(out, made, self.snr_db)
        if self.level_dbfs is not None:
            out = at_level(out, self.level_dbfs)
        if self.clip_gain_db is not None:
            out = clipped(out, self.clip_gain_db)
        peak = float(np.max(np.abs(out))) if len(out) else 0.0
        if peak > 0.99 and self.clip_gain_db is None:  # added noise must not clip where nothing should
            out = _scaled(out, 0.99 / peak)
        if self.opus_kbps is not None:
            out = opus_call(out, self.opus_kbps, self.loss, seed)
        return np.clip(out, -1.0, 1.0).astype(np.float32)

    def to_dict(self) -> dict:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None and k != "name"}


NOISES = {
    "babble": babble,
    "pink": pink_noise,
    "brown": brown_noise,
    "fan": fan_hum,
    "typing": typing,
    "room_tone": room_tone,
}


def _conditions() -> dict[str, Condition]:
    out = [Condition("clean")]
    for rt60 in (0.3, 0.6, 0.9):
        out += [Condition(f"room-rt{rt60}-{d}m", rt60=rt60, distance=d) for d in (1, 2, 3)]
    for kind in ("babble", "pink", "brown", "fan", "typing"):
        out += [Condition(f"{kind}{snr}", noise=kind, snr_db=snr) for snr in (20, 10, 5, 0)]
    out += [
        Condition("opus12", opus_kbps=12),
        Condition("opus24", opus_kbps=24),
        Condition("opus12-loss10", opus_kbps=12, loss=0.10),
        Condition("opus24-loss5", opus_kbps=24, loss=0.05),
        Condition("quiet", level_dbfs=-50.0),
        Condition("clipped", clip_gain_db=20.0),
        # The targets' conditions by name: a room, a call from one, and the hard case of both
        Condition("room", rt60=0.6, distance=2.0),
        Condition("call", rt60=0.4, distance=1.0, noise="babble", snr_db=15, opus_kbps=12),
        Condition("hard", rt60=0.7, distance=2.5, noise="babble", snr_db=5, opus_kbps=12),
    ]
    return {c.name: c for c in out}


CONDITIONS: dict[str, Condition] = _conditions()
PRESETS: dict[str, list[str]] = {
    "targets": ["clean", "room", "call", "babble10", "pink5", "hard"],
    "full": list(CONDITIONS),
}

NONSPEECH_KINDS = ("noise", "music", "typing", "room_tone")
# What a room's non-speech sounds like to a laptop's microphone: typing and music near a talker's
# level, a fan or traffic a little under, an office's air at its loudest
NONSPEECH_DBFS = {"noise": -26.0, "music": -22.0, "typing": -30.0, "room_tone": -30.0}


def nonspeech(kind: str, seconds: float, seed: int = 0) -> np.ndarray:
    """``seconds`` of sound with no speech in it: ``noise`` (pink, brown and fan hum in turn, 20 s
    each), ``music``, ``typing`` or ``room_tone``, at the level ``NONSPEECH_DBFS`` gives (RMS)."""
    if kind == "noise":
        makers, parts, left, k = (pink_noise, brown_noise, fan_hum), [], seconds, 0
        while left > 0:
            part = makers[k % 3](min(20.0, left), seed + k)
            parts.append(part / (np.sqrt(np.mean(np.square(part, dtype=np.float64))) or 1.0))
            left, k = left - 20.0, k + 1
        audio = np.concatenate(parts)
    elif kind == "music":
        audio = music(seconds, seed)
    elif kind == "typing":
        audio = typing(seconds, seed)
    elif kind == "room_tone":
        audio = room_tone(seconds, seed)
    else:
        raise ValueError(f"unknown non-speech kind {kind!r}: choose from {', '.join(NONSPEECH_KINDS)}")
    rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0
    level = 10 ** (NONSPEECH_DBFS[kind] / 20)
    out = _scaled(audio, level / rms) if rms > 0 else audio.astype(np.float32)
    return np.clip(out, -1.0, 1.0)
