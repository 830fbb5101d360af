"""``livecap vocabulary``: the user's own terms, listed, added, removed or imported from a text.

The vocabulary is a plain text file in the config folder (``engine.vocabulary.user_file``),
which the user may also edit by hand; ``--file`` works on another one (a session's, given to
``transcribe``, ``listen`` or ``dictate`` with ``--vocabulary``). Every change rewrites the
file atomically with its other lines as they were. ``import`` proposes the names and unknown
words of any text (an agenda, a list of attendees) and adds them only when told: ``--yes``, or
a "y" at the prompt on a terminal. A bad entry or file is one line and exit status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.common import CliError

__all__ = ["add_vocabulary_command", "add_vocabulary_option", "cmd_vocabulary"]

ENTRY_HELP = "TERM, or 'TERM: SPOKEN, SPOKEN  # note' (e.g. 'PostgreSQL: post gres Q L, postgres')"


def add_vocabulary_option(p) -> None:
    """``--vocabulary FILE`` of the commands that recognize speech."""
    p.add_argument(
        "--vocabulary",
        type=Path,
        default=None,
        metavar="FILE",
        help="names and terms for this run, one per line ('PostgreSQL: post gres Q L'), added to your "
        "own (livecap vocabulary list); transcripts, live captions and typed words write them your way",
    )


def add_vocabulary_command(sub) -> None:
    """``vocabulary`` and its actions, on the subcommands of ``livecap`` (``main.build_parser``)."""
    p = sub.add_parser(
        "vocabulary", help="your names and terms, which transcripts and live captions write your way"
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    a = actions.add_parser("list", help="every term, as in the file (default)")
    _file_option(a)
    a = actions.add_parser("add", help="add a term, with how it is said")
    a.add_argument("entry", metavar="ENTRY", help=ENTRY_HELP)
    _file_option(a)
    a = actions.add_parser("remove", help="remove a term (any case)")
    a.add_argument("term", metavar="TERM")
    _file_option(a)
    a = actions.add_parser(
        "import", help="propose the names and unknown words of a text (an agenda, attendees) and add them"
    )
    a.add_argument("text", metavar="FILE", help="a UTF-8 text file; - for stdin")
    a.add_argument("--yes", action="store_true", help="add every term proposed, without asking")
    _file_option(a)
    actions.add_parser("path", help="print where your vocabulary file is")
    p.set_defaults(func=cmd_vocabulary)


def _file_option(a) -> None:
    a.add_argument(
        "--file", type=Path, default=None, metavar="FILE", help="this vocabulary file instead of your own"
    )


def cmd_vocabulary(args) -> int:
    from engine.vocabulary import VocabularyError, VocabularyFile, user_vocabulary_path

    action = args.action or "list"
    if action == "path":
        print(user_vocabulary_path())
        return 0
    try:
        file = VocabularyFile.open(getattr(args, "file", None))
        return ACTIONS[action](file, args)
    except VocabularyError as exc:
        raise CliError(str(exc)) from None


def list_terms(file, args) -> int:
    vocabulary = file.vocabulary
    if not vocabulary:
        print(f"No terms in {file.path}; add one with: livecap vocabulary add 'TERM: how it is said'")
        return 0
    for entry in vocabulary:
        print(entry.line())
    print(f"{len(vocabulary)} term{'' if len(vocabulary) == 1 else 's'} in {file.path}", file=sys.stderr)
    return 0


def add_term(file, args) -> int:
    from engine.vocabulary import VocabularyError, parse_entry

    try:
        entry = parse_entry(args.entry)
    except VocabularyError as exc:
        raise CliError(f"vocabulary add: {exc}") from None
    if entry is None:
        raise CliError("vocabulary add: give a term, as in 'PostgreSQL: post gres Q L'")
    file.add(entry)
    file.save()
    print(f"added {entry.line()!r} to {file.path}", file=sys.stderr)
    return 0


def remove_term(file, args) -> int:
    entry = file.remove(args.term)
    file.save()
    print(f"removed {entry.term!r} from {file.path}", file=sys.stderr)
    return 0


def import_terms(file, args) -> int:
    from engine.vocabulary.proposals import propose_terms

    text = _read_text(args.text)
    proposed = propose_terms(text, file.vocabulary)
    if not proposed:
        print(f"{args.text}: no names or unknown words that are not in {file.path} already", file=sys.stderr)
        return 0
    for entry in proposed:
        print(entry.term)
    if not (args.yes or _confirmed(len(proposed), file.path)):
        print(
            f"{len(proposed)} terms proposed, none added; pass --yes to add them all, or add the ones "
            "you want with livecap vocabulary add",
            file=sys.stderr,
        )
        return 0
    for entry in proposed:
        file.add(entry)
    file.save()
    print(f"added {len(proposed)} terms to {file.path}", file=sys.stderr)
    return 0


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CliError(
            f"{name}: not UTF-8 text; save it as UTF-8 (or pipe it: ... | livecap vocabulary import -)"
        ) from None
    except OSError as exc:
        raise CliError(f"cannot read {name}: {exc.strerror or exc}") from None


def _confirmed(count: int, path: Path) -> bool:
    """A "y" from the user at a terminal; False where stdin is not one (a script must say --yes)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    print(f"Add these {count} terms to {path}? [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False


ACTIONS = {"list": list_terms, "add": add_term, "remove": remove_term, "import": import_terms}
