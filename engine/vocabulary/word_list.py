"""Plain English words, and how common each is: read from the punctuation model's tokenizer.

The shipped punctuation model's WordPiece vocabulary (``tokenizer.json``, the one
``engine.punctuation`` loads) holds about 22,000 whole English words, in roughly the order of
how often they occur (its ids were given by frequency). That is the word list here: no second
dictionary to ship. A word it lacks is unknown to plain English (a proposal for the
vocabulary); a word among its first ``COMMON_RANK`` is common, and recognized common words are
replaced by a term only when they sound almost exactly like it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

__all__ = ["COMMON_RANK", "WordList", "english_words"]

COMMON_RANK = 15_000  # "graph" and "tokyo" are within it, "nairobi" and "dashboard" are not


class WordList:
    """Lower-case whole words with their rank (0: the most common)."""

    def __init__(self, ranked: list[str]):
        self.rank = {w: i for i, w in enumerate(dict.fromkeys(ranked))}

    def knows(self, word: str) -> bool:
        return word.casefold() in self.rank

    def is_common(self, word: str) -> bool:
        rank = self.rank.get(word.casefold())
        return rank is not None and rank < COMMON_RANK


def shipped_tokenizer() -> Path:
    import livecap_models

    return Path(livecap_models.__file__).parent / "punct" / "tokenizer.json"


@functools.cache
def english_words(tokenizer: Path | None = None) -> WordList:
    """The word list of ``tokenizer`` (default: the shipped punctuation model's); empty where the
    file cannot be read, so that a damaged model folder makes every word count as unknown rather
    than failing the session."""
    try:
        vocab = json.loads((tokenizer or shipped_tokenizer()).read_text(encoding="utf-8"))["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError):
        return WordList([])
    pieces = sorted(vocab, key=vocab.get) if isinstance(vocab, dict) else [p[0] for p in vocab]
    # Whole words only: not "##ing" pieces, not [unused] slots, not single letters but "a" and "i".
    words = [p for p in pieces if len(p) > 1 and p.isascii() and p.isalpha() and p.islower()]
    return WordList(["a", "i", *words])
