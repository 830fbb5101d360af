"""``livecap`` on the command line: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cli.common import CliError
from engine.version import __version__


class CommandParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (plus where to find help), like every other error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _lazy(module: str, name: str):
    """A command that imports its module only when run: `livecap devices` must not load ONNX Runtime."""

    def run(args):
        import importlib

        return getattr(importlib.import_module(module), name)(args)

    return run


def build_parser(extra_commands: Sequence[tuple[str, str]] = ()) -> argparse.ArgumentParser:
    """``extra_commands``: (name, help) of commands that the caller runs itself and that only need
    listing here: the installed ``livecap`` opens the window with ``app`` (the engine cannot)."""
    parser = CommandParser(prog="livecap", description="Live captions with streaming punctuation.")
    parser.add_argument("--version", action="version", version=f"livecap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, help_text in extra_commands:
        sub.add_parser(name, help=help_text, add_help=False)

    p = sub.add_parser("punctuate", help="punctuate and capitalise text or timed words")
    p.add_argument(
        "file", nargs="?", default="-", help="text or JSON words (Vosk format accepted); - for stdin"
    )
    p.add_argument(
        "--mode",
        choices=["stream", "offline"],
        default=None,
        help="stream: live decoder, word by word; offline: whole-text decoder, more accurate and faster "
        "(default: offline for a FILE, whatever its format, livecap's own JSON transcripts included; "
        "stream for stdin, which may be a live pipe)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="H",
        action=ModelDefault,
        setting="threshold",
        help="entropy threshold h in bits (0-2); lower waits for more context (stream mode; "
        "default: %(model_default)s)",
    )
    p.add_argument(
        "--lookahead",
        type=int,
        default=None,
        metavar="N",
        action=ModelDefault,
        setting="l_max",
        help="maximum lookahead l_max in words, 0-16 (stream mode; default: %(model_default)s)",
    )
    p.add_argument("--no-casing", action="store_true", help="leave words lowercase")
    p.add_argument("--no-pauses", action="store_true", help="ignore word timings ([PAUSE] tokens)")
    p.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: the punctuated text; json: one object per word (word, form, mark, case, "
        "lookahead), for programs (default: text)",
    )
    add_model_options(p)
    p.set_defaults(func=_lazy("engine.cli.punctuate", "cmd_punctuate"))
    _add_live_commands(sub)
    return parser


class _ModelSetting:
    """A decoder setting of the default punctuation model, read from its config.json only when
    a help text shows it: that file is the one place the shipped model's settings live."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        try:
            from engine.punctuation.model import ModelConfig, model_folder

            value = getattr(ModelConfig.load(model_folder(None)).decoder, self.name)
        except Exception:  # a damaged model must not break --help; running says what is wrong
            return "the punctuation model's setting"
        return f"{value:g}, the punctuation model's setting"


class ModelDefault(argparse.Action):
    """Stores the value like the default action; its help may name ``%(model_default)s``, the
    punctuation model's own value of ``setting``."""

    def __init__(self, option_strings, dest, setting: str, **kwargs):
        self.model_default = _ModelSetting(setting)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


def add_model_options(p: argparse.ArgumentParser, threads: bool = True) -> None:
    """The punctuation model options every front end shares (the commands here and the window's
    ``livecap app``), declared once."""
    p.add_argument(
        "--model-dir", type=Path, default=None, help="punctuation model folder (default: the shipped one)"
    )
    if threads:
        p.add_argument("--threads", type=int, default=1, help="threads for the punctuation model")


