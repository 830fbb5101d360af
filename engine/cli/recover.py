"""``livecap recover``: save the transcripts of sessions that ended in a crash.

Each unfinished journal is written out as a transcript file (its marks were
settled live, so no model is needed) and then marked recovered, so the next
run does not offer it again. ``--list`` only shows what there is.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.common import CliError

EXTENSIONS = {"txt": ".txt", "srt": ".srt", "vtt": ".vtt", "json": ".json"}


def cmd_recover(args) -> int:
    from engine.files import paths
    from engine.transcript.export import ExportError, export
    from engine.transcript.journal import mark_recovered, recover

    found = recover()
    if not found:
        print(f"Nothing to recover: every session in {paths.journal_dir()} ended cleanly.")
        return 0
    out_dir = Path(args.output_dir)
    if not args.list:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
    for contents in found:
        words = contents.transcript.words
        started = contents.started or "unknown start"
        source = contents.header.get("source", "?")
        print(f"{contents.path.name}: {len(words)} words, started {started}, from {source}")
        if args.list:
            continue
        if not words:
            mark_recovered(contents.path)
            print("  no settled words: nothing to save")
            continue
        fmt = args.format
        if fmt in ("srt", "vtt") and not contents.transcript.has_times:
            print(f"  some words have no timings: saving as txt instead of {fmt}", file=sys.stderr)
            fmt = "txt"
        target = out_dir / ("recovered-" + contents.path.stem + EXTENSIONS[fmt])
        try:
            export(contents.transcript, fmt, target)
        except ExportError as exc:
            raise CliError(f"{contents.path.name}: {exc}") from None
        except OSError as exc:
            raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
        mark_recovered(contents.path)
        print(f"  saved to {target}")
    return 0
