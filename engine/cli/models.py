"""``livecap devices`` and ``livecap models list|download|remove|path``.

Listing devices must work on a machine with no sound hardware or no sound
server at all (a fresh VM, a container): each half says what it could not do
in one line and the command still succeeds, because "there is nothing" is a
correct answer to "what is there".
"""

from __future__ import annotations

import sys

from engine.cli.common import CliError, warn


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
    try:
        from engine.audio.system_audio import list_monitor_sources

        monitors = list_monitor_sources()
    except Exception as exc:  # AudioError: no pactl, no server, not Linux
        print(f"  unavailable: {exc}")
    else:
        if not monitors:
            print("  none found (the sound server reports no output to record)")
        for m in monitors:
            print(f"  {m.name}  ({m.description})")
    return 0


def cmd_models(args) -> int:
    action = getattr(args, "action", None)
    if action == "download":
        return _download(args.name, getattr(args, "replace", False))
    if action == "remove":
        return _remove(args.name)
    if action == "path":
        from engine.files import paths

        folder = paths.vosk_models_dir()
        try:  # a printed folder should be one the user can open and copy a model into
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            warn(f"{folder} does not exist and cannot be created: {exc.strerror or exc}")
        print(folder)
        return 0
    return _list(getattr(args, "lang", None))


def _list(lang: str | None) -> int:
    from engine.vosk_models.catalogue import (
        CatalogueError,
        incomplete_models,
        installed_models,
        load_catalogue,
    )

    try:
        entries = load_catalogue()
        installed = installed_models()
        incomplete = incomplete_models()
    except CatalogueError as exc:
        raise CliError(str(exc)) from None
    marks = {m.name: "* " for m in installed} | {m.name: "! " for m in incomplete}
    shown = [e for e in entries if lang is None or e.lang.lower().startswith(lang.lower())]
    if lang is not None and not shown:
        raise CliError(
            f"no catalogued model for language {lang!r}; languages: "
            f"{', '.join(sorted({e.lang for e in entries}))}"
        )
    width = max((len(e.name) for e in shown), default=10)
    print(f"{'':2}{'NAME':{width}}  {'LANGUAGE':18} {'SIZE':>8}  TYPE")
    for e in shown:
        print(f"{marks.get(e.name, '  ')}{e.name:{width}}  {e.lang_text[:18]:18} {e.size_text:>8}  {e.type}")
    for m in installed:
        if m.entry is None:
            print(f"* {m.name:{width}}  (added by hand: {m.path})")
    from engine.files import paths
    from engine.recognizers.whisper_model import SHIPPED_NAME, installed_whisper_folders

    for folder in installed_whisper_folders(paths.vosk_models_dir()):
        print(f"* {folder.name:{width}}  (Whisper, added by hand: {folder})")
    print(f"  {SHIPPED_NAME:{width}}  {'English':18} {'76M':>8}  Whisper, built in")
    for m in incomplete:
        # A folder that is not loadable is skipped by every recognizer choice; say why, and how to
        # repair it, rather than leave the user wondering where their model went.
        fix = f"livecap models download {m.name}, or " if m.entry is not None else ""
        print(f"! {m.name:{width}}  incomplete: {'; '.join(m.problems)} ({m.path})")
        print(f"  {'':{width}}  {fix}livecap models remove {m.name}")
    broken = f", {len(incomplete)} incomplete (!)" if incomplete else ""
    print(
        f"\n* installed. {len(installed)} installed{broken}; "
        f"download one with `livecap models download NAME`, NAME from the list above."
    )
    return 0


def _download(name: str, replace: bool = False) -> int:
    from engine.cli.progress import ProgressBar, format_bytes
    from engine.vosk_models.catalogue import CatalogueError, UnknownModelError, find
    from engine.vosk_models.install import DownloadError, install_model

    try:
        entry = find(name)
    except (UnknownModelError, CatalogueError) as exc:
        raise CliError(str(exc)) from None
    print(f"Downloading {entry.name} ({entry.size_text}) from {entry.url}", file=sys.stderr)
    bar = ProgressBar(entry.name)

    def progress(done: int, total: int | None) -> None:
        amount = f"{format_bytes(done)}" + (f" of {format_bytes(total)}" if total else "")
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
            f"no model named {name!r} is installed in {paths.vosk_models_dir()} (installed: {names})"
        )
    print(f"Removed {name}", file=sys.stderr)
    return 0
