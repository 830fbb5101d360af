"""The one recognizer factory, ``open_recognizer``: the kind asked for (``kinds``), or the best
one here: a Vosk model the user installed, else Whisper tiny.en (embedded), and the built-in
PocketSphinx only where Whisper cannot keep up with live speech on this CPU.

The choice comes back with a notice for the user (empty when there is nothing to say), which
the UI and the CLI show: falling back silently to a weaker recognizer would leave people
wondering why captions are poor.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from engine.recognizers.accuracy import ACCURACY_OPTION, Accuracy, accuracy, wants_base
from engine.recognizers.base import Recognizer, RecognizerError, WayOut
from engine.recognizers.kinds import (
    AUTO,
    LANGUAGE_KINDS,
    LANGUAGE_PACK,
    POCKETSPHINX,
    VOSK,
    WHISPER,
    WHISPER_BASE,
    RecognizerKind,
    recognizer_kind,
)
from engine.recognizers.vosk_rec import check_vosk_model
from engine.recognizers.whisper_model import (
    installed_whisper_folders,
    is_whisper_model,
    looks_like_whisper_model,
)
from engine.vosk_models.catalogue import DEFAULT_ENGLISH
from engine.vosk_models.layout import incomplete_model_folders, installed_model_folders

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


def resolve_model_folder(
    model: str | Path, models_dir: Path | None, kind: RecognizerKind | None = None
) -> Path:
    """``model`` as a folder path, or as the name of a model installed in ``models_dir``: checked
    as ``kind``'s, or (None) as whichever kind's its files say."""
    candidate = Path(model).expanduser()
    if not (candidate.exists() or models_dir is None or len(candidate.parts) > 1):
        named = Path(models_dir) / str(model)
        if named.exists():
            candidate = named
        else:
            installed = installed_model_folders(models_dir) + installed_whisper_folders(models_dir)
            names = ", ".join(p.name for p in installed) or "none"
            what = f"{kind.title} model" if kind is not None else "model"
            raise RecognizerError(
                f"No {what} named {model!r} in {models_dir} (installed: {names}); "
                f"run `livecap models download {model}` or pass a model folder"
            )
    if kind is WHISPER or (kind is None and looks_like_whisper_model(candidate)):
        from engine.recognizers.whisper_model import check_whisper_model

        return check_whisper_model(candidate)
    return check_vosk_model(candidate)


class Opened(NamedTuple):
    """What ``open_recognizer`` gives: the recognizer, the notice to show ("" when there is none),
    and what the user can do about a model that would not load (``fall_back``; () otherwise)."""

    recognizer: Recognizer
    notice: str
    ways_out: tuple[WayOut, ...] = ()


_USER_MODELS = object()  # ``models_dir``'s default: the per-user models folder


def open_recognizer(
    kind: str | None = AUTO,
    model: str | Path | None = None,
    *,
    models_dir=_USER_MODELS,
    live: bool = True,
    isolated: bool = False,
    verbose: bool = False,
    fall_back: bool = False,
    options: Mapping | None = None,
) -> Opened:
    """A ready recognizer of ``kind`` (a name in ``kinds.CHOICES``; "auto" or None: the best one
    here), with its notice: the one recognizer factory of every front end and measuring tool.

    ``model``: a model folder, or the name of one in ``models_dir`` (default: the per-user models
    folder; None: none, the built-in models only); None or "": the kind's default. ``live=False``
    is for a whole file: PocketSphinx then runs its final passes, Whisper decodes windows once.
    ``isolated``: a kind whose library holds the GIL while it decodes runs in a child process
    (``IsolatedRecognizer``), waited for here so that its model's errors show now: for a caller
    whose other threads must never wait on it, like a GUI (docs/PERFORMANCE.md). ``verbose``:
    Kaldi's log goes to stderr. ``options``: the kind's own settings (``kinds``' openers), and
    under ``ACCURACY_OPTION`` the session's ``Accuracy`` (default "fast"): where it asks for
    Whisper base and the built-in Whisper would run, base runs told English, or tiny.en with a
    notice saying why not (``accuracy``).

    ``fall_back``: a model that will not load does not stop the captions: the built-in choice
    runs, and the ways out come back for the front end to offer (the window's buttons); without
    it, ``RecognizerError`` says what is wrong (the command line)."""
    if models_dir is _USER_MODELS:
        from engine.files import paths

        models_dir = paths.recognizer_models_dir()
    chosen = None if kind in (None, AUTO) else recognizer_kind(kind)
    options = dict(options or {})
    try:
        wanted = accuracy(options.pop(ACCURACY_OPTION, Accuracy.FAST))
    except ValueError as exc:
        raise RecognizerError(str(exc)) from None
    settings = {
        "live": live,
        "isolated": isolated,
        "verbose": verbose,
        "options": options,
        "accuracy": wanted,
    }
    try:
        recognizer, notice = _choose(chosen, model or None, models_dir, **settings)
        return Opened(recognizer, notice)
    except RecognizerError as exc:
        # Nothing to fall back on for another language: the built-in recognizers hear English.
        if not fall_back or chosen is not None and (chosen.last_resort or chosen in LANGUAGE_KINDS):
            raise
        if not exc.ways_out:
            raise
        # The built-in choice: Whisper, or PocketSphinx where Whisper is missing or too slow.
        recognizer, _ = _choose(None, None, None, **settings)
        reason = str(exc).split(". ", 1)[0].split("; ", 1)[0]
        return Opened(recognizer, f"{reason}. Captions use the built-in recognizer meanwhile.", exc.ways_out)


def _choose(
    kind: RecognizerKind | None, model: str | Path | None, models_dir: Path | None, **settings
) -> tuple[Recognizer, str]:
    """(recognizer, notice): ``kind``, or the best one here (None)."""
    live = settings["live"]
    wanted = settings.pop("accuracy")
    if kind is not None and not kind.takes_model:
        # Its model ships inside the wheel or its pack; ``model`` is for the kinds that take one.
        where = "language pack's" if LANGUAGE_PACK in kind.models else "built-in"
        notice = "" if model is None else f"{kind.title} uses its {where} model; ignoring model {model}."
        recognizer = _open(kind, None, **settings)
        if live and kind.live_load_limit is not None:
            _refuse_if_too_slow(kind, recognizer, settings["options"] or {})
        return recognizer, notice
    if kind is not None and kind.built_in_model:  # the model named, else its own
        if model is None and kind is WHISPER and wants_base(wanted, live, tiny_named=True):
            base, notice = _english_base(wanted, **settings)
            return (base, notice) if base is not None else (_open(WHISPER, None, **settings), notice)
        folder = resolve_model_folder(model, models_dir, kind) if model is not None else None
        return _open(kind, folder, **settings), ""
    if model is not None:
        path = resolve_model_folder(model, models_dir, kind)
        return _open(kind or (WHISPER if is_whisper_model(path) else VOSK), path, **settings), ""
    installed = installed_model_folders(models_dir) if models_dir is not None else []
    if installed:
        return _open(VOSK, installed[0], **settings), ""
    broken = incomplete_model_folders(models_dir) if models_dir is not None else []
    # Incomplete folders are never picked (libvosk would fail on them), but not in silence.
    why = (
        f" ({broken[0][0].name} is incomplete: {'; '.join(broken[0][1])}; see `livecap models list`)"
        if broken
        else ""
    )
    if kind is VOSK:
        raise RecognizerError(
            f"No Vosk model installed in {models_dir}{why}: "
            f"run `livecap models download {DEFAULT_ENGLISH}` or pass a model folder"
        )
    user_whisper = installed_whisper_folders(models_dir)
    not_base = ""  # why Whisper base, asked for, does not run
    if not user_whisper and wants_base(wanted, live):
        base, not_base = _english_base(wanted, **settings)
        if base is not None:
            return base, why.strip(" ()")
    try:
        whisper = _open(WHISPER, user_whisper[0] if user_whisper else None, **settings)
    except RecognizerError as exc:
        return _open(POCKETSPHINX, None, **settings), f"{exc}. {FALLBACK_NOTICE}{why}"
    if live:
        # tiny.en's own probe runs where base was refused too: a CPU too slow for base may be too
        # slow for tiny.en as well.
        share = live_load(whisper)
        if share > REALTIME_LIMIT:
            whisper.close()
            return _open(POCKETSPHINX, None, **settings), (
                f"Whisper cannot keep up with live speech on this computer (one decode takes "
                f"{share:.0%} of the {whisper.options.cadence:g} s between decodes): using the built-in "
                f"PocketSphinx recognizer; `--recognizer whisper` forces Whisper, a Vosk model "
                f"(`livecap models download {DEFAULT_ENGLISH}`) is faster."
            )
    return whisper, "; ".join(n for n in (why.strip(" ()") + ": using Whisper" if why else "", not_base) if n)


def _english_base(wanted: Accuracy, **settings) -> tuple[Recognizer | None, str]:
    """(Whisper base told English, "") where the language pack is installed and, live, keeps up
    with speech here; else (None, one line saying why tiny.en captions instead; none where "auto"
    found no pack: nothing was asked of it). The caller opens tiny.en, with its own checks."""
    from engine.recognizers.language_pack import INSTALL, language_pack_status

    live = settings["live"]
    if not language_pack_status().installed:
        notice = (
            ""
            if wanted is Accuracy.AUTO
            else (f"Accuracy needs Whisper base, the language pack ({INSTALL}): captions use Whisper tiny.en")
        )
        return None, notice
    options = {"language": "en", **(settings["options"] or {})}
    try:
        base = _open(WHISPER_BASE, None, **{**settings, "options": options})
    except RecognizerError as exc:  # a damaged pack, say: captions go on, and the user hears why
        return None, f"{str(exc).rstrip('.')}: captions use Whisper tiny.en"
    if not live:
        return base, ""
    share = live_load(base)
    if share <= WHISPER_BASE.live_load_limit:
        return base, ""
    base.close()
    return None, (
        f"Whisper base cannot keep up with live speech on this computer (one decode takes {share:.0%} "
        f"of the {WHISPER_BASE.live_cadence:g} s between decodes): live captions use Whisper tiny.en; "
        "`livecap transcribe` still uses base"
    )


def _refuse_if_too_slow(kind: RecognizerKind, recognizer, options) -> None:
    """``RecognizerError`` (``recognizer`` closed) where one timed decode costs more than the kind's
    limit of the cadence: captions would trail the speaker further and further, so the user hears
    now what else there is (English captions, or the recording transcribed afterwards)."""
    share = live_load(recognizer)
    if share <= kind.live_load_limit:
        return
    recognizer.close()
    code = options.get("language")
    language = f"--language {code}" if code else "--language auto"
    if options.get("task") == "translate":
        language += " --translate"
    raise RecognizerError(
        f"{kind.title} cannot keep up with live speech on this computer (one decode takes {share:.0%} of "
        f"the {recognizer.options.cadence:g} s between decodes): caption English instead (--language en), "
        f"or record and transcribe afterwards (`livecap transcribe FILE {language}`)"
    )


def _open(
    kind: RecognizerKind, folder: Path | None, live: bool, isolated: bool, verbose: bool, options
) -> Recognizer:
    settings = {"folder": folder, "live": live, "verbose": verbose, "options": dict(options or {})}
    if not (isolated and kind.holds_gil):
        return kind.opener(**settings)
    from engine.recognizers.isolated import IsolatedRecognizer

    recognizer = IsolatedRecognizer(kind.opener, kind.name, **settings)
    try:
        recognizer.wait_ready()
    except BaseException:
        recognizer.close()
        raise
    return recognizer


_DECODE_SECONDS: dict[tuple[str, int], float] = {}


def live_load(recognizer) -> float:
    """The share of the cadence one live decode takes on this CPU (``time_decode``; measured once
    per model and thread count in a process)."""
    key = (str(recognizer.model_path), recognizer.threads)
    if key not in _DECODE_SECONDS:
        _DECODE_SECONDS[key] = recognizer.time_decode()
    return _DECODE_SECONDS[key] / recognizer.options.cadence
