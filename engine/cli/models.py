"""``livecap devices`` and ``livecap models list|download|remove|path``.

Listing devices must work on a machine with no sound hardware or no sound
server at all (a fresh VM, a container): each half says what it could not do
in one line and the command still succeeds, because "there is nothing" is a
correct answer to "what is there".
"""

from __future__ import annotations

import sys

from engine.cli.common import CliError, warn
from engine.files.sizes import format_bytes


def cmd_devices(args) -> int:
    print("Microphones (livecap listen --source mic --device NAME):")
    try:
        from engine.audio.microphone import list_input_devices

        devices = list_input_devices()
    except Exception as exc:  # no PortAudio library (OSError), or PortAudio failing to start
        print(f"  unavailable: {exc}")
    else:
        if not devices:
            print("  none found (no microphone is connected, or it is disabled)")
        for d in devices:
            mark = " (default)" if d.is_default else ""
            print(f"  {d.name}{mark}  [{d.hostapi}, {d.channels} ch, {d.default_samplerate:.0f} Hz]")
    print("System audio (livecap listen --source system --device NAME):")
    server_problem = ""
    try:
        from engine.audio.system_audio import list_monitor_sources

        monitors = list_monitor_sources()
    except Exception as exc:  # AudioError: no pactl, no server, not Linux
        server_problem = str(exc)
        print(f"  unavailable: {exc}")
    else:
        if not monitors:
            print("  none found (the sound server reports no output to record)")
        for m in monitors:
            print(f"  {m.name}  ({m.description})")
    print("Applications playing sound (livecap listen --source app:NAME):")
    try:
        from engine.audio.applications import list_applications

        apps = list_applications()
    except Exception as exc:  # AudioError: no pactl, no server, not Linux
        # The same sound server problem twice in a row is one problem to the reader.
        print("  unavailable, as above" if str(exc) == server_problem else f"  unavailable: {exc}")
    else:
        if not apps:
            print("  none playing now (start the call or the video, then list again)")
        for app in apps:
            state = ", paused" if app.corked else ""
            print(f"  {app.name}  (stream {app.index}, playing to {app.sink}{state})")
    return 0


def cmd_models(args) -> int:
    action = getattr(args, "action", None)
    if action == "download":
        return _download(args.name, getattr(args, "replace", False))
    if action == "remove":
        return _remove(args.name)
    if action == "path":
        from engine.files import paths

        folder = paths.recognizer_models_dir()
        try:  # a printed folder should be one the user can open and copy a model into
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            warn(f"{folder} does not exist and cannot be created: {exc.strerror or exc}")
        print(folder)
        return 0
    if getattr(args, "languages", False):
        return _languages()
    return _list(getattr(args, "lang", None))


def _speaks(code: str | None, lang: str | None) -> bool:
    """Whether a model of language ``code`` is listed for ``--lang lang``: "en" lists en-us and
    en-in, and a model for every English ("en") is listed for en-us too. A model whose language
    is unknown (None) is listed whatever the filter, since it may be that one."""
    if lang is None or code is None:
        return True
    code, lang = code.lower(), lang.lower()
    return code.startswith(lang) or ("-" not in code and lang.split("-")[0] == code)


