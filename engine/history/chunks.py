"""The settled text cut into the rows the index searches: chunks.

A row per word would make the index many times the journals' size and a phrase search a join; a
row per session would make every hit a scan of the whole session to find where it is. So the
words go in sentence-sized runs: a chunk is one speaker's consecutive words, ending at a sentence
end once it holds ``MIN_WORDS`` words, or at ``MAX_WORDS`` words, or where the speaker changes.
A phrase is found within a chunk (a phrase across a sentence end is rare enough to miss), and a
hit is mapped back to its exact word by the chunk's packed list of word positions and times.

The cut is greedy, left to right: chunking the words from any chunk's first word on gives the
same chunks as chunking the whole session. The live indexer relies on that to re-cut only the
tail a retraction or a relabel touched.

The text of a chunk is its words as the captions showed them (form, case, mark), one space
between words; whitespace inside a word becomes a no-break space, so the n-th space always
ends the n-th word.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.words import CASE_LABELS, MARK_TEXT, SENTENCE_END_MARKS, apply_case

__all__ = [
    "MAX_WORDS",
    "MIN_WORDS",
    "Chunk",
    "IndexedWord",
    "chunk_words",
    "indexed_word",
    "unpack_words",
    "word_at_offset",
]

MIN_WORDS = 8  # a sentence shorter than this shares its chunk with the next
MAX_WORDS = 32  # a longer run is cut here, sentence end or not
NO_TIME = -1  # a word without times (text input)


class IndexedWord:
    """A settled word as the index keeps it; ``speaker`` is the id (a rename changes no word)."""

    __slots__ = ("display", "end", "ends_sentence", "position", "speaker", "start_ms")

    def __init__(
        self, position: int, display: str, start: float | None, end: float | None, speaker: str, ends: bool
    ):
        self.position = position
        self.display = display
        self.start_ms = NO_TIME if start is None else max(0, round(start * 1000))
        self.end = end
        self.speaker = speaker
        self.ends_sentence = ends


def indexed_word(record: dict) -> IndexedWord:
    """The word of a journal's "word" line (``read_journal_words``'s ``make_word``); a line with an
    unknown mark or case is refused (ValueError) as ``TranscriptWord`` refuses it."""
    get = record.get
    mark, case, form = get("mark", "none"), get("case", "lower"), get("form")
    if mark not in MARK_TEXT or case not in CASE_LABELS:
        raise ValueError(f"unknown mark or case: {mark!r}, {case!r}")
    display = (str(form) if form is not None else apply_case(str(record["text"]), case)) + MARK_TEXT[mark]
    if " " in display or not display.isprintable():  # any whitespace: rare, so looked for first
        display = "\u00a0".join(display.split())
    start, end = get("start"), get("end")
    return IndexedWord(
        int(record["position"]),
        display,
        None if start is None else float(start),
        None if end is None else float(end),
        str(get("speaker") or ""),
        mark in SENTENCE_END_MARKS,
    )


@dataclass
class Chunk:
    """One row of the index: ``seq`` is its number in the session (its rowid's low bits)."""

    seq: int
    speaker: str
    words: list[IndexedWord] = field(default_factory=list)
    closed: bool = False  # the next word starts a new chunk

    def add(self, word: IndexedWord) -> None:
        """Append ``word`` (the caller checked ``takes``) and close the chunk where it ends."""
        self.words.append(word)
        count = len(self.words)
        self.closed = count >= MAX_WORDS or (word.ends_sentence and count >= MIN_WORDS)

    def takes(self, word: IndexedWord) -> bool:
        """Whether ``word``, the next one, goes into this chunk rather than a new one."""
        return not self.closed and self.speaker == word.speaker

    @property
    def text(self) -> str:
        return " ".join(w.display for w in self.words)

    def packed_words(self) -> bytes:
        """The words' journal positions, then their start times in ms: little-endian int32s."""
        words = self.words
        return struct.pack(f"<{2 * len(words)}i", *[w.position for w in words], *[w.start_ms for w in words])

    @property
    def first_position(self) -> int:
        return self.words[0].position

    @property
    def last_position(self) -> int:
        return self.words[-1].position


def chunk_words(words: Iterable[IndexedWord], first_seq: int = 0) -> list[Chunk]:
    """``words`` (in position order) cut into chunks, numbered from ``first_seq``. A word that
    shows nothing (an empty form) is left out: there is nothing in it to find."""
    chunks: list[Chunk] = []
    current: Chunk | None = None
    for word in words:
        if not word.display:
            continue
        if current is None or not current.takes(word):
            current = Chunk(first_seq + len(chunks), word.speaker)
            chunks.append(current)
        current.add(word)
    return chunks


def unpack_words(blob: bytes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(positions, start times in ms) of a chunk's words, as ``Chunk.packed_words`` wrote them."""
    numbers = struct.unpack(f"<{len(blob) // 4}i", blob)
    half = len(numbers) // 2
    return numbers[:half], numbers[half:]


def word_at_offset(text: str, offset: int) -> int:
    """The index of the word of a chunk's ``text`` that character ``offset`` falls in."""
    return text.count(" ", 0, offset)
