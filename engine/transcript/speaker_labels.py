"""Who spoke, on the transcript's side: which label changes a keeper of words takes, and the
speaker names as a transcript, a journal and an export write them.

A meeting labels each word with a speaker id (``Word.speaker``, ``engine.speakers.labels``).
A label may come after its word was appended and be corrected until its turn settles
(``SpeakersLabelled``); ``LabelSettling`` is that rule, kept once for every holder of labels
(the transcript builder, the journal writer), so the window and a recovered journal agree.
Names are never stored on words: a rename changes every word of a speaker at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from engine.events import SpeakersLabelled
from engine.speakers.labels import SpeakerNames

log = logging.getLogger(__name__)


class LabelSettling:
    """The settle rule for speaker labels: a label may be corrected until its turn settles, and a
    position below the settled point already seen never changes label again (as a settled mark
    never changes). An event that tries is ignored for that position, and logged once."""

    def __init__(self, holder: str):
        self.holder = holder  # what keeps the labels, for the log line
        self.settled_through = 0  # positions below it keep their labels
        self._warned = False

    def accepted(
        self, event: SpeakersLabelled, label_of: Callable[[int], str | None]
    ) -> list[tuple[int, str]]:
        """The labels of ``event`` that change a word: (position, speaker id), in position order.
        ``label_of(position)`` is the position's label now, None for a word the holder does not
        keep (appended before it listened, or already forgotten): nothing to change there."""
        changes = []
        for position, speaker in sorted(dict(event.labels).items()):  # the last label of a position wins
            now = label_of(position)
            if now is None or now == speaker:
                continue
            if position < self.settled_through:
                if not self._warned:
                    log.warning(
                        "%s: a settled speaker label cannot change (position %d, %r to %r); ignored",
                        self.holder,
                        position,
                        now,
                        speaker,
                    )
                    self._warned = True
                continue
            changes.append((position, speaker))
        self.settled_through = max(self.settled_through, event.settled_through)
        return changes

    def retracted(self, from_position: int) -> None:
        """Words from ``from_position`` on were removed: the words that take their positions are
        new ones, whose labels have not settled."""
        self.settled_through = min(self.settled_through, from_position)


def names_to_dict(names: SpeakerNames) -> dict[str, Any]:
    """``names`` as JSON (a journal line, a header)."""
    return {"me": names.me, "others": names.others, "renamed": dict(names.renamed)}


def names_from_dict(data: Any) -> SpeakerNames:
    """The ``SpeakerNames`` that ``names_to_dict`` wrote; a field missing or of the wrong type
    (a hand-edited or torn file) takes its default."""
    default = SpeakerNames()
    if not isinstance(data, Mapping):
        return default
    me, others, renamed = data.get("me"), data.get("others"), data.get("renamed")
    return SpeakerNames(
        me=me if isinstance(me, str) and me.strip() else default.me,
        others=others if isinstance(others, str) and others.strip() else default.others,
        renamed={str(k): v for k, v in renamed.items() if isinstance(v, str)}
        if isinstance(renamed, Mapping)
        else {},
    )
