"""Choose the recognizer: a Vosk model the user installed, else Whisper tiny.en (embedded), and
the built-in PocketSphinx only where Whisper cannot keep up with live speech on this CPU.

The choice comes back with a notice for the user (empty when there is nothing to say), which
the UI and the CLI show: falling back silently to a weaker recognizer would leave people
wondering why captions are poor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from engine.recognizers.base import Recognizer, RecognizerError
from engine.recognizers.vosk_rec import check_vosk_model
from engine.recognizers.whisper_model import (
    installed_whisper_folders,
    is_whisper_model,
    looks_like_whisper_model,
)
from engine.vosk_models.catalogue import DEFAULT_ENGLISH
from engine.vosk_models.layout import incomplete_model_folders, installed_model_folders

KINDS = ("vosk", "whisper", "pocketsphinx")
Kind = Literal["vosk", "whisper", "pocketsphinx"]

# How slow a CPU may be and still run Whisper live: one timed decode's CPU time over the cadence.
# Up to the cadence, Whisper keeps its pace; beyond it, decodes space out (``SLOWDOWN_MARGIN``) and
# words show later, which still beats PocketSphinx's words (docs/QUALITY.md) up to this limit;
# past it (a decode of speech costs more than the timed one, of noise) captions trail the speaker
# by several seconds (docs/PERFORMANCE.md).
REALTIME_LIMIT = 1.5

FALLBACK_NOTICE = (
    "No Vosk model installed and Whisper is unavailable: using the built-in PocketSphinx recognizer. "
    f"Run `livecap models download {DEFAULT_ENGLISH}` for better accuracy (`livecap models list`: others)."
)


def resolve_model_folder(model: str | Path, models_dir: Path | None, kind: str | None = None) -> Path:
    """``model`` as a folder path, or as the name of a model installed in ``models_dir``."""
    candidate = Path(model).expanduser()
    if not (candidate.exists() or models_dir is None or len(candidate.parts) > 1):
        named = Path(models_dir) / str(model)
        if named.exists():
            candidate = named
        else:
            installed = installed_model_folders(models_dir) + installed_whisper_folders(models_dir)
            names = ", ".join(p.name for p in installed) or "none"
            what = {"vosk": "Vosk model", "whisper": "Whisper model"}.get(kind or "", "model")
            raise RecognizerError(
                f"No {what} named {model!r} in {models_dir} (installed: {names}); "
                f"run `livecap models download {model}` or pass a model folder"
            )
    if kind == "whisper" or (kind is None and looks_like_whisper_model(candidate)):
        from engine.recognizers.whisper_model import check_whisper_model

        return check_whisper_model(candidate)
    return check_vosk_model(candidate)


def resolve_vosk_model(model: str | Path, models_dir: Path | None) -> Path:
    """``model`` as a Vosk model folder path, or the name of one installed in ``models_dir``."""
    return resolve_model_folder(model, models_dir, "vosk")


def create_recognizer(
    kind: Kind | None = None,
    model: str | Path | None = None,
    models_dir: Path | None = None,
    live: bool = True,
    isolated: bool = False,
    verbose: bool = False,
) -> tuple[Recognizer, str]:
    """A ready recognizer and the notice to show (may be ""). ``live=False`` is for batch work:
    PocketSphinx then runs its final passes, Whisper decodes whole utterances once. ``isolated``:
    PocketSphinx runs in a child process (``IsolatedRecognizer``), for a caller whose other
    threads must never wait on it, like a GUI (Whisper and Vosk release the GIL while they
    decode). ``verbose``: Kaldi's log goes to stderr. ``model``: a Vosk or Whisper model folder,
    or the name of one in ``models_dir``."""
    if kind not in (None, *KINDS):
        raise RecognizerError(f"Unknown recognizer {kind!r}: choose 'vosk', 'whisper' or 'pocketsphinx'")
    if kind == "pocketsphinx":
        # Its model ships inside the wheel; ``model`` is for Vosk and Whisper.
        notice = "" if model is None else f"PocketSphinx uses its built-in model; ignoring model {model}."
        return _pocketsphinx(live, isolated), notice
    if kind == "whisper":
        folder = resolve_model_folder(model, models_dir, "whisper") if model is not None else None
        return _whisper(folder, live), ""
    if model is not None:
        path = resolve_model_folder(model, models_dir, kind)
        if is_whisper_model(path) and kind is None:
            return _whisper(path, live), ""
        from engine.recognizers.vosk_rec import VoskRecognizer

        return VoskRecognizer(path, verbose=verbose), ""
    installed = installed_model_folders(models_dir) if models_dir is not None else []
    if installed:
        from engine.recognizers.vosk_rec import VoskRecognizer

        return VoskRecognizer(installed[0], verbose=verbose), ""
    broken = incomplete_model_folders(models_dir) if models_dir is not None else []
    # Incomplete folders are never picked (libvosk would fail on them), but not in silence.
    why = (
        f" ({broken[0][0].name} is incomplete: {'; '.join(broken[0][1])}; see `livecap models list`)"
        if broken
        else ""
    )
    if kind == "vosk":
        raise RecognizerError(
            f"No Vosk model installed in {models_dir}{why}: "
            f"run `livecap models download {DEFAULT_ENGLISH}` or pass a model folder"
        )
    user_whisper = installed_whisper_folders(models_dir)
    try:
        whisper = _whisper(user_whisper[0] if user_whisper else None, live)
    except RecognizerError as exc:
        return _pocketsphinx(live, isolated), f"{exc}. {FALLBACK_NOTICE}{why}"
    if live:
        share = whisper_load(whisper)
        if share > REALTIME_LIMIT:
            return _pocketsphinx(live, isolated), (
                f"Whisper cannot keep up with live speech on this computer (one decode takes "
                f"{share:.0%} of the {whisper.options.cadence:g} s between decodes): using the built-in "
                f"PocketSphinx recognizer; `--recognizer whisper` forces Whisper, a Vosk model "
                f"(`livecap models download {DEFAULT_ENGLISH}`) is faster."
            )
    return whisper, (why.strip(" ()") + ": using Whisper") if why else ""


_DECODE_SECONDS: dict[tuple[str, int], float] = {}


def whisper_load(recognizer) -> float:
    """The share of the cadence one live decode takes on this CPU (``time_decode``; measured once
    per model and thread count in a process)."""
    key = (str(recognizer.model_path), recognizer.threads)
    if key not in _DECODE_SECONDS:
        _DECODE_SECONDS[key] = recognizer.time_decode()
    return _DECODE_SECONDS[key] / recognizer.options.cadence


def _whisper(folder: Path | None, live: bool) -> Recognizer:
    from engine.recognizers.whisper_rec import WhisperRecognizer

    return WhisperRecognizer(folder, live=live)


def _pocketsphinx(live: bool, isolated: bool) -> Recognizer:
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    if isolated:
        from engine.recognizers.isolated import IsolatedRecognizer

        return IsolatedRecognizer(
            PocketSphinxRecognizer, "pocketsphinx", final_pass=not live, language="en-us"
        )
    return PocketSphinxRecognizer(final_pass=not live)
