"""The one function that turns words into model inputs.

Training (``training/``) and inference (``engine/``) both call ``build_window``,
so the window, the ``[PAUSE]`` placement and the truncation can never drift
apart between the two (docs/METHOD.md, "The model").

A window ending at word *e* reads::

    [CLS] w(f) [PAUSE]? … w(e-1) [PAUSE]? w(e) [PAUSE]? [SEP]

truncated from the LEFT, at a word boundary, to at most ``window`` tokens,
specials included. The tagger predicts, on one token per word (its *carrier*,
the word's last WordPiece), the mark after the word and the word's case; word
*j* is read at lookahead ``e - j``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.words import Word

DEFAULT_WINDOW = 32
DEFAULT_PAUSE_THRESHOLD = 0.28


@dataclass(frozen=True)
class SpecialIds:
    cls: int
    sep: int
    pad: int
    unk: int
    pause: int
    drop: int


class WordTokenizer:
    """WordPiece for single words, with a cache: a live stream repeats its words a lot."""

    def __init__(self, tokenizer_file: str | Path, pause_token: str, drop_token: str):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # Shipped BERT tokenizers pad and truncate to 128 by default; samples are built by hand.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

        def token_id(token: str) -> int:
            found = self._tokenizer.token_to_id(token)
            if found is None:
                raise ValueError(f"tokenizer {tokenizer_file} has no token {token!r}")
            return found

        self.special = SpecialIds(
            cls=token_id("[CLS]"),
            sep=token_id("[SEP]"),
            pad=token_id("[PAD]"),
            unk=token_id("[UNK]"),
            pause=token_id(pause_token),
            drop=token_id(drop_token),
        )
        self._cache: dict[str, tuple[int, ...]] = {}

    def encode_word(self, text: str) -> tuple[int, ...]:
        return self.encode_words([text])[0]

    def encode_words(self, texts: Sequence[str]) -> list[tuple[int, ...]]:
        # Safe to call from several threads at once (the live engine and an export; the offline
        # decoder's workers): the answer is built from a local dict, never read back from the
        # shared cache another thread may clear.
        keys = [t.lower() for t in texts]
        cache = self._cache
        found = {k: cache.get(k) for k in set(keys)}
        missing = [k for k, ids in found.items() if ids is None]
        if missing:
            encoded = {
                key: tuple(enc.ids) or (self.special.unk,)
                for key, enc in zip(missing, self._tokenizer.encode_batch(missing, add_special_tokens=False))
            }
            found.update(encoded)
            if len(cache) > 200_000:  # bound memory over a very long session
                cache.clear()
            cache.update(encoded)
        return [found[k] for k in keys]


def pauses_from_times(words: Sequence[Word], threshold: float | None) -> list[bool]:
    """``[PAUSE]`` after word j when the gap to word j+1 is at least ``threshold`` seconds.

    The gap after the last word is unknown (the next word may be on its way), so it
    gets no pause; callers that know a silence has begun set that flag themselves.
    """
    flags = [False] * len(words)
    if threshold is None:
        return flags
    for j in range(len(words) - 1):
        here, after = words[j], words[j + 1]
        if here.end is not None and after.start is not None and after.start - here.end >= threshold:
            flags[j] = True
    return flags


CARRIER = "last"  # which WordPiece of a word carries its prediction (config.json "carrier")


@dataclass(frozen=True)
class Window:
    """Model input for the words ``first .. first + len(carriers) - 1``.

    ``carriers[k]``: the index in ``ids`` of the token whose outputs are word ``first + k``'s."""

    ids: list[int]
    first: int
    carriers: list[int]
    # float32 [len(ids), CUE_COUNT]: each word's cue row (``word_cues``) on every one of its
    # pieces, zeros on [CLS], [SEP] and [PAUSE]; None when the caller gave no cues.
    cues: np.ndarray | None = None

    @property
    def end(self) -> int:
        return self.first + len(self.carriers) - 1


def build_window(
    word_ids: Sequence[Sequence[int]],
    end: int,
    special: SpecialIds,
    pauses: Sequence[bool] | None = None,
    window: int = DEFAULT_WINDOW,
    cues: np.ndarray | None = None,
) -> Window:
    """The window whose right edge is word ``end``, as many whole words to its left as fit.

    ``word_ids`` holds each word's WordPiece ids (training may put ``special.drop``
    there for contextual dropout); ``pauses[j]`` puts ``[PAUSE]`` after word j; ``cues[j]``
    (``word_cues.word_cues``) is word j's row of timing and hint cues.
    A single word longer than the window keeps its first pieces (its carrier is
    then the last piece kept), so every window holds word ``end``.
    """
    if not 0 <= end < len(word_ids):
        raise IndexError(f"end {end} outside 0..{len(word_ids) - 1}")
    if window < 3:
        raise ValueError("window must hold [CLS], a word and [SEP]")
    budget = window - 2  # room left by [CLS] and [SEP]
    pause = special.pause
    chunks: list[Sequence[int]] = []
    size = 0
    j = end
    while j >= 0:
        chunk = word_ids[j]
        if pauses is not None and pauses[j]:
            chunk = (*chunk, pause)
        if size + len(chunk) > budget:
            if j == end:  # one huge word: keep what fits, the carrier is its last kept piece
                chunks.append(tuple(chunk[:budget]))
                j -= 1
            break
        chunks.append(chunk)
        size += len(chunk)
        j -= 1
    first = j + 1
    ids = [special.cls]
    carriers = []
    spans = []  # (first token, past the last of the word's own pieces) per word
    for k, chunk in enumerate(reversed(chunks)):
        start = len(ids)
        ids.extend(chunk)
        word = first + k
        has_pause = pauses is not None and pauses[word] and len(chunk) > 1 and chunk[-1] == pause
        carriers.append(len(ids) - (2 if has_pause else 1))
        spans.append((start, carriers[-1] + 1))
    ids.append(special.sep)
    rows = None
    if cues is not None:
        rows = np.zeros((len(ids), cues.shape[1]), dtype=np.float32)
        for k, (a, b) in enumerate(spans):
            rows[a:b] = cues[first + k]
    return Window(ids, first, carriers, rows)


def pad_cues(windows: Sequence[Window], width: int, count: int) -> np.ndarray:
    """The windows' cue rows right-padded into float32 [B, width, count]; zeros where a window
    has none (bare text)."""
    out = np.zeros((len(windows), width, count), dtype=np.float32)
    for row, w in enumerate(windows):
        if w.cues is not None:
            out[row, : len(w.cues)] = w.cues
    return out


def pad_batch(samples: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad samples into ``input_ids`` and ``attention_mask``, both int64 [B, T]."""
    if not samples:
        raise ValueError("empty batch")
    width = max(len(s) for s in samples)
    ids = np.full((len(samples), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(samples), width), dtype=np.int64)
    for row, sample in enumerate(samples):
        ids[row, : len(sample)] = sample
        mask[row, : len(sample)] = 1
    return ids, mask
