"""``livecap listen``: live captions in the terminal from a microphone, system audio or a file.

Ctrl-C is the normal way to end: the session then drains (the audio already
captured is still recognized, every mark settles) and the journal is closed
cleanly. A second Ctrl-C during that drain gives up at once; the journal then
stays "unfinished" and ``livecap recover`` offers it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.common import CliError, load_model, make_recognizer, recognizer_model


def open_source(kind: str, device: str | None, realtime: bool):
    """The audio source for ``--source``: "mic", "system" or a file path."""
    from engine.audio.base import AudioError

    try:
        if kind == "mic":
            from engine.audio.microphone import MicrophoneSource

            return MicrophoneSource(device)
        if kind == "system":
            from engine.audio.system_audio import SystemAudioSource

            return SystemAudioSource(device)
        from engine.audio.file_source import FileSource

        if device is not None:
            raise CliError("--device chooses a microphone or monitor; it does not apply to a file")
        return FileSource(Path(kind), realtime=realtime)
    except AudioError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:  # sounddevice without a PortAudio library
        raise CliError(f"audio capture is unavailable: {exc}") from None


def cmd_listen(args) -> int:
    from engine.audio.base import AudioError
    from engine.cli.terminal_captions import TerminalCaptions
    from engine.punctuation.streaming import StreamingDecoder
    from engine.session.live import LiveSession
    from engine.transcript.journal import JournalWriter

    if args.realtime and args.source in ("mic", "system"):
        raise CliError("--realtime paces a file; a microphone or system audio is live already")
    source = open_source(args.source, args.device, args.realtime)
    recognizer = make_recognizer(args.recognizer, args.model)
    model = load_model(args.model_dir, args.threads)
    decoder = StreamingDecoder.from_model(model)
    try:
        journal = JournalWriter.create(
            header={
                "recognizer": recognizer.name,
                "model": recognizer_model(recognizer),
                "punctuation_model": str(model.model_dir),
                "source": source.name,
            }
        )
    except OSError as exc:
        raise CliError(f"cannot create the session journal: {exc.strerror or exc}") from None
    session = LiveSession(source, recognizer, decoder, journal)
    captions = TerminalCaptions()
    session.subscribe(captions)
    try:
        session.start()
    except AudioError as exc:
        raise CliError(str(exc)) from None
    print(f"livecap: listening to {source.name}; press Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        while not session.wait(0.2):
            pass
    except KeyboardInterrupt:  # the normal way to stop
        if captions.interactive:
            sys.stdout.write("\r\x1b[K")
            sys.stdout.flush()
        print("livecap: stopping (settling the last marks)...", file=sys.stderr, flush=True)
    transcript = session.stop()
    captions.finish()
    print(
        f"livecap: {len(transcript.words)} words; transcript journal saved to {journal.path}",
        file=sys.stderr,
        flush=True,
    )
    return 1 if session.error else 0
