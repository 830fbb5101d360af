"""What the CLI's subcommands share: the user-facing error, loading the punctuation model, the
recognition choice from the flags, and opening a recognizer for files.

``CliError`` lives here rather than in ``cli.py`` so that subcommand modules
can raise it without importing ``engine.cli.main``: run as ``python -m engine.cli.main``
that module is ``__main__``, and importing it again would create a second,
different ``CliError`` class that ``main()`` would not catch.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from pathlib import Path


class CliError(Exception):
    """An error the user can act on; printed as one line, never a traceback."""


def warn(message: str) -> None:
    print(f"livecap: {message}", file=sys.stderr)


@contextlib.contextmanager
def terminate_as_ctrl_c():
    """Inside the block, SIGTERM (``kill``, a service manager, a closing terminal emulator) stops
    a live command as Ctrl-C does: the session settles its last marks, closes its journal and
    prints its summary, instead of dying with the session left "unfinished"."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def interrupt_deferred():
    """Hold Ctrl-C until the block is done, then raise KeyboardInterrupt. For work that must not
    be cut in two: a sentence written but not yet counted as written would be written twice, and
    an interrupt inside ONNX Runtime's start-up comes out as an ImportError with a traceback.
    (A Python-level handler, not a signal mask: any thread may receive the signal.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


def recognition_choice(args):
    """What ``args`` ask of recognition (``--recognizer``, ``--language``, ``--translate``,
    ``--accuracy``, ``--marks``, ``--vocabulary`` with the user's own) as the engine checks it
    (``plan.RecognitionChoice``); a bad code, a bad vocabulary line, or ``--recognizer`` beside
    a language only Whisper base hears, is one line."""
    from engine.recognizers.kinds import AUTO
    from engine.session.plan import ENGLISH, RecognitionChoice

    try:
        choice = RecognitionChoice(
            recognizer=getattr(args, "recognizer", None) or AUTO,
            language=getattr(args, "language", None) or ENGLISH,
            translate=bool(getattr(args, "translate", False)),
            accuracy=getattr(args, "accuracy", None) or "auto",
            marks=getattr(args, "marks", None) or "auto",
            vocabulary=vocabulary_choice(args),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if choice.uses_language_pack and choice.recognizer != AUTO:
        what = "--translate" if choice.translate else f"--language {choice.language}"
        raise CliError(
            f"{what} runs Whisper base (the language pack), not --recognizer {choice.recognizer}: "
            "drop --recognizer"
        )
    return choice


def vocabulary_choice(args):
    """The session's vocabulary for ``args``: the user's own and ``--vocabulary``'s; a bad file
    is one line naming it and the line."""
    from engine.vocabulary import VocabularyError, session_vocabulary

    try:
        return session_vocabulary(getattr(args, "vocabulary", None))
    except VocabularyError as exc:
        raise CliError(str(exc)) from None


def describe_recognizer(name: str, language: str | None, translating: bool, detected: bool = False) -> str:
    """The status line's words for the recognizer and its language: "whisper-base, German",
    "whisper-base, translating to English from German (detected)". Asked to translate English
    speech, it says that there is nothing to translate (the words are English already) rather
    than "translating to English from English"."""
    from engine.recognizers.language_pack import language_title
    from engine.words import is_english

    spoken = "the language it hears first" if language is None else language_title(language)
    spoken += " (detected)" if detected else ""
    if translating and language is not None and is_english(language):
        told = " (detected)" if detected else ""
        return f"{name}, English speech{told}: the captions are in English; nothing to translate"
    return f"{name}, translating to English from {spoken}" if translating else f"{name}, {spoken}"


def make_recognizer(
    kind: str | None, model: str | None, live: bool = True, verbose: bool = False, options: dict | None = None
):
    """The recognizer the user asked for (or the best one installed), from ``open_recognizer``; its
    notice goes to stderr, an error is one line. ``live=False``: for a whole file at once;
    ``verbose``: Kaldi's log too; ``options``: the kind's own (Whisper base's language and task)."""
    from engine.recognizers import RecognizerError
    from engine.recognizers.select import open_recognizer

    say_unpacking(kind, options)
    try:
        recognizer, notice, _ = open_recognizer(kind, model, live=live, verbose=verbose, options=options)
    except RecognizerError as exc:
        raise CliError(str(exc)) from None
    if notice:
        warn(notice)
    return recognizer


def say_unpacking(kind: str | None, options: dict | None) -> None:
    """Where the recognizer asked for runs the language pack and the pack is not unpacked yet: a
    few seconds' wait, once, said before it starts."""
    from engine.recognizers.accuracy import ACCURACY_OPTION
    from engine.recognizers.kinds import LANGUAGE_PACK, find_kind

    chosen = find_kind(kind)
    if chosen is not None and LANGUAGE_PACK in chosen.models or ACCURACY_OPTION in (options or {}):
        from engine.files.sizes import format_bytes
        from engine.recognizers.language_pack import MODEL_SIZE, language_pack_status

        status = language_pack_status()
        if status.installed and not status.joined:
            warn(f"unpacking the language pack ({format_bytes(MODEL_SIZE)}) into {status.folder}, once")


def load_model(model_dir: Path | None, threads: int = 1):
    """The punctuation model in ``model_dir`` (None: the default), or the shipped one with a
    warning when that one is damaged (``load_model_or_shipped``); errors as one line."""
    from engine.punctuation.model import ModelError, load_model_or_shipped, model_folder

    folder = model_folder(model_dir)
    # A folder with no model at all is a wrong path given on the command line, not a damaged
    # model: say so rather than quietly running another model.
    if not (folder / "config.json").exists() and not (folder / "model.onnx").exists():
        raise CliError(
            f"no punctuation model is installed in {folder}; reinstall livecap, "
            f"or pass --model-dir with a folder holding model.onnx, tokenizer.json and config.json"
        )
    try:
        with interrupt_deferred():  # loading takes a second; Ctrl-C then takes effect
            loaded = load_model_or_shipped(folder, threads=threads)
    except ModelError as exc:
        raise CliError(str(exc)) from exc
    if loaded.problem:
        warn(loaded.problem)
    return loaded.model