def _add_recognizer_options(p) -> None:
    from engine.cli.vocabulary import add_vocabulary_option
    from engine.recognizers.accuracy import ACCURACIES, Accuracy
    from engine.recognizers.kinds import AUTO, CHOICES
    from engine.session.marks import MARKS

    p.add_argument(
        "--recognizer",
        choices=CHOICES,
        default=AUTO,
        help="speech recognizer; auto (the default): Vosk if a model is installed, else the embedded "
        "Whisper tiny.en, else the built-in PocketSphinx where Whisper cannot keep up",
    )
    p.add_argument(
        "--model",
        default=None,
        metavar="NAME|PATH",
        help="Vosk or Whisper (faster-whisper) model: an installed name or a folder",
    )
    p.add_argument(
        "--marks",
        choices=MARKS,
        default="auto",
        help="whose punctuation and capitals: livecap's punctuation model (engine; with Whisper it "
        "weighs Whisper's as evidence), the ones Whisper writes (recognizer), or the better for the "
        "recognizer (auto, the default)",
    )
    p.add_argument(
        "--language",
        default="en",
        metavar="CODE|auto",
        help="the spoken language: en (the default), a code such as de or fr, or auto (told from the "
        "first speech); other than en runs Whisper base, the language pack "
        "(pip install 'livecap[languages]'; `livecap models list --languages` lists the codes)",
    )
    p.add_argument(
        "--translate",
        action="store_true",
        help="English captions of speech in another language (Whisper base, the language pack)",
    )
    p.add_argument(
        "--accuracy",
        choices=ACCURACIES,
        default=Accuracy.AUTO.value,
        help="which Whisper captions English: " + "; ".join(f"{a.value}: {a.help}" for a in Accuracy),
    )
    add_model_options(p)
    add_vocabulary_option(p)
    p.add_argument(
        "--verbose", action="store_true", help="show the speech recognizer's own log (Kaldi's, for Vosk)"
    )


def _add_live_commands(sub) -> None:
    from engine.transcript.formats import DEFAULT as DEFAULT_EXPORT
    from engine.transcript.formats import NAMES as EXPORT_NAMES

    p = sub.add_parser(
        "transcribe", help="transcribe audio files (WAV, FLAC, OGG) to punctuated text or subtitles"
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument(
        "--format",
        choices=EXPORT_NAMES,
        default=None,
        help=f"output format (default: from -o's extension, else {DEFAULT_EXPORT.name})",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="PATH",
        help="output file (a folder for several inputs; - for stdout); default: next to each FILE",
    )
    p.add_argument(
        "--overwrite", action="store_true", help="replace output files that already exist (default: stop)"
    )
    _add_recognizer_options(p)
    p.set_defaults(func=_lazy("engine.cli.transcribe", "cmd_transcribe"))

    p = sub.add_parser("listen", help="live captions in the terminal")
    _add_live_source_options(p)
    p.add_argument(
        "--no-echo-guard",
        action="store_true",
        help="in a meeting, show every word the microphone hears, none hidden as the others' echo "
        "(with a headset there is no echo)",
    )
    p.add_argument(
        "--share",
        action="store_true",
        help="serve the captions as a web page on this computer (OBS's browser source, a second screen)",
    )
    p.add_argument(
        "--lan",
        action="store_true",
        help="share the page on the local network, through a link with a random token (implies --share)",
    )
    p.add_argument("--share-minutes", type=float, metavar="N", help="stop sharing after N minutes")
    _add_keep_days(p)
    _add_recognizer_options(p)
    p.set_defaults(func=_lazy("engine.cli.listen", "cmd_listen"))

    p = sub.add_parser("dictate", help="type settled, punctuated words into the focused window")
    _add_live_source_options(p)
    p.add_argument(
        "--commands",
        default=[],
        type=lambda text: [c.strip() for c in text.split(",") if c.strip()],
        metavar="LIST",
        help="spoken commands to obey, comma-separated: new-line, new-paragraph, scratch-that "
        "(default: none)",
    )
    control = p.add_mutually_exclusive_group()
    control.add_argument(
        "--toggle", action="store_true", help="pause or resume a running livecap's dictation"
    )
    control.add_argument("--stop", action="store_true", help="end a running livecap dictate")
    control.add_argument(
        "--status",
        action="store_true",
        help="say whether a running livecap is dictating, paused or not running (exit 0 for all three)",
    )
    _add_keep_days(p)
    _add_recognizer_options(p)
    p.set_defaults(func=_lazy("engine.cli.dictate", "cmd_dictate"))

    p = sub.add_parser("devices", help="list microphones and system audio monitors")
    p.set_defaults(func=_lazy("engine.cli.models", "cmd_devices"))

    p = sub.add_parser("models", help="list, download or remove Vosk speech models")
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=CommandParser)
    a = actions.add_parser("list", help="the catalogue, installed models marked (default)")
    a.add_argument("--lang", default=None, help="only this language code, e.g. en or de")
    a.add_argument(
        "--languages", action="store_true", help="the language codes --language takes (the language pack's)"
    )
    a = actions.add_parser("download", help="download and install a model")
    a.add_argument("name", metavar="NAME")
    a.add_argument(
        "--replace",
        action="store_true",
        help="install afresh over an installed copy that will not load (kept until the new one is in)",
    )
    a = actions.add_parser("remove", help="delete an installed model")
    a.add_argument("name", metavar="NAME")
    actions.add_parser("path", help="print the folder models are installed in")
    p.set_defaults(func=_lazy("engine.cli.models", "cmd_models"))

    p = sub.add_parser(
        "recover", help="save transcripts of sessions that ended in a crash, or of any kept session"
    )
    p.add_argument(
        "sessions",
        nargs="*",
        metavar="SESSION",
        help="journals to save, by name (see --list); default: the unfinished ones",
    )
    p.add_argument(
        "--list", action="store_true", help="only list the kept sessions, oldest first (by when each started)"
    )
    p.add_argument("--all", action="store_true", help="save every kept session, finished or not")
    p.add_argument(
        "-o", "--output-dir", default=".", metavar="DIR", help="where to save them (default: here)"
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace saved transcripts that already exist (default: stop)",
    )
    p.add_argument(
        "--format",
        choices=EXPORT_NAMES,
        default=DEFAULT_EXPORT.name,
        help=f"what to save them as (default: {DEFAULT_EXPORT.name}; a session whose words lack the "
        f"timings a format needs is saved as {DEFAULT_EXPORT.name})",
    )
    p.add_argument(
        "--journal-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the journals are (default: the per-user folder and its fallback)",
    )
    _add_keep_days(p)
    add_model_options(p)
    p.set_defaults(func=_lazy("engine.cli.recover", "cmd_recover"))

    from engine.cli.history import add_history_command  # its options only: the work loads when run

    add_history_command(sub)

    from engine.cli.vocabulary import add_vocabulary_command

    add_vocabulary_command(sub)


