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
import threading

from engine.cli.common import CliError, warn
from engine.cli.listen import build_session


def cmd_dictate(args) -> int:
    from engine.dictation.control import ControlUnavailable, send_command

    for flag, command in (("stop", "stop"), ("toggle", "toggle"), ("status", "status")):
        if getattr(args, flag):
            try:
                print(f"livecap: {send_command(command)}", file=sys.stderr)
            except ControlUnavailable as exc:
                raise CliError(str(exc)) from None
            return 0
    return _dictate(args)


class Dictation:
    """The running dictation of one session: on, paused, or stopped for good."""

    def __init__(self, session, typist, commands):
        self.session, self.typist, self.commands = session, typist, commands
        self.sink = None
        self.lock = threading.Lock()
        self.finished = threading.Event()  # --stop asked for the end

    def resume(self) -> str:
        from engine.dictation.sink import DictationSink

        with self.lock:
            if self.sink is None and not self.finished.is_set():
                self.sink = DictationSink(self.typist, self.commands, on_error=self._failed).start()
                self.session.subscribe(self.sink)
            return "dictating"

    def pause(self) -> str:
        with self.lock:
            sink, self.sink = self.sink, None
        if sink is not None:
            self.session.unsubscribe(sink)
            sink.stop()  # types nothing more
        return "paused"

    def toggle(self) -> str:
        return self.pause() if self.sink is not None else self.resume()

    def status(self) -> str:
        return "dictating" if self.sink is not None else "paused"

    def stop(self) -> str:
        self.finished.set()
        self.pause()
        return "stopping"

    def drain(self) -> None:
        sink = self.sink
        if sink is not None:
            sink.drain()

    def _failed(self, message: str) -> None:
        warn(message)
        self.finished.set()


def _dictate(args) -> int:
    from engine.audio.base import AudioError
    from engine.dictation.control import ControlServer, ControlUnavailable
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
    dictation = Dictation(session, typist, commands)
    control = ControlServer({"toggle": dictation.toggle, "stop": dictation.stop, "status": dictation.status})
    try:
        control.start()
    except (ControlUnavailable, OSError) as exc:
        if session.journal is not None:
            session.journal.close(clean=True)
        raise CliError(str(exc)) from None
    try:
        dictation.resume()
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
            while not dictation.finished.is_set() and not session.wait(0.2):
                pass
            if not dictation.finished.is_set():  # the input ended (a file): type its last words
                session.stop()
                dictation.drain()
        except KeyboardInterrupt:
            pass
        dictation.stop()  # nothing is typed after this
        transcript = session.stop()
    finally:
        control.stop()
    sink_words = len(transcript.words)
    warn(f"{sink_words} words heard; dictation ended")
    return 1 if session.error else 0
