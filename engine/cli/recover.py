"""``livecap recover``: save the transcripts of sessions that ended in a crash, or of any kept one.

The journals are pruned first (``apply_retention``, ``--keep-days``). ``--list`` shows every
kept session, finished or not, oldest first (by the time each started). Without names, the
unfinished ones are saved; with names (or ``--all``), those sessions, whatever their state. A
saved transcript never replaces a file that is already there unless ``--overwrite`` says so.
Each goes through ``repunctuate``, as the window's Restore does: every journaled word settled
live, so its mark and capital are kept exactly as the captions showed them; a meeting's words
keep who spoke them, shown by the names the session last recorded. An unfinished session is then
marked recovered so the next run does not offer it again.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from engine.cli.common import CliError, load_model, warn
from engine.cli.transcribe import refuse_to_overwrite, write_transcript


def journal_folders(args) -> list[Path]:
    """Where to look: ``--journal-dir``, else the per-user folder and the private fallbacks a
    session uses when that one cannot be written (``recovery_journal_dirs``)."""
    from engine.transcript.journal_folder import recovery_journal_dirs

    if args.journal_dir is not None:
        return [args.journal_dir]
    return recovery_journal_dirs()


def state(contents) -> str:
    if contents.closed:
        return "ended cleanly"
    return "recovered" if contents.recovered else "unfinished"


def started_at(contents) -> float:
    """When the session started, as a timestamp: its header's time, else the time in its name,
    else the file's last change (a journal whose header was lost in a crash)."""
    for text, parse in (
        (contents.started, datetime.fromisoformat),
        (contents.path.stem[len("session-") :][:15], lambda t: datetime.strptime(t, "%Y%m%d-%H%M%S")),
    ):
        try:
            return parse(str(text)).astimezone().timestamp()  # a time without a zone is local
        except (TypeError, ValueError, OverflowError, OSError):
            continue
    try:
        return contents.path.stat().st_mtime
    except OSError:
        return 0.0


def kept_sessions(folders: list[Path], keep_days) -> tuple[list, list[Path]]:
    """(every kept session's contents after pruning, oldest first, running sessions left out;
    the folders that could be read). A folder that does not exist was not read."""
    from engine.history.retention import apply_retention
    from engine.transcript.journal import in_use, journals, read_journal

    found, read = [], []
    for folder in folders:
        try:
            if not folder.is_dir():
                continue
            next(folder.iterdir(), None)  # listable: journals() would pass over a refusal silently
        except OSError as exc:
            warn(f"cannot read the journal folder {folder}: {exc.strerror or exc}")
            continue
        read.append(folder)
        apply_retention(folder, keep_days)
        for path in journals(folder):
            if in_use(path):
                continue
            try:
                found.append(read_journal(path))
            except OSError as exc:
                warn(f"cannot read the journal {path}: {exc.strerror or exc}")
    found.sort(key=lambda c: (started_at(c), c.path.name))
    return found, read


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


def where(read: list[Path], looked: list[Path]) -> str:
    """The folders read, as a sentence names them; or, when none could be, where it looked."""
    if read:
        return " and ".join(str(folder) for folder in read)
    return "any journal folder (looked in " + ", ".join(str(folder) for folder in looked) + ")"


def cmd_recover(args) -> int:
    folders = journal_folders(args)
    found, read = kept_sessions(folders, args.keep_days)
    if args.list:
        if not found:
            print(f"No kept sessions in {where(read, folders)}.")
            return 0
        print(f"Kept sessions in {where(read, folders)}, oldest first:")
        for contents in found:
            print(describe(contents))
        return 0
    selected = chosen(found, args)
    if not selected:
        print(
            f"Nothing to recover: every session in {where(read, folders)} ended cleanly "
            f"({len(found)} kept; livecap recover --list shows them)."
        )
        return 0
    out_dir = Path(args.output_dir)
    overwrite = getattr(args, "overwrite", False)
    for contents in selected:  # before any work: one clash must not leave half the sessions saved
        if contents.transcript.words:
            refuse_to_overwrite(target_for(contents, args.format, out_dir)[0], overwrite)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
    model = load_model(args.model_dir, args.threads)
    for contents in selected:
        print(describe(contents))
        save(contents, model, args.format, out_dir, overwrite)
    return 0


def describe(contents) -> str:
    started = contents.started or "unknown start"
    from engine.audio.sources import describe_sources

    source = describe_sources(contents.header.get("source"), contents.header.get("others_source")) or "?"
    words = len(contents.transcript.words)
    return f"{contents.path.name}: {words} words, started {started}, from {source} ({state(contents)})"


def target_for(contents, fmt: str, out_dir: Path) -> tuple[Path, str]:
    """(where the session's transcript goes, in what format): a format that needs every word's
    times gives way to the default (txt) where some word has none."""
    from engine.transcript.formats import DEFAULT, FORMATS

    chosen = FORMATS[fmt]
    if chosen.needs_times and not contents.transcript.has_times:
        chosen = DEFAULT
    return out_dir / ("recovered-" + contents.path.stem + chosen.extension), chosen.name


def save(contents, model, fmt: str, out_dir: Path, overwrite: bool = False) -> None:
    from engine.session.batch import repunctuate
    from engine.transcript.journal import mark_recovered

    if not contents.transcript.words:  # a crash before the first word settled
        if state(contents) == "unfinished":
            mark_recovered(contents.path)
        print("  no settled words: nothing to save")
        return
    target, written = target_for(contents, fmt, out_dir)
    if written != fmt:
        print(f"  some words have no timings: saving as {written} instead of {fmt}", file=sys.stderr)
    refuse_to_overwrite(target, overwrite)  # again, before the work: it may have appeared meanwhile
    # As the window's Restore: the settled marks are kept, the offline decoder fills the rest.
    transcript = repunctuate(contents.transcript.words, model, recognizer=contents.header.get("recognizer"))
    # Words of a language the punctuation model does not know were journaled unmarked: no English
    # period after the last one. A meeting's speakers by the names the session showed; the
    # language spoken (the detected one for "auto") and whether the words translate it.
    write_transcript(
        transcript,
        written,
        target,
        contents.path.name,
        overwrite,
        end_sentence=contents.english,
        names=contents.speaker_names,
        language=contents.language,
        translated=contents.translated,
    )
    if state(contents) == "unfinished":
        mark_recovered(contents.path)
    print(f"  saved to {target}")