def _add_live_source_options(p: argparse.ArgumentParser) -> None:
    """Where a live session's audio comes from (``listen``, ``dictate``)."""
    p.add_argument(
        "--source",
        action="append",
        metavar="mic|system|app:NAME|FILE",
        help="a microphone, what the speakers play, one application's audio (see livecap devices), "
        "or an audio file (default: mic). Twice for a meeting: the first is Me, the second Others "
        "(--source mic --source app:zoom)",
    )
    p.add_argument(
        "--device", default=None, metavar="NAME", help="microphone or monitor name (see livecap devices)"
    )
    p.add_argument("--realtime", action="store_true", help="play a FILE at its real speed, as if live")


def _add_keep_days(p) -> None:
    from engine.transcript.journal_folder import DEFAULT_KEEP_DAYS

    p.add_argument(
        "--keep-days",
        type=_keep_days,
        default=DEFAULT_KEEP_DAYS,
        metavar="N",
        help=f"keep session journals N days after their end (default: {DEFAULT_KEEP_DAYS}; "
        "0 or forever: never delete, as in the window's Settings); sessions without words are never kept",
    )


def _keep_days(value: str) -> float | None:
    from engine.transcript.journal_folder import keep_days

    try:
        return keep_days(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None, extra_commands: Sequence[tuple[str, str]] = ()) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # first: no command may let onnxruntime write its device id
    parser = build_parser(extra_commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except CliError as exc:
        print(f"livecap: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("livecap: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
