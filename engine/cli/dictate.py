"""``livecap dictate``: type settled, punctuated words into whatever window has the focus.

    livecap dictate                  # from the microphone, until Ctrl-C or `livecap dictate --stop`
    livecap dictate --toggle         # pause or resume a running livecap's dictation (bind it to a key)
    livecap dictate --stop           # end a running `livecap dictate`

The session is the one ``livecap listen`` runs (journal included); a ``DictationSink`` types
its final words. Ctrl-C, ``--stop`` or a pause stop the typing at once: nothing more is typed,
while the session itself still drains and closes its journal cleanly. A pause stops the
listening too: nothing said while paused is recognized or kept. Ctrl-C is the ordinary way to
end, so it exits 0.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

from engine.cli.common import CliError, terminate_as_ctrl_c, warn
from engine.cli.listen import build_session, exit_now, left_unfinished

NOT_RUNNING = "not running"  # what --status answers when no livecap listens (dictating, paused)


def cmd_dictate(args) -> int:
    from engine.dictation.control import ControlUnavailable, send_command

    for flag, command in (("stop", "stop"), ("toggle", "toggle"), ("status", "status")):
        if getattr(args, flag):
            try:
                print(f"livecap: {send_command(command)}", file=sys.stderr)
            except ControlUnavailable as exc:
                if command == "status":  # "not running" answers the question: not an error
                    print(f"livecap: {NOT_RUNNING}", file=sys.stderr)
                    return 0
                raise CliError(str(exc)) from None
            return 0
    return _dictate(args)


def toggle(dictation, session) -> str:
    """Pause or resume, for ``livecap dictate --toggle``; the state it leaves. Paused means not
    listening: the session's source is paused too, so nothing is recognized and nothing goes
    into the journal (a microphone's audio is read and dropped, a file stops where it is). Only
    the sentence under way when the pause came is ended, untyped."""
    from engine.dictation.switch import DICTATING

    if dictation.state == DICTATING:
        state = dictation.detach()  # first: nothing more is typed, not even that last sentence
        for side in session.sides:
            side.source.set_paused(True)
        return state
    for side in session.sides:
        side.source.set_paused(False)
    return dictation.attach(session)


def _dictate(args) -> int:
    from engine.dictation.typists import DictationUnavailable, choose_typist

    try:
        typist = choose_typist()  # before anything starts: refused rather than half-working
    except DictationUnavailable as exc:
        raise CliError(str(exc)) from None
    from engine.dictation.typed_text import COMMANDS

    commands = [c.replace("-", " ") for c in args.commands]
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        known = ", ".join(c.replace(" ", "-") for c in COMMANDS)
        raise CliError(f"unknown spoken command {unknown[0].replace(' ', '-')!r}; choose from {known}")
    # Ctrl-C (or SIGTERM) is how a user stops dictating, so it exits 0 whenever it comes: while
    # the models load, while dictating, or a second time while the last words settle.
    try:
        with _stop_after_loading() as asked:
            session = build_session(args)
    except KeyboardInterrupt:
        warn("stopped before dictation began; nothing was typed")
        return 0
    if asked():
        if session.journal is not None:
            session.journal.close(clean=True)
        warn("stopped before dictation began; nothing was typed")
        return 0
    if session.source.warning:  # a WAV cut short
        warn(session.source.warning)
    return _run(session, typist, commands)


@contextlib.contextmanager
def _stop_after_loading():
    """Inside the block, Ctrl-C or SIGTERM asks to stop once it is done, and a second one stops
    at once; yields a callable saying whether a stop was asked for. A KeyboardInterrupt raised
    inside a native library's start-up (ONNX Runtime's, while the punctuation model loads)
    comes out as an ImportError with a traceback, not as a stop."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    asked: list[int] = []

    def stop(signum, frame) -> None:
        if asked:
            raise KeyboardInterrupt
        asked.append(signum)
        warn("stopping once the models have loaded (Ctrl-C again stops at once)")

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: bool(asked)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _run(session, typist, commands) -> int:
    from engine.audio.base import AudioError
    from engine.dictation.control import ControlServer, ControlUnavailable
    from engine.dictation.switch import DictationSwitch

    def typing_failed(message: str) -> None:  # on the typing thread: say why, and end
        warn(message)
        dictation.closed.set()  # the main loop closes it: close() here would join this very thread

    def stop() -> str:
        dictation.close()
        return "stopping"

    dictation = DictationSwitch(typist, commands, on_error=typing_failed)
    control = ControlServer(
        {"toggle": lambda: toggle(dictation, session), "stop": stop, "status": lambda: dictation.state}
    )
    try:
        control.start()
    except (ControlUnavailable, OSError) as exc:
        if session.journal is not None:
            session.journal.close(clean=True)
        raise CliError(str(exc)) from None
    gave_up = False
    try:
        with terminate_as_ctrl_c():
            try:
                dictation.attach(session)
                try:
                    session.start()
                except AudioError as exc:
                    raise CliError(str(exc)) from None
                on = f" (spoken commands: {', '.join(commands)})" if commands else ""
                warn(
                    f"dictating from {session.source.name} into the focused window with {typist.name}{on}; "
                    "Ctrl-C or livecap dictate --stop ends it, livecap dictate --toggle pauses it"
                )
                while not dictation.closed.is_set() and not session.wait(0.2):
                    pass
                if not dictation.closed.is_set():  # the input ended (a file): type its last words
                    session.stop()
                    sink = dictation.sink
                    if sink is not None:
                        sink.drain()
            except KeyboardInterrupt:
                pass
            try:
                dictation.close()  # nothing is typed after this
                transcript = session.stop()
            except KeyboardInterrupt:  # a second Ctrl-C: stop now, without settling the last marks
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # a third must not cut what follows short
                warn(f"dictation ended before its last words settled; {left_unfinished(session.journal)}")
                gave_up = True
    finally:
        control.stop()
    if gave_up:
        exit_now(0)  # the session still runs: nothing may be said after the line above
    warn(f"{len(transcript.words)} words heard; dictation ended")
    return 1 if session.error else 0
