"""``livecap punctuate``: text or timed words in, punctuated text or JSON out.

A long text (200,000 words take minutes) must show progress and keep its work:
each sentence is written, and stdout flushed, as soon as its marks are settled,
a progress bar runs on stderr when that is a terminal, and Ctrl-C writes every
word settled so far before exiting with 130. The end of the input ends a sentence.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from engine.cli.common import CliError, interrupt_deferred, load_model, warn


def read_input(path: str) -> tuple[str, str]:
    """The text of ``path`` (``-``: stdin) and the name to use for it in messages.

    Both are read as bytes and go through ``decode_text``, so garbage piped in gets the same
    clear error as the same bytes in a file, instead of being "punctuated" into junk.
    """
    if path == "-":
        return decode_text(sys.stdin.buffer.read(), "stdin"), "stdin"
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{file}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{file} is a folder; give a text or JSON file") from None
    except OSError as exc:
        raise CliError(f"{file}: {exc.strerror or exc}") from None
    return decode_text(data, str(file)), str(file)


def decode_text(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    # A NUL byte is valid UTF-8 but never part of a text a person wrote: it is binary data.
    if text is None or "\0" in text:
        raise CliError(
            f"{name} is not UTF-8 text (binary data?); give a text or JSON file, "
            "or convert it first (e.g. iconv -t UTF-8)"
        )
    return text


class SentenceWriter:
    """Writes settled words to ``out`` a sentence at a time, so that what is written is final.

    The text output is the words joined by single spaces and a newline at the end, the JSON
    output one list with one word per line: the same bytes as writing everything at once.
    """

    def __init__(self, words, fmt: str, out: TextIO, layout=None):
        """``layout``: a plain text's ``TextLayout`` (what stood around its words), or None."""
        self.words, self.fmt, self.out = words, fmt, out  # words: the input, for JSON's "word"
        self.layout = layout
        self.held: list = []  # settled words of the sentence not yet ended
        self.written = 0
        self._space = ""  # between the last word written and the next

    def add(self, settled) -> None:
        from engine.words import SENTENCE_END_MARKS

        if self.held and self.held[-1].position == settled.position:
            self.held[-1] = settled  # the last word, settled again at the end of input
        else:
            self.held.append(settled)
        if settled.mark in SENTENCE_END_MARKS:
            self.write_held()

    def write_held(self) -> None:
        if not self.held:
            return
        with interrupt_deferred():
            self._write(self.held)
            self.written += len(self.held)
            self.held = []

    def _write(self, held) -> None:
        from engine.words import MARK_TEXT

        layout = self.layout
        if self.fmt == "json":
            rows = []
            for s in held:
                row = {
                    "word": self.words[s.position].text,
                    "form": s.form,
                    "mark": s.mark,
                    "case": s.case,
                    "lookahead": s.lookahead_used,
                }
                if layout is not None:  # emoji, quotes, brackets: never dropped
                    p = s.position
                    around = (("before", layout.before[p]), ("after", layout.after[p] + layout.trailing[p]))
                    row.update((k, v) for k, v in around if v)
                rows.append(json.dumps(row, ensure_ascii=False))
            text = ("[\n" if not self.written else ",\n") + ",\n".join(rows)
        else:
            text = ""
            for s in held:
                if layout is not None:
                    word = layout.render(s.position, s.form, MARK_TEXT[s.mark])
                    glued = layout.glued[s.position]
                else:
                    word, glued = s.form + MARK_TEXT[s.mark], False
                text += self._space + word
                self._space = "" if glued else " "
        self.out.write(text)
        self.out.flush()

    def close(self) -> None:
        """Write what is held and end the document."""
        self.write_held()
        if self.fmt == "json":
            self.out.write("[\n\n]\n" if not self.written else "\n]\n")
        else:
            self.out.write("\n")
        self.out.flush()


def cmd_punctuate(args) -> int:
    from engine.cli.progress import ProgressBar
    from engine.events import Settled
    from engine.punctuation.offline import OfflineDecoder
    from engine.punctuation.streaming import StreamingDecoder
    from engine.punctuation.text_input import InputError, read_words

    if args.threshold is not None and not 0.0 <= args.threshold <= 2.0:
        raise CliError("--threshold must be between 0 and 2 bits")
    if args.lookahead is not None and not 0 <= args.lookahead <= 16:
        raise CliError("--lookahead must be between 0 and 16 words")
    content, source = read_input(args.file)
    try:
        words, layout = read_words(content, source)
    except InputError as exc:
        raise CliError(str(exc)) from None
    del content
    mode = args.mode or default_mode(args.file)
    model = load_model(args.model_dir, args.threads)
    settings = model.config.decoder.override(
        threshold=args.threshold,
        l_max=args.lookahead,
        pause_threshold=0 if args.no_pauses else None,
        casing=not args.no_casing,
    )
    # A bar only where a person watches stderr, and not when the text itself streams onto the
    # same terminal: redrawing a line there would write over the sentences.
    terminal = _is_terminal(sys.stderr) and not _is_terminal(sys.stdout)
    bar = ProgressBar(f"punctuating ({mode})", unit="words") if terminal else None
    writer = SentenceWriter(words, args.format, sys.stdout, layout)
    total = len(words)

    try:
        if mode == "offline":
            decoder = OfflineDecoder.from_model(model, settings)
            for run in decoder.iter_decode(words, bar.update if bar else None, end_of_input=True):
                for s in run:
                    writer.add(s)
        else:
            decoder = StreamingDecoder.from_model(model, settings)
            for i, word in enumerate(words):
                for event in decoder.push(word):
                    if isinstance(event, Settled):
                        writer.add(event)
                if bar:
                    bar.update(i + 1, total)
            for event in decoder.finish():  # the end of the input ends a sentence
                if isinstance(event, Settled):
                    writer.add(event)
    except KeyboardInterrupt:
        if bar:
            bar.finish()
        writer.close()  # every word held is settled: its marks are final, so it is kept
        warn(f"interrupted: the first {writer.written} of {total} words were punctuated and written")
        return 130
    if bar:
        bar.finish()
    writer.close()
    return 0


def default_mode(path: str) -> str:
    """A file is punctuated whole, whatever its format (offline: more accurate, and many times
    faster), timed words and livecap's own JSON transcripts included: it is all there already.
    Stdin may be a live pipe, so it is decoded as it streams."""
    return "stream" if path == "-" else "offline"


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
