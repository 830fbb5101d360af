"""``livecap history``: every kept session, listed, searched, shown, exported or deleted.

The sessions are the journals (``engine.transcript.journal``), found again through the history
index (``engine.history``), which each command brings level with them first: built whole the
first time (progress on stderr), synced after. ``show`` and ``export`` read the session's text
from its journal, as ``recover`` does; ``export`` writes through the same exporters and refuses
the same outputs as ``transcribe -o`` (a missing folder, an unknown extension, a file already
there unless ``--overwrite``). A bad query, id, date or time is one line and exit status 2, as
every other mistake on the command line.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path

from engine.cli.common import CliError, warn

__all__ = ["add_history_command", "cmd_history", "parse_since", "parse_time"]

SINCE_FORMS = "YYYY-MM-DD, 'YYYY-MM-DD HH:MM', today, yesterday or a number of days such as 7d"
TIME_FORMS = "seconds (90), mm:ss (1:30) or hh:mm:ss (1:01:30)"
BOLD, PLAIN = "\x1b[1m", "\x1b[0m"
_SECONDS = re.compile(r"\d+(\.\d+)?")


def add_history_command(sub) -> None:
    """``history`` and its actions, on the subcommands of ``livecap`` (``main.build_parser``)."""
    from engine.transcript.formats import FORMATS, NAMES, or_list

    titles = [f.title for f in FORMATS.values()]
    p = sub.add_parser("history", help="list and search every kept session; show, export or delete one")
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    a = actions.add_parser("list", help="every kept session, newest first (default)")
    a.add_argument("--json", action="store_true", help="one JSON array of sessions, for programs")
    a = actions.add_parser(
        "search",
        help='where words were said: words, "a phrase", a prefix (budg*), OR, NOT; newest sessions first',
    )
    a.add_argument("query", metavar="QUERY")
    a.add_argument("--since", metavar="DATE", help=f"only sessions started then or later: {SINCE_FORMS}")
    a.add_argument("--speaker", metavar="NAME", help="only words of the speaker shown by this name")
    a.add_argument("--limit", type=int, default=50, metavar="N", help="at most N hits (default: 50)")
    a.add_argument("--json", action="store_true", help="one JSON array of hits, for programs")
    a = actions.add_parser("show", help="print a session's transcript")
    a.add_argument("id", metavar="ID", help="the session, as history list names it")
    a.add_argument("--at", metavar="TIME", help=f"start at the sentence said at TIME: {TIME_FORMS}")
    a = actions.add_parser("export", help=f"save a session's transcript as {or_list(titles)}")
    a.add_argument("id", metavar="ID", help="the session, as history list names it")
    a.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="where; its extension names the format"
    )
    a.add_argument("--format", choices=NAMES, default=None, help="instead of -o's")
    a.add_argument("--overwrite", action="store_true", help="replace FILE if it exists (default: stop)")
    a = actions.add_parser("delete", help="delete a session: its journal and its place in the index")
    a.add_argument("id", metavar="ID", help="the session, as history list names it")
    a.add_argument("--yes", action="store_true", help="do not ask first")
    actions.add_parser("reindex", help="build the index again from the journals")
    p.set_defaults(func=cmd_history)


def cmd_history(args) -> int:
    from engine.history import HistoryError

    action = args.action or "list"
    try:
        check_arguments(args)  # a mistake is said before the index is opened, or built
        if action == "reindex":
            return reindex()
        with open_index() as index:
            return ACTIONS[action](index, args)
    except HistoryError as exc:
        raise CliError(str(exc)) from None


def check_arguments(args) -> None:
    """What can be checked without the index: the query's quotes, dates, times, the limit."""
    from engine.history.query import check_query

    if getattr(args, "query", None) is not None:
        check_query(args.query)
    if getattr(args, "limit", 1) < 1:
        raise CliError(f"--limit {args.limit}: give at least 1")
    if getattr(args, "since", None) is not None:
        args.since = parse_since(args.since)
    if getattr(args, "at", None) is not None:
        parse_time(args.at)


def progress_on_stderr():
    """A ``progress`` for the index: a bar on stderr, ended when all sessions are done."""
    from engine.cli.progress import ProgressBar

    bar = ProgressBar("indexing sessions", unit="sessions")

    def report(done: int, total: int) -> None:
        bar.update(done, total)
        if done == total:
            bar.finish()

    return report