def _list(lang: str | None) -> int:
    from engine.files import paths
    from engine.recognizers.base import RecognizerError
    from engine.recognizers.language_pack import MODEL_SIZE, PACK_NAME
    from engine.recognizers.whisper_model import (
        SHIPPED_NAME,
        SHIPPED_SIZE,
        installed_whisper_folders,
        is_whisper_model,
        shipped_model_folder,
    )
    from engine.vosk_models.catalogue import (
        CatalogueError,
        incomplete_models,
        installed_models,
        load_catalogue,
        model_language,
    )

    try:
        entries = load_catalogue()
        installed = installed_models()
        incomplete = incomplete_models()
    except CatalogueError as exc:
        raise CliError(str(exc)) from None
    marks = {m.name: "* " for m in installed} | {m.name: "! " for m in incomplete}
    shown = [e for e in entries if _speaks(e.lang, lang)]
    by_hand = [m for m in installed if m.entry is None and _speaks(model_language(m.path), lang)]
    # A Whisper folder named *.en is English-only; any other Whisper model hears every language.
    whisper = [
        f
        for f in installed_whisper_folders(paths.recognizer_models_dir())
        if _speaks("en" if f.name.endswith(".en") else None, lang)
    ]
    try:
        built_in = _speaks("en", lang) and is_whisper_model(shipped_model_folder())
    except RecognizerError:  # the package is missing: nothing built in to list
        built_in = False
    broken = [m for m in incomplete if _speaks(model_language(m.path), lang)]
    pack_row = _pack_row(lang)
    if lang is not None and not (shown or by_hand or whisper or built_in or broken or pack_row):
        raise CliError(
            f"no model for language {lang!r}; languages: {', '.join(sorted({e.lang for e in entries}))}"
        )
    width = max((len(n) for n in [e.name for e in shown] + [SHIPPED_NAME]), default=10)
    print(f"{'':2}{'NAME':{width}}  {'LANGUAGE':18} {'SIZE':>9}  TYPE")
    for e in shown:
        size = format_bytes(e.size)
        print(f"{marks.get(e.name, '  ')}{e.name:{width}}  {e.lang_text[:18]:18} {size:>9}  {e.type}")
    for m in by_hand:
        print(f"* {m.name:{width}}  (added by hand: {m.path})")
    for folder in whisper:
        print(f"* {folder.name:{width}}  (Whisper, added by hand: {folder})")
    if built_in:
        print(f"* {SHIPPED_NAME:{width}}  {'English':18} {format_bytes(SHIPPED_SIZE):>9}  Whisper, built in")
    if pack_row:
        joined, language, kind = pack_row
        size = format_bytes(MODEL_SIZE)
        print(f"{'* ' if joined else '  '}{PACK_NAME:{width}}  {language:18} {size:>9}  {kind}")
    for m in broken:
        # A folder that is not loadable is skipped by every recognizer choice; say why, and how to
        # repair it, rather than leave the user wondering where their model went.
        fix = f"livecap models download {m.name}, or " if m.entry is not None else ""
        print(f"! {m.name:{width}}  incomplete: {'; '.join(m.problems)} ({m.path})")
        print(f"  {'':{width}}  {fix}livecap models remove {m.name}")
    count = sum(e.name in {m.name for m in installed} for e in shown) + len(by_hand) + len(whisper) + built_in
    count += bool(pack_row and pack_row[0])
    problems = f", {len(broken)} incomplete (!)" if broken else ""
    print(
        f"\n* installed. {count} installed{problems}; "
        f"download one with `livecap models download NAME`, NAME from the list above."
    )
    return 0


def _pack_row(lang: str | None) -> tuple[bool, str, str] | None:
    """(joined, language column, type column) of the language pack's line, for ``--lang lang``;
    None where the pack hears no such language."""
    from engine.recognizers.language_pack import INSTALL, LANGUAGES, language_pack_status

    if lang is not None and lang.lower().split("-")[0] not in LANGUAGES:
        return None
    language = "multilingual" if lang is None else LANGUAGES[lang.lower().split("-")[0]]
    status = language_pack_status()
    if status.bundled and status.joined:
        state = "language pack, bundled with the app"
    elif status.joined:
        state = "language pack, unpacked"
    elif status.installed:
        state = "language pack, installed (unpacked at first use)"
    else:
        state = f"language pack, not installed: {INSTALL}"
    return status.joined, language, f"Whisper base, {state}"


def _languages() -> int:
    """The language codes `--language` takes, with the pack's state."""
    from engine.recognizers.language_pack import INSTALL, LANGUAGES, language_pack_status

    for code, name in sorted(LANGUAGES.items()):
        print(f"{code:4} {name}")
    status = language_pack_status()
    state = "installed" if status.installed else f"not installed: {INSTALL}"
    print(
        f"\n`--language CODE` (or `auto`) captions these with Whisper base, the language pack ({state}); "
        "`--translate` gives English captions of them."
    )
    return 0


def _download(name: str, replace: bool = False) -> int:
    from engine.cli.progress import ProgressBar
    from engine.vosk_models.catalogue import CatalogueError, UnknownModelError, find
    from engine.vosk_models.install import DownloadError, install_model

    try:
        entry = find(name)
    except (UnknownModelError, CatalogueError) as exc:
        raise CliError(str(exc)) from None
    print(f"Downloading {entry.name} ({format_bytes(entry.size)}) from {entry.url}", file=sys.stderr)
    bar = ProgressBar(entry.name)

    def progress(done: int, total: int | None) -> None:
        amount = format_bytes(done) + (f" of {format_bytes(total)}" if total else "")
        bar.update(done, total, amount)

    try:
        folder = install_model(
            entry,
            progress=progress,
            notify=lambda message: print(f"livecap: {message}", file=sys.stderr),
            replace=replace,
        )
    except DownloadError as exc:
        raise CliError(str(exc)) from None
    finally:
        bar.finish()
    print(f"Installed {entry.name} in {folder}", file=sys.stderr)
    return 0


def _remove(name: str) -> int:
    from engine.files import paths
    from engine.vosk_models.catalogue import installed_models, remove_model

    try:
        removed = remove_model(name)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot remove {name}: {exc.strerror or exc}") from None
    if not removed:
        names = ", ".join(m.name for m in installed_models()) or "none"
        raise CliError(
            f"no model named {name!r} is installed in {paths.recognizer_models_dir()} (installed: {names})"
        )
    print(f"Removed {name}", file=sys.stderr)
    return 0
