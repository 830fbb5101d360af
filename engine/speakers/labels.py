"""Speaker ids and the names shown for them.

A word's ``speaker`` is an id, never a display name, so a rename ("Others 2" → "Ana") changes
every word of that speaker at once, in the window and in exports, without touching the journal:

- ``"me"``: the microphone's side;
- ``"others"``: the system or application audio, before (or without) telling voices apart;
- ``"others:N"`` (N = 1, 2, …): the N-th voice heard among the others;
- ``""``: a one-source session, where no label is shown.

The first voice among the others is shown by the others' name alone ("Others"), and the voices
heard after it are numbered from 2 ("Others 2"): most calls have one other voice, and "Others 1"
would promise a second. A label shown never changes (a settled voice keeps its id), so the first
voice stays "Others" when a second is heard, rather than becoming "Others 1".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["ME", "OTHERS", "SpeakerNames", "is_others", "others_voice", "voice_number"]

ME = "me"
OTHERS = "others"
LABEL_END = ": "  # after a name at the start of a line: "Me: "


def others_voice(number: int) -> str:
    """The id of the ``number``-th voice among the others (from 1)."""
    if number < 1:
        raise ValueError(f"voice numbers start at 1, not {number}")
    return f"{OTHERS}:{number}"


def voice_number(speaker: str) -> int | None:
    """N for ``"others:N"``; None for any other id."""
    prefix, _, number = speaker.partition(":")
    if prefix != OTHERS or not number.isdigit():
        return None
    return int(number)


def is_others(speaker: str) -> bool:
    return speaker == OTHERS or voice_number(speaker) is not None


@dataclass(frozen=True)
class SpeakerNames:
    """The names shown for speaker ids: the user's renames over the defaults."""

    me: str = "Me"
    others: str = "Others"
    renamed: Mapping[str, str] = field(default_factory=dict)  # id → name, for any id

    def line_label(self, speaker: str) -> str:
        """What starts a line, a paragraph or a cue of ``speaker``'s words: "Me: ", "Others 2: ";
        "" for the one-source id ""."""
        return f"{self.name(speaker)}{LABEL_END}" if speaker else ""

    def name(self, speaker: str) -> str:
        """The display name of ``speaker`` ("" for the one-source id "")."""
        if not speaker:
            return ""
        if speaker in self.renamed and self.renamed[speaker].strip():
            return self.renamed[speaker].strip()
        if speaker == ME:
            return self.me
        number = voice_number(speaker)
        if speaker == OTHERS or number == 1:  # the first voice: the others' name alone
            return self.others
        if number is not None:
            return f"{self.others} {number}"
        return speaker
