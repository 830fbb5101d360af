"""``livecap listen``: live captions in the terminal from a microphone, system audio or a file.

Ctrl-C (or SIGTERM) is the normal way to end, and exits 0: the session then stops its
source, drains it (the audio already captured is still recognized), runs the recognizer's
last decode, settles every mark and closes the journal cleanly; the summary line is the last
thing printed. A SIGTERM during that drain lets it finish; a second Ctrl-C gives up at once and
exits 130: the caption line is cleared and nothing follows the one line saying that ``livecap
recover`` will save the session (its journal stays "unfinished"), so the prompt starts a line.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from engine.audio.pausable import SourceChoice
from engine.cli.common import (
    CliError,
    describe_recognizer,
    load_model,
    recognition_choice,
    say_unpacking,
    terminate_as_ctrl_c,
    warn,
)
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources, opened_recognizers


def source_choice(spec: str, device: str | None, realtime: bool) -> SourceChoice:
    """What one ``--source`` asks for; a mistake costs one line."""
    from engine.audio.sources import SourceSpecError, parse_source

    try:
        choice = parse_source(spec)
    except SourceSpecError as exc:
        raise CliError(str(exc)) from None
    if choice.kind == "file":
        if device is not None:
            raise CliError("--device chooses a microphone or monitor; it does not apply to a file")
        return choice
    if realtime:
        raise CliError("--realtime paces a file; a microphone, system audio or an app is live already")
    if choice.kind == "app":
        if device is not None:
            raise CliError("--device chooses a microphone or monitor; app:NAME names the application")
        return choice
    return SourceChoice(choice.kind, device or "")


def source_choices(args) -> tuple[SourceChoice, SourceChoice | None]:
    """(Me, Others or None): one ``--source``, or a meeting's two."""
    specs = args.source or ["mic"]
    if len(specs) > 2:
        raise CliError("--source at most twice: Me (the microphone) and Others (system or app:NAME)")
    if len(specs) == 2 and args.device is not None:
        raise CliError("--device applies to one source; in a meeting the default devices are used")
    choices = [source_choice(spec, args.device, args.realtime) for spec in specs]
    if len(choices) == 2 and choices[0].kind == choices[1].kind and choices[0].kind != "file":
        raise CliError(f"--source {specs[0]} twice: a meeting is the microphone and system or app:NAME")
    return choices[0], choices[1] if len(choices) == 2 else None


def session_spec(args) -> SessionSpec:
    """The session ``livecap listen`` asks for: the model's decoder settings, a journal in the
    per-user folder (or the fallback the session's factory chooses, said once by ``build_session``)."""
    source, others = source_choices(args)
    choice = recognition_choice(args)
    return SessionSpec(
        language=choice.language,
        translate=choice.translate,
        source=source,
        others=others,
        journal_keep_days=args.keep_days,
        realtime=args.realtime,
        recognizer=choice.recognizer,
        recognizer_model=args.model or "",
        marks=choice.marks,
        model_dir=args.model_dir,
        accuracy=choice.accuracy,
        echo_guard=not getattr(args, "no_echo_guard", False),
        vocabulary=choice.vocabulary,
    )


def session_resources(args) -> SessionResources:
    """Recognizers opened in this process (nothing here must stay responsive while PocketSphinx
    decodes), the model on ``--threads``, its errors as one line."""
    recognizers = opened_recognizers(isolated=False, verbose=getattr(args, "verbose", False))
    return SessionResources(recognizers, lambda folder: load_model(folder, args.threads))


