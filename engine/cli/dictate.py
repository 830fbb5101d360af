"""``livecap dictate``: type settled, punctuated words into whatever window has the focus.

    livecap dictate                  # from the microphone, until Ctrl-C or `livecap dictate --stop`
    livecap dictate --toggle         # pause or resume a running livecap's dictation (bind it to a key)
    livecap dictate --stop           # end a running `livecap dictate`

The session is the one ``livecap listen`` runs (journal included); a ``DictationSink`` types
its final words. Ctrl-C, ``--stop`` or a pause stop the typing at once: nothing more is typed,
while the session itself still drains and closes its journal cleanly.
"""

from __future__ import annotations

import sys

from engine.cli.common import CliError, terminate_as_ctrl_c, warn
from engine.cli.listen import build_session

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


def _dictate(args) -> int:
    from engine.audio.base import AudioError
    from engine.dictation.control import ControlServer, ControlUnavailable
    from engine.dictation.switch import DictationSwitch
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
    session = build_session(args)
    if getattr(session.source, "warning", None):  # a WAV cut short
        warn(session.source.warning)

    def typing_failed(message: str) -> None:  # on the typing thread: say why, and end
        warn(message)
        dictation.closed.set()  # the main loop closes it: close() here would join this very thread

    def stop() -> str:
        dictation.close()
        return "stopping"

    dictation = DictationSwitch(typist, commands, on_error=typing_failed)
    control = ControlServer(
        {"toggle": lambda: dictation.toggle(session), "stop": stop, "status": lambda: dictation.state}
    )
    try:
        control.start()
    except (ControlUnavailable, OSError) as exc:
        if session.journal is not None:
            session.journal.close(clean=True)
        raise CliError(str(exc)) from None
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
        try:
            with terminate_as_ctrl_c():
                while not dictation.closed.is_set() and not session.wait(0.2):
                    pass
            if not dictation.closed.is_set():  # the input ended (a file): type its last words
                session.stop()
                sink = dictation.sink
                if sink is not None:
                    sink.drain()
        except KeyboardInterrupt:
            pass
        dictation.close()  # nothing is typed after this
        transcript = session.stop()
    finally:
        control.stop()
    sink_words = len(transcript.words)
    warn(f"{sink_words} words heard; dictation ended")
    return 1 if session.error else 0
