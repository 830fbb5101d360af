"""A meeting's two sides: opening their sources, with the sound server's echo canceller where it
can work, and the recognizer streams they run.

Without a headset the microphone hears the others through the speakers. Where the others are one
application's audio (``app:NAME``) and the server has ``module-echo-cancel``, the microphone is
recorded through the canceller, and the application's stream plays through the canceller's
reference sink (same speakers), followed to its next stream when a new call starts. Elsewhere
(the whole system audio, a server without the module, a microphone the server cannot name) the
echo guard alone hides the others' words heard again (``engine.speakers.echo_guard``), and
``MeetingSources.echo`` says why, in one line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from engine.audio.base import AudioError
from engine.audio.pausable import PausableSource, SourceChoice, open_source
from engine.recognizers.base import Recognizer
from engine.session.live import meeting_stabiliser
from engine.session.side import SessionSide, reads_ahead
from engine.speakers.labels import ME, OTHERS

__all__ = ["MeetingSources", "meeting_sides", "open_meeting_sources"]

log = logging.getLogger(__name__)

GUARD = "the echo guard hides the others' words that the microphone hears again"
NO_GUARD = "the echo guard is off (a headset): every word the microphone hears is shown"


@dataclass
class MeetingSources:
    me: PausableSource
    others: PausableSource
    echo: str  # one line: how echo is handled, for Settings and the status bar
    # What to undo when the session stops (the canceller's module, the stream it moved).
    closers: list = field(default_factory=list)


def open_meeting_sources(
    me: SourceChoice,
    others: SourceChoice,
    realtime: bool = True,
    echo_cancel: bool = True,
    echo_guard: bool = True,
) -> MeetingSources:
    """The two sides' sources, not started. AudioError for a source that cannot open, with the
    canceller (if loaded) unloaded again. ``echo_guard``: whether the session runs the guard
    (its line says so)."""
    if me.kind == "file" or others.kind == "file":  # recorded audio: no speakers, no echo
        return MeetingSources(open_source(me, realtime), open_source(others, realtime), "")
    guard = GUARD if echo_guard else NO_GUARD
    if not echo_cancel:
        return MeetingSources(open_source(me), open_source(others), f"Echo canceller off; {guard}.")
    if others.kind != "app":
        line = f"The echo canceller needs one application's audio (app:NAME), not all of it; {guard}."
        return MeetingSources(open_source(me), open_source(others), line)
    from engine.audio.applications import list_applications
    from engine.audio.echo_cancel import EchoCanceller

    try:
        playing = [app for app in list_applications() if app.matches(others.device)]
        if not playing:  # its source says so when the session starts
            line = f"{others.device} is not playing; {guard}."
            return MeetingSources(open_source(me), open_source(others), line)
        # The canceller's microphone: the server's name for it (a monitor standing in for one,
        # or the default source; a PortAudio device name means nothing to the server).
        canceller = EchoCanceller(me.device if me.kind == "system" and me.device else None,
                                  playing[0].sink)  # fmt: skip
        canceller.start()
    except AudioError as exc:  # no module, no such microphone: the guard alone
        log.info("echo canceller unavailable: %s", exc)
        return MeetingSources(open_source(me), open_source(others), f"{exc}; {guard}.")
    try:
        canceller.route_application(others.device)
        others_source = open_source(others)
        app_source = others_source.inner

        def follow(event) -> None:  # a new call: its stream goes through the canceller too
            if event.kind == "device_back" and app_source.index is not None:
                try:
                    canceller.route(app_source.index)
                except AudioError as exc:
                    log.warning("could not route the new stream through the echo canceller: %s", exc)

        app_source.on_event = follow
        me_source = PausableSource(canceller.open_source(), live=True)
    except BaseException:
        canceller.stop()
        raise
    line = f"The sound server's echo canceller cleans the microphone, and {guard}."
    return MeetingSources(me_source, others_source, line, [canceller.stop])


def meeting_sides(
    me_source, others_source, recognizer: Recognizer, voices=None, guard=None
) -> list[SessionSide]:
    """A meeting's two sides: Me on the microphone with ``recognizer``, Others with a second
    stream on its model (``Recognizer.another_stream``), each stabilised for merging.
    ``voices`` (``OthersVoices``) hears the others' audio, to tell their voices apart; ``guard``
    (``EchoGuard``) the microphone's, for its level. Two files read as fast as they decode run
    ahead (``SessionSide.runs_ahead``): the session merges their words by their timelines."""
    others_recognizer = recognizer.another_stream()
    ahead = reads_ahead(me_source) or reads_ahead(others_source)
    return [
        SessionSide(me_source, recognizer, meeting_stabiliser(), ME, 0,
                    on_audio=guard.hear_me if guard is not None else None, runs_ahead=ahead),
        SessionSide(others_source, others_recognizer, meeting_stabiliser(), OTHERS, 1,
                    owns_recognizer=True, on_audio=voices.hear if voices is not None else None,
                    checks_input=False, runs_ahead=ahead),
    ]  # fmt: skip


def others_voices():
    """(``OthersVoices`` on the shipped speaker encoder, "") or, where it cannot load, (None, one
    line: the others' words are then all labelled Others)."""
    from engine.speakers.embedding import SpeakerEncoder
    from engine.speakers.voices import OthersVoices

    try:
        return OthersVoices(SpeakerEncoder().embed), ""
    except (OSError, RuntimeError, ValueError) as exc:  # a missing or damaged model file
        log.warning("speaker encoder unavailable: %s", exc)
        return None, f"Voices among the others are not told apart ({exc})."
