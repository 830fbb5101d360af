"""``livecap recover``: save the transcripts of sessions that ended in a crash, or of any kept one.

The journals are pruned first (``prune_journals``, ``--keep-days``). ``--list`` shows every
kept session, finished or not. Without names, the unfinished ones are saved; with names (or
``--all``), those sessions, whatever their state. Each is saved re-punctuated by the offline
decoder (``repunctuate``), as the window's Restore shows it, and an unfinished one is then
marked recovered so the next run does not offer it again.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.common import CliError, load_model, warn

EXTENSIONS = {"txt": ".txt", "srt": ".srt", "vtt": ".vtt", "json": ".json"}


def journal_folders(args) -> list[Path]:
    """Where to look: ``--journal-dir``, else the per-user folder and the private fallbacks a
    session uses when that one cannot be written."""
    from engine.files import paths
    from engine.files.private_folder import owned_by_user
    from engine.transcript.journal_folder import fallback_journal_dirs

    if args.journal_dir is not None:
        return [args.journal_dir]
    # A fallback in a shared place counts only when it is this user's own (nobody else's files).
    fallbacks = [folder for folder, owner, _ in fallback_journal_dirs() if owned_by_user(owner)]
    return [paths.journal_dir(), *fallbacks]


def state(contents) -> str:
    if contents.closed:
        return "ended cleanly"
    return "recovered" if contents.recovered else "unfinished"


def kept_sessions(folders: list[Path], keep_days) -> list:
    """Every kept session's contents (after pruning), oldest first; running sessions left out."""
    from engine.transcript.journal import in_use, journals, read_journal
    from engine.transcript.journal_folder import prune_journals

    found = []
    for folder in folders:
        prune_journals(folder, keep_days)
        for path in journals(folder):
            if in_use(path):
                continue
            try:
                found.append(read_journal(path))
            except OSError as exc:
                warn(f"cannot read the journal {path}: {exc.strerror or exc}")
    return found


def chosen(found: list, args) -> list:
    if args.all:
        return found
    if not args.sessions:
        return [c for c in found if state(c) == "unfinished"]
    by_name = {}
    for contents in found:
        by_name[contents.path.name] = by_name[contents.path.stem] = contents
    missing = [name for name in args.sessions if name not in by_name]
    if missing:
        raise CliError(f"no kept session named {missing[0]}; livecap recover --list shows them")
    return [by_name[name] for name in args.sessions]


def cmd_recover(args) -> int:
    folders = journal_folders(args)
    found = kept_sessions(folders, args.keep_days)
    if args.list:
        if not found:
            print(f"No kept sessions in {folders[0]}.")
        for contents in found:
            print(describe(contents))
        return 0
    selected = chosen(found, args)
    if not selected:
        print(
            f"Nothing to recover: every session in {folders[0]} ended cleanly "
            f"({len(found)} kept; livecap recover --list shows them)."
        )
        return 0
    out_dir = Path(args.output_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
    model = load_model(args.model_dir, args.threads)
    for contents in selected:
        print(describe(contents))
        save(contents, model, args.format, out_dir)
    return 0


def describe(contents) -> str:
    started = contents.started or "unknown start"
    source = contents.header.get("source", "?")
    words = len(contents.transcript.words)
    return f"{contents.path.name}: {words} words, started {started}, from {source} ({state(contents)})"


def save(contents, model, fmt: str, out_dir: Path) -> None:
    from engine.session.batch import repunctuate
    from engine.transcript.export import ExportError, export
    from engine.transcript.journal import mark_recovered

    if not contents.transcript.words:  # a crash before the first word settled
        if state(contents) == "unfinished":
            mark_recovered(contents.path)
        print("  no settled words: nothing to save")
        return
    if fmt in ("srt", "vtt") and not contents.transcript.has_times:
        print(f"  some words have no timings: saving as txt instead of {fmt}", file=sys.stderr)
        fmt = "txt"
    target = out_dir / ("recovered-" + contents.path.stem + EXTENSIONS[fmt])
    if target.exists():  # a transcript saved earlier may have been edited since
        raise CliError(f"{target} exists already; move it away, or save to another folder with -o DIR")
    # As the window's Restore: the offline decoder sees every word's right context, so its marks
    # are better than the ones that settled live.
    transcript = repunctuate(contents.transcript.words, model)
    try:
        export(transcript, fmt, target)
    except ExportError as exc:
        raise CliError(f"{contents.path.name}: {exc}") from None
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
    if state(contents) == "unfinished":
        mark_recovered(contents.path)
    print(f"  saved to {target}")
