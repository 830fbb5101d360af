"""How the punctuation decoders decide: one frozen set of settings, each documented here once.

A model's ``config.json`` recommends them (its ``"decoder"`` section, plus the top-level
``"pause_threshold"`` the model was trained with); ``ModelConfig.decoder`` holds them as read.
A live session (``SessionSpec``) and the CLI's flags change a few with ``override``; the
streaming and the offline decoder both take the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.punctuation.model_inputs import DEFAULT_PAUSE_THRESHOLD


@dataclass(frozen=True)
class DecoderSettings:
    """Settings of the entropy threshold decoder (Minixhofer 2021-style streaming) and of the
    offline decoder.

    Attributes:
        l_min: the fewest words of lookahead a live mark waits for, however sure the model is.
        l_max: the most words of lookahead a live mark waits for; at ``l_max`` it settles
            whatever the model's confidence. Bounds the caption latency.
        threshold: entropy threshold h in bits (0 to 2): a live mark settles as soon as its
            predicted distribution's entropy is at most h (lower waits for more context).
        silence_gap: seconds of silence after the last word that settle every pending mark
            (the speaker stopped; captions must not hang); None: only more words settle them.
        pause_threshold: a gap between words of at least this many seconds becomes a
            ``[PAUSE]`` token in the model's input; None: word timings are ignored.
        offline_views: (lookahead, window) pairs the offline decoder scores every word in and
            averages; each places the word differently in its window.
        casing: restore capitals (sentence starts, the model's case classes, the lexicon);
            False leaves every word lowercase.
    """

    l_min: int = 1
    l_max: int = 4
    threshold: float = 0.5
    silence_gap: float | None = 1.2
    pause_threshold: float | None = DEFAULT_PAUSE_THRESHOLD
    offline_views: tuple[tuple[int, int], ...] = ((4, 32), (3, 32))
    casing: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.l_min <= self.l_max:
            raise ValueError(f"need 0 <= l_min <= l_max, got l_min={self.l_min}, l_max={self.l_max}")
        if not self.offline_views:
            raise ValueError("the offline decoder needs at least one (lookahead, window) view")
        object.__setattr__(self, "offline_views", tuple((int(l), int(w)) for l, w in self.offline_views))

    def override(
        self,
        threshold: float | None = None,
        l_max: int | None = None,
        pause_threshold: float | None = None,
        casing: bool | None = None,
    ) -> DecoderSettings:
        """These settings with a user's choices applied, as the app and the CLI offer them:
        None keeps the value; ``pause_threshold`` 0 switches pauses off; an ``l_max`` below
        ``l_min`` lowers ``l_min`` with it."""
        changes: dict = {}
        if threshold is not None:
            changes["threshold"] = threshold
        if l_max is not None:
            changes["l_max"], changes["l_min"] = l_max, min(self.l_min, l_max)
        if pause_threshold is not None:
            changes["pause_threshold"] = pause_threshold if pause_threshold > 0 else None
        if casing is not None:
            changes["casing"] = casing
        return replace(self, **changes)
