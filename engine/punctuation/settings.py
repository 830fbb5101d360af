"""How the punctuation decoders decide: one frozen set of settings, each documented here once.

A model's ``config.json`` recommends them (its ``"decoder"`` section, plus the top-level
``"pause_threshold"`` the model was trained with; ``from_config`` reads them, ``to_config``
writes them); ``ModelConfig.decoder`` holds them as read, and for the shipped model that file is
the only place its settings live. The field defaults below are for a model whose config.json
says nothing. A live session (``SessionSpec``), the window and the CLI's flags change a few
with ``override``, the one place an l_max below l_min is resolved; the streaming and the offline
decoder both take the result, and nothing else.
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
        offline_window: W, the offline (mask-combine) decoder's window in tokens.
        offline_stride: s, words between the right edges of successive offline windows: each
            word is seen by about (words per window) / s windows, whose answers are averaged.
        offline_min_left: m_l, the fewest words of left context an offline window's answer for
            a word needs to count (waived at the start of the text).
        offline_min_right: m_r, the same for right context (waived at the end of the text).
        offline_edge_weighting: weigh each window's answer for a word by how far the word sits
            from the window's nearer edge, 0.5 at the edge to 1 in the middle (Yap 2021).
        casing: restore capitals (sentence starts, the model's case classes, the lexicon);
            False leaves every word lowercase.
    """

    l_min: int = 1
    l_max: int = 4
    threshold: float = 0.5
    silence_gap: float | None = 1.2
    pause_threshold: float | None = DEFAULT_PAUSE_THRESHOLD
    offline_window: int = 64
    offline_stride: int = 16
    offline_min_left: int = 2
    offline_min_right: int = 4
    offline_edge_weighting: bool = True
    casing: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.l_min <= self.l_max:
            raise ValueError(f"need 0 <= l_min <= l_max, got l_min={self.l_min}, l_max={self.l_max}")
        if self.offline_window < 3 or self.offline_stride < 1:
            raise ValueError(
                f"need offline_window >= 3 and offline_stride >= 1, got {self.offline_window}, "
                f"{self.offline_stride}"
            )
        if self.offline_min_left < 0 or self.offline_min_right < 0:
            raise ValueError("offline_min_left and offline_min_right must be >= 0")

    @classmethod
    def from_config(
        cls, decoder: dict, pause_threshold: float | None = DEFAULT_PAUSE_THRESHOLD
    ) -> DecoderSettings:
        """The settings a config.json's ``"decoder"`` section gives, these defaults for what it
        leaves out. Raises ``TypeError`` or ``ValueError`` on a value of the wrong kind."""
        d = cls()
        gap = decoder.get("silence_gap", d.silence_gap)
        offline = decoder.get("offline", {})
        return cls(
            l_min=int(decoder.get("l_min", d.l_min)),
            l_max=int(decoder.get("l_max", d.l_max)),
            threshold=float(decoder.get("threshold", d.threshold)),
            silence_gap=None if gap is None else float(gap),
            pause_threshold=None if pause_threshold is None else float(pause_threshold),
            offline_window=int(offline.get("window", d.offline_window)),
            offline_stride=int(offline.get("stride", d.offline_stride)),
            offline_min_left=int(offline.get("min_left", d.offline_min_left)),
            offline_min_right=int(offline.get("min_right", d.offline_min_right)),
            offline_edge_weighting=offline.get("edge_weighting", "linear") == "linear",
        )

    def to_config(self) -> dict:
        """The ``"decoder"`` section of a config.json (``pause_threshold`` is written beside it)."""
        return {
            "l_min": self.l_min,
            "l_max": self.l_max,
            "threshold": self.threshold,
            "silence_gap": self.silence_gap,
            "offline": {
                "window": self.offline_window,
                "stride": self.offline_stride,
                "min_left": self.offline_min_left,
                "min_right": self.offline_min_right,
                "edge_weighting": "linear" if self.offline_edge_weighting else "none",
            },
        }

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
