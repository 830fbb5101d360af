"""``livecap`` on the command line: one entry point, one subcommand per job."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine import __version__


class CliError(Exception):
    """An error the user can act on; printed as one line, never a traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="livecap", description="Live captions with streaming punctuation.")
    parser.add_argument("--version", action="version", version=f"livecap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("punctuate", help="punctuate and capitalise text or timed words")
    p.add_argument("file", nargs="?", default="-", help="text or JSON words (Vosk format accepted); - for stdin")
    p.add_argument("--mode", choices=["stream", "offline"], default="stream",
                   help="stream: live decoder, word by word; offline: whole-text decoder (default: stream)")
    p.add_argument("--threshold", type=float, default=None, metavar="H",
                   help="entropy threshold h in bits (0-2); lower waits for more context")
    p.add_argument("--lookahead", type=int, default=None, metavar="N", help="maximum lookahead l_max in words")
    p.add_argument("--no-casing", action="store_true", help="leave words lowercase")
    p.add_argument("--no-pauses", action="store_true", help="ignore word timings ([PAUSE] tokens)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--model-dir", type=Path, default=None, help="punctuation model folder (default: the shipped one)")
    p.add_argument("--threads", type=int, default=1)
    p.set_defaults(func=cmd_punctuate)
    return parser


def load_model(model_dir: Path | None, threads: int = 1):
    from engine.model import ModelError, PunctuationModel, default_model_dir

    folder = model_dir or default_model_dir()
    if not (folder / "config.json").exists() and not (folder / "model.onnx").exists():
        raise CliError(f"no punctuation model is installed in {folder}; reinstall livecap, "
                       f"or pass --model-dir with a folder holding model.onnx, tokenizer.json and config.json")
    try:
        return PunctuationModel(folder, threads=threads)
    except ModelError as exc:
        raise CliError(str(exc)) from exc


def read_input(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "stdin"
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8"), str(file)
    except FileNotFoundError:
        raise CliError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{file} is a folder; give a text or JSON file") from None
    except UnicodeDecodeError:
        raise CliError(f"{file} is not UTF-8 text; convert it, or pass the text on stdin") from None
    except OSError as exc:
        raise CliError(f"{file}: {exc.strerror or exc}") from None


def cmd_punctuate(args) -> int:
    from engine.decoder import Settled, StreamingDecoder
    from engine.offline import OfflineDecoder
    from engine.word_input import InputError, parse_words

    if args.threshold is not None and not 0.0 <= args.threshold <= 2.0:
        raise CliError("--threshold must be between 0 and 2 bits")
    if args.lookahead is not None and not 0 <= args.lookahead <= 16:
        raise CliError("--lookahead must be between 0 and 16 words")
    content, source = read_input(args.file)
    try:
        words = parse_words(content, source)
    except InputError as exc:
        raise CliError(str(exc)) from None
    model = load_model(args.model_dir, args.threads)
    if args.mode == "offline":
        views = None
        if args.lookahead is not None:
            views = [(args.lookahead, w) for _, w in model.config.decoder.offline_views]
        decoder = OfflineDecoder.from_model(model, casing=not args.no_casing, views=views,
                                            use_pauses=not args.no_pauses)
        settled = decoder.decode(words)
    else:
        overrides = {"threshold": args.threshold, "l_max": args.lookahead}
        if args.lookahead is not None:
            overrides["l_min"] = min(model.config.decoder.l_min, args.lookahead)
        decoder = StreamingDecoder.from_model(model, casing=not args.no_casing, use_pauses=not args.no_pauses,
                                              **overrides)
        settled_by_pos: dict[int, Settled] = {}
        for word in words:
            for event in decoder.push(word):
                if isinstance(event, Settled):
                    settled_by_pos[event.position] = event
        for event in decoder.flush():
            if isinstance(event, Settled):
                settled_by_pos[event.position] = event
        settled = [settled_by_pos[i] for i in range(len(words))]
    write_output(words, settled, args.format)
    return 0


def write_output(words, settled, fmt: str) -> None:
    from engine.words import MARK_TEXT

    if fmt == "json":
        rows = [{"word": w.text, "form": s.form, "mark": s.mark, "case": s.case, "lookahead": s.lookahead_used}
                for w, s in zip(words, settled)]
        # One word per line: readable, and still one JSON document.
        sys.stdout.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n")
    else:
        sys.stdout.write(" ".join(s.form + MARK_TEXT[s.mark] for s in settled) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
