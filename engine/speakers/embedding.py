"""Speaker embeddings: a 256-number vector per span of speech, near for one voice, far for two.

The network is resemblyzer's GE2E voice encoder (Corentin Jemine, Apache-2.0; provenance in
``models/speaker/PROVENANCE.md``), converted to ONNX by ``python -m training.export_speaker_encoder``
so that the runtime needs neither torch nor librosa. What it was trained on is reproduced here in
numpy, step for step as ``resemblyzer.audio`` and ``resemblyzer.VoiceEncoder.embed_utterance`` do it:

1. volume normalised to −30 dBFS, raised only, never lowered (``normalize_volume``);
2. a power mel spectrogram, *not* a log one: 16 kHz, 25 ms Hann windows every 10 ms, centred
   frames, 40 mel bands of librosa's Slaney scale with Slaney area normalisation;
3. partial utterances of 160 frames (1.6 s), 1.3 of them per second of audio, the audio
   zero-padded to the last one; each gives an L2-normed embedding, and the span's embedding is
   their mean, L2-normed again. A span shorter than 1.6 s is one zero-padded partial.

Not reproduced: resemblyzer's webrtcvad silence trimming. The spans embedded here are the
recognizer's words of one turn, joined, so long silences are already gone, and webrtcvad would be
one more native dependency for nothing.

Centred frames are padded by reflection, as the librosa the encoder was trained with did (librosa
0.10 changed its default to zeros; only the first and last two frames differ).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = [
    "EMBEDDING_SIZE",
    "MEL_CHANNELS",
    "PARTIAL_FRAMES",
    "SAMPLE_RATE",
    "SpeakerEncoder",
    "cosine",
    "mel_filterbank",
    "mel_spectrogram",
    "normalize_volume",
    "partial_slices",
    "shipped_encoder_path",
]

SAMPLE_RATE = 16000
MEL_CHANNELS = 40
WINDOW_SAMPLES = SAMPLE_RATE * 25 // 1000  # 400: the FFT size as well
HOP_SAMPLES = SAMPLE_RATE * 10 // 1000  # 160
PARTIAL_FRAMES = 160  # 1.6 s: the length the encoder was trained on
PARTIALS_PER_SECOND = 1.3
MIN_COVERAGE = 0.75  # a last partial less covered than this is dropped (unless it is the only one)
EMBEDDING_SIZE = 256
TARGET_DBFS = -30.0
INT16_MAX = 2**15 - 1
MODEL_FILE = "voice_encoder.onnx"


def shipped_encoder_path() -> Path:
    """The speaker encoder that ships with livecap (``models/speaker/voice_encoder.onnx``)."""
    import livecap_models

    return Path(livecap_models.__file__).parent / "speaker" / MODEL_FILE


def normalize_volume(audio: np.ndarray, target_dbfs: float = TARGET_DBFS) -> np.ndarray:
    """``audio`` scaled up to ``target_dbfs`` RMS; louder audio (and silence) is left as it is."""
    rms = float(np.sqrt(np.mean((audio.astype(np.float64) * INT16_MAX) ** 2))) if len(audio) else 0.0
    if rms == 0.0:
        return audio
    change_db = target_dbfs - 20 * np.log10(rms / INT16_MAX)
    if change_db < 0:
        return audio
    return (audio * 10 ** (change_db / 20)).astype(np.float32)


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear to 1 kHz (3 mels per 200 Hz), logarithmic above."""
    hz = np.asarray(hz, dtype=np.float64)
    mel = hz / (200.0 / 3)
    log_region = hz >= 1000.0
    mel[log_region] = 15.0 + np.log(hz[log_region] / 1000.0) / (np.log(6.4) / 27.0)
    return mel


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, dtype=np.float64)
    hz = mel * (200.0 / 3)
    log_region = mel >= 15.0
    hz[log_region] = 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel[log_region] - 15.0))
    return hz


def mel_filterbank(
    rate: int = SAMPLE_RATE, n_fft: int = WINDOW_SAMPLES, bands: int = MEL_CHANNELS
) -> np.ndarray:
    """(bands, n_fft // 2 + 1) triangular filters from 0 Hz to Nyquist, each of unit area on the
    mel scale: ``librosa.filters.mel(sr=rate, n_fft=n_fft, n_mels=bands)`` (htk=False, norm="slaney")."""
    fft_hz = np.fft.rfftfreq(n_fft, d=1.0 / rate)
    edges_hz = _mel_to_hz(
        np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([rate / 2]))[0], bands + 2)
    )
    widths = np.diff(edges_hz)
    ramps = edges_hz[:, None] - fft_hz[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    filters = np.maximum(0.0, np.minimum(rising, falling))
    filters *= (2.0 / (edges_hz[2:] - edges_hz[:-2]))[:, None]
    return filters.astype(np.float32)


_FILTERBANK = mel_filterbank()
# scipy's get_window("hann", 400), librosa's window: periodic (fftbins=True), not symmetric.
_WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(WINDOW_SAMPLES) / WINDOW_SAMPLES)).astype(np.float32)


