"""Voice activity, frame by frame, with the Silero VAD that faster-whisper's wheel ships.

faster-whisper runs Silero over a whole file at once; a live stream needs the same network fed
as the audio arrives, with its recurrent state carried from one chunk to the next. So this
holds the ONNX session itself and keeps the state and the last 64 samples of context between
calls, exactly as faster-whisper's ``SileroVADModel`` prepares each 512-sample frame.

Cost: one small inference per 32 ms frame, batched per chunk (well under 1 % of a core); none for
a chunk quieter than ``QUIET``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.recognizers.base import RecognizerError

FRAME = 512  # samples per frame at 16 kHz: what the v6 network was trained on
CONTEXT = 64  # samples of the previous frame each frame is fed with
# Below this level (RMS, full scale 1: -60 dBFS) a chunk is silence without asking the network: an
# idle source hands out zeros, and a quiet room with the microphone open is about as low. Idle is
# the usual state of a meeting's two sides, so its cost matters; speech is 20 dB louder and more.
QUIET = 10 ** (-60 / 20)


def silero_model_path() -> Path:
    """The Silero VAD network in the installed faster-whisper package."""
    import importlib.util

    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise RecognizerError(
            "The Whisper recognizer needs the faster-whisper package: "
            "reinstall livecap (`pip install livecap`) or choose `--recognizer pocketsphinx`"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "silero_vad_v6.onnx"
    if not path.is_file():
        raise RecognizerError(
            f"{path} is missing: reinstall faster-whisper (`pip install --force-reinstall faster-whisper`)"
        )
    return path


class StreamingVad:
    """Speech probabilities for 16 kHz float audio fed in chunks of any size."""

    def __init__(self, path: Path | None = None):
        from engine.onnx_runtime import import_onnxruntime

        onnxruntime = import_onnxruntime()  # with its telemetry off: nothing leaves the computer
        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.log_severity_level = 4
        self._session = onnxruntime.InferenceSession(
            str(path or silero_model_path()), providers=["CPUExecutionProvider"], sess_options=options
        )
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)
        self._pending = np.zeros(0, dtype=np.float32)

    def probabilities(self, audio: np.ndarray) -> np.ndarray:
        """One speech probability per complete 512-sample frame; a partial frame waits for the next call."""
        audio = np.concatenate([self._pending, audio.astype(np.float32, copy=False)])
        frames = len(audio) // FRAME
        self._pending = audio[frames * FRAME :]
        if frames == 0:
            return np.zeros(0, dtype=np.float32)
        batch = audio[: frames * FRAME].reshape(frames, FRAME)
        if float(np.sqrt(np.mean(batch * batch))) < QUIET:
            # Nothing to hear: the network starts afresh after it, as at the start of a stream.
            self.reset()
            self._pending = audio[frames * FRAME :]
            return np.zeros(frames, dtype=np.float32)
        previous = np.vstack([self._context[None, :], batch[:-1, -CONTEXT:]])
        self._context = batch[-1, -CONTEXT:].copy()
        output, self._h, self._c = self._session.run(
            None, {"input": np.hstack([previous, batch]), "h": self._h, "c": self._c}
        )
        return np.asarray(output, dtype=np.float32).reshape(-1)[:frames]