def open_index(progress=None):
    from engine.history import HistoryIndex

    return HistoryIndex.open(progress=progress or progress_on_stderr())


# ---- actions ----------------------------------------------------------------------------------
def list_sessions(index, args) -> int:
    sessions = index.sessions()
    if getattr(args, "json", False):
        print(json.dumps([summary_json(s) for s in sessions], ensure_ascii=False, indent=1))
        return 0
    if not sessions:
        print(f"No sessions in the history ({index.journal_folder} holds no journals).")
        return 0
    for s in sessions:
        flags = "".join(f"[{flag}] " for flag, on in (("recording", s.live), ("pinned", s.pinned)) if on)
        speakers = f" ({', '.join(s.speakers)})" if s.speakers else ""
        print(
            f"{s.id}  {s.started:%Y-%m-%d %H:%M}  {duration(s.duration_s):>7}  {s.words:>7,} words"
            f"{speakers}  {flags}{s.title or s.first_line}"
        )
    return 0


def search(index, args) -> int:
    hits = index.search(args.query, since=args.since, speaker=args.speaker, limit=args.limit)
    if args.json:
        print(json.dumps([hit_json(h) for h in hits], ensure_ascii=False, indent=1))
        return 0
    if not hits:
        warn(f"no session says {args.query}")
        return 0
    marks = sys.stdout.isatty()
    for hit in hits:
        speaker = f"{hit.speaker}: " if hit.speaker else ""
        print(
            f"{hit.session_id}  {hit.started:%Y-%m-%d %H:%M}  at {duration(hit.time_s):>7}  "
            f"{speaker}{marked(hit.snippet, hit.spans) if marks else hit.snippet}"
        )
    return 0


def show(index, args) -> int:
    from engine.history.indexing import session_length
    from engine.transcript.journal_reading import read_journal

    summary = index.session(session_id(args.id))
    contents = read_journal(summary.path)
    transcript, names = contents.transcript, contents.speaker_names
    length = session_length(transcript.words)  # the header's and --at's: one length
    paragraphs = transcript.paragraphs()
    if args.at is not None:
        at = parse_time(args.at)
        if at > length:
            raise CliError(f"--at {args.at}: {summary.id} is only {duration(length)} long")
        paragraphs = from_time(transcript, paragraphs, at)
    print(
        f"{summary.id}: {summary.title or 'untitled'}, started {summary.started:%Y-%m-%d %H:%M}, "
        f"{duration(length)}, {summary.words:,} words"
    )
    speaker = None
    for paragraph in paragraphs:
        word = transcript.words[paragraph.start_index]
        label = names.line_label(word.speaker) if word.speaker != speaker else ""
        stamp = f"[{duration(word.start)}] " if word.start is not None else ""
        print(f"\n{stamp}{label}{transcript.segment_text(paragraph)}")
        speaker = transcript.words[paragraph.last_index].speaker
    return 0


def from_time(transcript, paragraphs, at: float) -> list:
    """``paragraphs`` from the sentence said at ``at`` on (the last to start by then; sentences end
    at the settled marks): the paragraph holding it is cut to start there, so a session that is one
    long paragraph is not printed from its start. Where a speaker's paragraph starts inside that
    sentence, it starts there."""
    from engine.transcript.transcript import Segment

    words = transcript.words
    starts = {s.start_index for s in transcript.sentences()} | {p.start_index for p in paragraphs}
    said = [i for i in starts if words[i].start is not None and words[i].start <= at]
    first = max(said, default=0)
    return [Segment(max(p.start_index, first), p.end_index) for p in paragraphs if p.end_index > first]