def mel_spectrogram(audio: np.ndarray) -> np.ndarray:
    """(frames, 40) power mel spectrogram, frame t centred on sample 160 t: 1 + len // 160 frames."""
    audio = np.asarray(audio, dtype=np.float32)
    half = WINDOW_SAMPLES // 2
    # Reflection needs more than half a window of audio; shorter audio is padded with zeros.
    padded = np.pad(audio, half, mode="reflect" if len(audio) > half else "constant")
    frames = np.lib.stride_tricks.sliding_window_view(padded, WINDOW_SAMPLES)[::HOP_SAMPLES]
    power = np.abs(np.fft.rfft(frames * _WINDOW, axis=1)) ** 2
    return (power.astype(np.float32) @ _FILTERBANK.T).astype(np.float32)


def partial_slices(samples: int, rate: float = PARTIALS_PER_SECOND) -> list[slice]:
    """The mel-frame slices of the partial utterances of ``samples`` samples of audio, 160 frames
    each, ``rate`` per second; resemblyzer's ``compute_partial_slices`` (min coverage 0.75). They
    may reach past the audio's end: pad it with zeros to ``stop * 160`` samples."""
    frames = int(np.ceil((samples + 1) / HOP_SAMPLES))
    step = int(np.round((SAMPLE_RATE / rate) / HOP_SAMPLES))
    if not 0 < step <= PARTIAL_FRAMES:
        raise ValueError(f"{rate} partials per second do not tile the audio with 1.6 s partials")
    starts = range(0, max(1, frames - PARTIAL_FRAMES + step + 1), step)
    slices = [slice(start, start + PARTIAL_FRAMES) for start in starts]
    last = slices[-1]
    coverage = (samples - last.start * HOP_SAMPLES) / (PARTIAL_FRAMES * HOP_SAMPLES)
    if coverage < MIN_COVERAGE and len(slices) > 1:
        slices.pop()
    return slices


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0 where either is all zeros)."""
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norms) if norms > 0 else 0.0


class SpeakerEncoder:
    """The voice encoder in ONNX Runtime: ``embed(audio)`` gives a span's L2-normed embedding."""

    def __init__(self, path: str | Path | None = None, threads: int = 1):
        from engine.onnx_runtime import import_onnxruntime

        ort = import_onnxruntime()  # with its telemetry off: nothing leaves the computer
        self.path = Path(path) if path is not None else shipped_encoder_path()
        if not self.path.is_file():
            raise FileNotFoundError(f"the speaker encoder {self.path} is missing: reinstall livecap")
        options = ort.SessionOptions()
        # One thread by default: embeddings run beside the recognizer and the punctuation model,
        # and a span costs a few milliseconds (training/speaker_measure.py).
        options.intra_op_num_threads = max(1, int(threads))
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name

    def embed_frames(self, mels: np.ndarray) -> np.ndarray:
        """(batch, frames, 40) mel frames → (batch, 256) L2-normed embeddings, one per row."""
        (embeddings,) = self._session.run(None, {self._input: np.ascontiguousarray(mels, dtype=np.float32)})
        # An all-silent partial has a zero vector before its norm: NaN from the model, 0 here.
        return np.nan_to_num(embeddings)

    def partial_mels(self, audio: np.ndarray) -> np.ndarray:
        """(partials, 160, 40): the mel frames of the span's partial utterances, as the model reads
        them (volume normalised, zero-padded to the last partial)."""
        audio = _as_float(audio)
        if len(audio) == 0:
            raise ValueError("cannot embed an empty span of audio")
        audio = normalize_volume(audio)
        slices = partial_slices(len(audio))
        end = slices[-1].stop * HOP_SAMPLES
        if end >= len(audio):
            audio = np.pad(audio, (0, end - len(audio)))
        mel = mel_spectrogram(audio)
        return np.stack([mel[s] for s in slices])

    def embed(self, audio: np.ndarray) -> np.ndarray:
        """The (256,) embedding of a span of speech: 16 kHz mono, float in [−1, 1] or int16."""
        partials = self.embed_frames(self.partial_mels(audio))
        mean = partials.mean(axis=0)
        norm = float(np.linalg.norm(mean))
        return (mean / norm if norm > 0 else mean).astype(np.float32)


def _as_float(audio: np.ndarray) -> np.ndarray:
    audio = np.asarray(audio)
    if audio.dtype == np.int16:
        return audio.astype(np.float32) / 32768.0  # as soundfile and librosa read 16-bit PCM
    return audio.astype(np.float32, copy=False)
