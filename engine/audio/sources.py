"""Where audio comes from, as a person writes it: ``mic``, ``system``, ``app:NAME`` or a file.

``parse_source`` turns that text (``livecap listen --source``, a benchmark's options) into the
``SourceChoice`` every front end already opens sessions from, with kind "mic", "system",
"app" (``device``: the application's name as ``livecap devices`` lists it) or "file"
(``device``: the path). A bad spec gets one line saying what would be right.

``describe_sources`` says what a session listens to as the user reads it ("microphone + Zoom"):
the sources' own names, never the sound server's internal ones.
"""

from __future__ import annotations

from pathlib import Path

from engine.audio.base import AudioError
from engine.audio.pausable import SourceChoice

__all__ = [
    "ECHO_CANCELLED_SOURCE",
    "MICROPHONE",
    "SOURCE_KINDS",
    "SPEC_HELP",
    "SourceChoice",
    "SourceSpecError",
    "describe_sources",
    "parse_source",
]

SOURCE_KINDS = ("mic", "system", "app", "file")
SPEC_HELP = "mic, system, app:NAME (an application playing sound, see livecap devices) or an audio file"
_APP_PREFIX = "app:"
# What the user calls a microphone livecap records through a stand-in (the sound server's echo
# canceller): the server's name for the stand-in means nothing to them.
MICROPHONE = "microphone"
# The sound server's name for the echo-cancelled microphone (``echo_cancel``), which journals
# written before it had a name of its own carry as their source.
ECHO_CANCELLED_SOURCE = "livecap_echo_cancelled"
_INTERNAL_NAMES = {ECHO_CANCELLED_SOURCE: MICROPHONE}


class SourceSpecError(AudioError, ValueError):
    """A source spec that means nothing; the message is one line and says what would."""


def parse_source(spec: str) -> SourceChoice:
    """``"mic"``, ``"system"``, ``"app:NAME"`` or a file's path, as a ``SourceChoice``."""
    text = spec.strip()
    if not text:
        raise SourceSpecError(f"no audio source given; use {SPEC_HELP}")
    lowered = text.lower()
    if lowered in ("mic", "system"):
        return SourceChoice(lowered)
    if lowered.startswith(_APP_PREFIX):
        name = text[len(_APP_PREFIX) :].strip()
        if not name:
            raise SourceSpecError("app: needs the application's name, e.g. app:Firefox (see livecap devices)")
        return SourceChoice("app", name)
    path = Path(text).expanduser()
    # A word that is no file ("sytem", "microphone", "zoom:") is a mistyped kind, not a missing file.
    looks_like_a_path = path.suffix != "" or "/" in text or path.exists()
    if not looks_like_a_path:
        raise SourceSpecError(f"unknown audio source {text!r}; use {SPEC_HELP}")
    return SourceChoice("file", str(path))


def describe_sources(*names: str | None) -> str:
    """What a session listens to, as the terminal, ``recover --list`` and the recovery dialog say
    it: its sources' names joined by " + " ("microphone + Zoom"; one name for one source), empty
    names left out, a sound server's internal name replaced by what the user calls it."""
    return " + ".join(_INTERNAL_NAMES.get(name, name) for name in names if name)