def export(index, args) -> int:
    from engine.cli.transcribe import output_problem, pick_format, write_transcript
    from engine.transcript.journal_reading import read_journal

    summary = index.session(session_id(args.id))
    fmt = pick_format(args.format, args.output)
    target = Path(args.output)
    problem = output_problem(Path(summary.id), target, args.overwrite)
    if problem is not None:
        raise CliError(problem)
    contents = read_journal(summary.path)
    if not contents.transcript.words:
        raise CliError(f"{summary.id} has no words to export")
    # As ``recover`` saves it: the language's end mark, the speakers by the names last shown, the
    # language spoken and whether the words are an English translation of it. A format that needs
    # times the words lack is refused, naming the formats that do not.
    write_transcript(
        contents.transcript,
        fmt,
        target,
        summary.id,
        args.overwrite,
        end_sentence=contents.english,
        names=contents.speaker_names,
        language=contents.language,
        translated=contents.translated,
    )
    print(f"{summary.id} -> {target} ({len(contents.transcript.words):,} words)", file=sys.stderr)
    return 0


def delete(index, args) -> int:
    summary = index.session(session_id(args.id))
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError(f"not deleting {summary.id} without asking: pass --yes")
        question = (
            f"Delete {summary.id} ({summary.words:,} words, started {summary.started:%Y-%m-%d %H:%M})? "
            "Its journal goes too; this cannot be undone. [y/N] "
        )
        try:
            answer = input(question)
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing deleted.", file=sys.stderr)
            return 0
    index.delete(summary.id)
    print(f"Deleted {summary.id}.", file=sys.stderr)
    return 0


def reindex() -> int:
    from engine.history.store import default_index_path

    existed = default_index_path().exists()  # else opening it builds it whole already
    with open_index() as index:
        words = index.reindex(progress_on_stderr()) if existed else sum(s.words for s in index.sessions())
        print(f"Indexed {words:,} words of {len(index.sessions()):,} sessions in {index.path}.")
    return 0


ACTIONS = {"list": list_sessions, "search": search, "show": show, "export": export, "delete": delete}


# ---- words in, words out ----------------------------------------------------------------------
def session_id(text: str) -> str:
    """A session as the user names it: its id, or its journal's file name."""
    return text.strip().removesuffix(".jsonl")


def parse_since(text: str) -> datetime:
    """``--since``: a date or a time (local), today, yesterday, or N days ago (``7d``)."""
    word = text.strip().lower()
    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    if word == "today":
        return midnight
    if word == "yesterday":
        return midnight - timedelta(days=1)
    days = re.fullmatch(r"(\d+)\s*d(ays?)?", word)
    if days:
        return datetime.now().astimezone() - timedelta(days=int(days.group(1)))
    try:
        return datetime.fromisoformat(text.strip()).astimezone()  # without a zone: local
    except (ValueError, OverflowError, OSError):
        raise CliError(f"--since {text!r} is not a date; give {SINCE_FORMS}") from None


def parse_time(text: str) -> float:
    """``--at``: seconds from the session's start, as 90, 1:30 or 1:01:30."""
    *whole, seconds = text.strip().split(":")
    if len(whole) > 2 or not all(p.isdigit() for p in whole) or not _SECONDS.fullmatch(seconds):
        raise CliError(f"--at {text!r} is not a time; give {TIME_FORMS}")
    values = [*map(int, whole), float(seconds)]
    if any(v >= 60 for v in values[1:]):  # minutes and seconds below an hour or a minute
        raise CliError(f"--at {text!r} is not a time; give {TIME_FORMS}")
    total = 0.0
    for value in values:
        total = total * 60 + value
    return total


def duration(seconds: float) -> str:
    from engine.elapsed import format_elapsed

    return format_elapsed(seconds)


def marked(snippet: str, spans) -> str:
    out, last = [], 0
    for start, end in spans:
        out += [snippet[last:start], BOLD, snippet[start:end], PLAIN]
        last = end
    return "".join(out) + snippet[last:]


def summary_json(s) -> dict:
    return {
        "id": s.id,
        "path": str(s.path),
        "started": s.started.isoformat(),
        "duration_s": round(s.duration_s, 3),
        "sources": list(s.sources),
        "speakers": list(s.speakers),
        "recognizer": s.recognizer,
        "first_line": s.first_line,
        "title": s.title,
        "pinned": s.pinned,
        "words": s.words,
        "live": s.live,
    }


def hit_json(h) -> dict:
    return {
        "session_id": h.session_id,
        "position": h.position,
        "time_s": h.time_s,
        "speaker": h.speaker,
        "snippet": h.snippet,
        "spans": [list(span) for span in h.spans],
        "started": h.started.isoformat(),
    }
