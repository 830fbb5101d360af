"""Choose the recognizer: Vosk when a model is installed, else the built-in PocketSphinx.

The choice comes back with a notice for the user (empty when there is nothing
to say), which the UI and the CLI show: falling back silently to the weaker
recognizer would leave people wondering why captions are poor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from engine.recognizers.base import Recognizer, RecognizerError
from engine.recognizers.vosk_rec import check_vosk_model
from engine.vosk_models.catalogue import DEFAULT_ENGLISH
from engine.vosk_models.layout import incomplete_model_folders, installed_model_folders

FALLBACK_NOTICE = (
    "No Vosk model installed: using the built-in PocketSphinx recognizer. "
    f"Run `livecap models download {DEFAULT_ENGLISH}` for better accuracy (`livecap models list`: others)."
)

Kind = Literal["vosk", "pocketsphinx"]


def resolve_vosk_model(model: str | Path, models_dir: Path | None) -> Path:
    """``model`` as a folder path, or as the name of a model installed in ``models_dir``."""
    candidate = Path(model).expanduser()
    if candidate.exists() or models_dir is None or len(candidate.parts) > 1:
        return check_vosk_model(candidate)
    named = Path(models_dir) / str(model)
    if named.exists():
        return check_vosk_model(named)
    names = ", ".join(p.name for p in installed_model_folders(models_dir)) or "none"
    raise RecognizerError(
        f"No Vosk model named {model!r} in {models_dir} (installed: {names}); "
        f"run `livecap models download {model}` or pass a model folder"
    )


def create_recognizer(
    kind: Kind | None = None,
    model: str | Path | None = None,
    models_dir: Path | None = None,
    live: bool = True,
    isolated: bool = False,
    verbose: bool = False,
) -> tuple[Recognizer, str]:
    """A ready recognizer and the notice to show (may be ""). ``live=False`` is for batch work:
    PocketSphinx then runs its final passes, which rewrite words a live caption already showed.
    ``isolated``: PocketSphinx runs in a child process (``IsolatedRecognizer``), for a caller
    whose other threads must never wait on it, like a GUI. ``verbose``: Kaldi's log goes to stderr."""
    if kind not in (None, "vosk", "pocketsphinx"):
        raise RecognizerError(f"Unknown recognizer {kind!r}: choose 'vosk' or 'pocketsphinx'")
    if kind == "pocketsphinx":
        # Its model ships inside the wheel; ``model`` is for Vosk only.
        notice = "" if model is None else f"PocketSphinx uses its built-in model; ignoring model {model}."
        return _pocketsphinx(live, isolated), notice
    if model is not None:
        path = resolve_vosk_model(model, models_dir)
    else:
        installed = installed_model_folders(models_dir) if models_dir is not None else []
        if not installed:
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
            return _pocketsphinx(live, isolated), FALLBACK_NOTICE + why
        path = installed[0]
    from engine.recognizers.vosk_rec import VoskRecognizer

    return VoskRecognizer(path, verbose=verbose), ""


def _pocketsphinx(live: bool, isolated: bool) -> Recognizer:
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    if isolated:
        from engine.recognizers.isolated import IsolatedRecognizer

        return IsolatedRecognizer(PocketSphinxRecognizer, "pocketsphinx", final_pass=not live)
    return PocketSphinxRecognizer(final_pass=not live)