def build_session(args):
    """The live session ``args`` ask for (``listen``, ``dictate``), not started; errors in one line."""
    from engine.audio.base import AudioError
    from engine.recognizers import RecognizerError

    spec = session_spec(args)
    say_unpacking(*spec.recognition.request(live=True))
    try:
        session, info = build_live_session(spec, session_resources(args))
    except (AudioError, RecognizerError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        if exc.filename is not None or "PortAudio" not in str(exc):  # the journal's folder
            where = f" in {Path(exc.filename).parent}" if exc.filename else ""
            raise CliError(f"cannot create the session journal{where}: {exc.strerror or exc}") from None
        raise CliError(f"audio capture is unavailable: {exc}") from None  # sounddevice without PortAudio
    if info.notice:  # the recognizer's (one that cannot keep up, a fallback)
        warn(info.notice)
    if info.punctuation_notice:  # another language than the model's, or the shipped model instead
        warn(info.punctuation_notice)
    if info.journal_notice:  # the journal went to a fallback folder, or crash recovery is off
        warn(info.journal_notice)
    if info.kind.language == "multilingual":  # the language and the model, and the detected one later
        print(f"livecap: {describe_recognizer(info.name, info.language, info.translating)}", file=sys.stderr)
        session.subscribe(_detected_language_line(info))
    return session


def _detected_language_line(info):
    """A subscriber that says the language once the recognizer has told it from the speech."""
    from engine.events import LanguageDetected
    from engine.speakers.labels import SpeakerNames

    def say(events) -> None:
        for event in events:
            if isinstance(event, LanguageDetected):
                line = describe_recognizer(info.name, event.language, info.translating, detected=True)
                side = SpeakerNames().line_label(event.speaker or "")  # "Others: " in a meeting
                print(f"livecap: {side}{line}", file=sys.stderr, flush=True)

    return say


def left_unfinished(journal) -> str:
    """What becomes of a session given up before it closed (a second Ctrl-C): its journal stays
    "unfinished", and ``livecap recover`` saves it."""
    if journal is None:
        return "its words were not kept (crash recovery was off)"
    return "`livecap recover` will save the unfinished session"


def exit_now(status: int) -> NoReturn:
    """End the process at once, printing nothing more: the session given up still runs on its
    threads, and finalising the interpreter around them would print (native bindings report the
    objects still alive). Nothing is lost by it: the journal's lines are flushed as written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said anyway
            pass
    os._exit(status)


@contextmanager
def stopping_already() -> Iterator[None]:
    """Outside the wait for the session, SIGTERM asks for what is under way (the session stops):
    that is let finish (the last words recognized, the journal closed) instead of the process
    dying mid-save."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_listen(args) -> int:
    from engine.audio.base import AudioError
    from engine.audio.sources import describe_sources
    from engine.cli.share import start_sharing
    from engine.cli.terminal_captions import TerminalCaptions

    session = build_session(args)
    source, journal = session.source, session.journal
    if source.warning:  # a recorder that crashed left a WAV cut short
        warn(source.warning)
    captions = TerminalCaptions()
    session.subscribe(captions)
    sharing = start_sharing(session, args)  # None unless --share or --lan
    try:
        session.start()
    except AudioError as exc:
        if sharing is not None:
            sharing.stop()
        raise CliError(str(exc)) from None
    listening = describe_sources(*(side.source.name for side in session.sides))  # "microphone + Zoom"
    print(f"livecap: listening to {listening}; press Ctrl-C to stop", file=sys.stderr, flush=True)
    interrupted = False
    with stopping_already():  # what terminate_as_ctrl_c gives SIGTERM back to: no gap in between
        try:
            with terminate_as_ctrl_c():
                while not session.wait(0.2):
                    pass
        except KeyboardInterrupt:  # the normal way to stop (SIGTERM too)
            interrupted = True
        try:
            if interrupted:
                captions.pause()  # the stopping line gets a line of its own; the captions follow it
                print("livecap: stopping (settling the last marks)...", file=sys.stderr, flush=True)
            # The source stops, what it captured is recognized, the recognizer's last decode is
            # committed and every mark settles: the words heard up to Ctrl-C are all kept.
            transcript = session.stop()
        except KeyboardInterrupt:  # a second Ctrl-C: give up the last decode, and say so last
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a third must not cut that line short
            captions.abandon()
            warn(f"stopped at once, before the last words settled; {left_unfinished(journal)}")
            exit_now(130)
        if sharing is not None:  # after the last marks settled: the page shows them too
            sharing.stop()
        captions.finish()  # the last captions; from here on nothing but the summary is printed
        session.unsubscribe(captions)
        if journal is None:
            kept = "no journal (crash recovery was off)"
        elif journal.path.exists():
            kept = f"transcript journal saved to {journal.path}"
        else:
            kept = "no words, so no journal kept"
        print(f"livecap: {len(transcript.words)} words; {kept}", file=sys.stderr, flush=True)
    # Ctrl-C or SIGTERM is a stop the user asked for; an input that failed on its own is not.
    return 0 if interrupted or not session.error else 1
