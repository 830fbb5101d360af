"""A running session's recent words and their chunks, as ``LiveIndexer`` keeps them.

The journal's lines are applied as ``read_journal_words`` applies them (a word line sets a
position, "speakers" relabels, withdrawals and retractions remove), to the last
``KEEP_POSITIONS`` words only: older chunks are written and forgotten. A change reaching back
past what is kept says so (``apply`` is False), and the indexer reads the journal whole.

A change re-cuts the chunks from the one it touched (``chunks``: the cut is greedy, so that gives
what cutting the whole session gives), and the next ``write`` replaces the rows from the first
chunk that changed on: at speaking pace, the open sentence and little else.
"""

from __future__ import annotations

import bisect
import sqlite3

from engine.history.chunks import Chunk, IndexedWord, chunk_words, indexed_word
from engine.history.indexing import first_line, session_length, write_speakers
from engine.history.store import chunk_range, chunk_rowid, insert_chunks
from engine.speakers.labels import SpeakerNames
from engine.transcript.speaker_labels import names_from_dict

__all__ = ["KEEP_POSITIONS", "LiveTail", "NotOwner"]

KEEP_POSITIONS = 1024  # words behind the newest kept in memory (the journal writer keeps as many)
FORGET_BATCH = 256  # words forgotten at a time, not one at every commit


class NotOwner(Exception):
    """Another writer replaced the session's rows: read the journal again."""


class LiveTail:
    """The session's recent words and their chunks, as the index has them (or will at the next
    commit); everything older is written and forgotten (``frozen_*``)."""

    def __init__(self, sid: int, numbers: dict[str, int], names: SpeakerNames, words, chunks):
        self.sid = sid
        self.numbers = numbers  # speaker id → number, as in the ``speakers`` table
        self.names = names
        self.words: list[IndexedWord] = list(words)
        self.chunks: list[Chunk] = list(chunks)
        self.next_seq = self.chunks[-1].seq + 1 if self.chunks else 0  # a new chunk's number
        self.frozen_words = 0
        self.frozen_through = -1  # the last position forgotten: a change there reads the journal
        self.first_line = first_line(self.words)
        self.length = session_length(self.words)  # kept up to date word by word
        self.dirty_from: int | None = None  # the first chunk number to write again
        self.speakers_dirty = False
        self.meta_dirty = False
        self.changed_words = 0  # word lines since the last commit
        self.forget_old()

    # ---- applying the journal's lines -------------------------------------------------------
    def apply(self, record: dict) -> bool:
        """Apply one line; False when it reaches back past what is kept (read the journal again)."""
        kind = record.get("t")
        if kind == "word":
            try:
                word = indexed_word(record)
            except (ValueError, KeyError, TypeError, AttributeError):
                return True  # the reader skips it too
            self.changed_words += 1
            return self._set_word(word)
        if kind == "speakers":
            changed = []
            for position, speaker in record.get("labels", ()):
                i = self._find(int(position))
                if i is None:
                    if int(position) <= self.frozen_through:
                        return False
                    continue
                self.words[i].speaker = str(speaker)
                self._number(str(speaker))
                changed.append(int(position))
            if changed:
                self._recut(min(changed))
            return True
        if kind == "withdrawn":
            position = int(record["position"])
            if position <= self.frozen_through:
                return False
            i = self._find(position)
            if i is not None:
                del self.words[i]
                self._recut(position)
            return True
        if kind == "retracted":
            cut = int(record["from"])
            if cut <= self.frozen_through:
                return False
            i = bisect.bisect_left(self.words, cut, key=lambda w: w.position)
            if i < len(self.words):
                del self.words[i:]
                self._recut(cut)
            return True
        if kind == "speaker_names":
            self.names = names_from_dict(record)
            self.speakers_dirty = True
        elif kind == "closed":
            self.meta_dirty = True
        return True

    def _set_word(self, word: IndexedWord) -> bool:
        self._number(word.speaker)
        if word.end is not None:
            self.length = max(self.length, word.end)
        if not self.words or word.position > self.words[-1].position:
            self.words.append(word)
            self.meta_dirty = True
            if not word.display:
                return True
            last = self.chunks[-1] if self.chunks else None
            if last is None or not last.takes(word):
                last = Chunk(self.next_seq, word.speaker)
                self.chunks.append(last)
                self.next_seq += 1
            last.add(word)
            self._dirty(last.seq)
            return True
        if word.position <= self.frozen_through:
            return False
        i = bisect.bisect_left(self.words, word.position, key=lambda w: w.position)
        if self.words[i].position == word.position:
            self.words[i] = word  # settled again (the session's end): the newer line wins
        else:
            self.words.insert(i, word)
        self._recut(word.position)
        return True

    def _recut(self, position: int) -> None:
        """Cut the words into chunks again from the chunk ``position`` is in (from the one before,
        where that one was still open: the first word may now join it)."""
        ci = max(bisect.bisect_right(self.chunks, position, key=lambda c: c.first_position) - 1, 0)
        while ci > 0 and not self.chunks[ci - 1].closed:
            ci -= 1
        if ci < len(self.chunks):
            seq, start = self.chunks[ci].seq, min(self.chunks[ci].first_position, position)
        else:
            seq, start = self.next_seq, position
        del self.chunks[ci:]
        first = bisect.bisect_left(self.words, start, key=lambda w: w.position)
        self.chunks += chunk_words(self.words[first:], seq)
        self.next_seq = self.chunks[-1].seq + 1 if self.chunks else seq
        self._dirty(seq)
        self.meta_dirty = True

    def _dirty(self, seq: int) -> None:
        self.dirty_from = seq if self.dirty_from is None else min(self.dirty_from, seq)

    def _find(self, position: int) -> int | None:
        i = bisect.bisect_left(self.words, position, key=lambda w: w.position)
        return i if i < len(self.words) and self.words[i].position == position else None

    def _number(self, speaker: str) -> None:
        if speaker not in self.numbers:
            self.numbers[speaker] = len(self.numbers)
            self.speakers_dirty = True

    # ---- writing ----------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.dirty_from is not None or self.speakers_dirty or self.meta_dirty

    def write(self, conn: sqlite3.Connection, owner: str) -> None:
        """Commit what changed since the last commit; NotOwner when the rows are not ours now.
        (Its own BEGIN and COMMIT: this runs every second of speech, and spends little else.)"""
        if self.frozen_words == 0:
            self.first_line = first_line(self.words)
        conn.execute("BEGIN IMMEDIATE")
        try:
            # The session's row first: that it is still this indexer's is the check.
            updated = conn.execute(
                "UPDATE sessions SET words = ?, duration_s = ?, first_line = ? WHERE sid = ? AND owner = ?",
                (self.frozen_words + len(self.words), self.length, self.first_line, self.sid, owner),
            )
            if updated.rowcount != 1:
                raise NotOwner
            if self.dirty_from is not None:
                conn.execute(
                    "DELETE FROM chunks WHERE rowid BETWEEN ? AND ?",
                    (chunk_rowid(self.sid, self.dirty_from), chunk_range(self.sid)[1]),
                )
                first = bisect.bisect_left(self.chunks, self.dirty_from, key=lambda c: c.seq)
                insert_chunks(
                    conn,
                    [
                        (chunk_rowid(self.sid, c.seq), self.numbers[c.speaker], c.text, c.packed_words())
                        for c in self.chunks[first:]
                    ],
                )
            if self.speakers_dirty:
                write_speakers(conn, self.sid, self.numbers, self.names)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self.dirty_from, self.speakers_dirty, self.meta_dirty, self.changed_words = None, False, False, 0
        if len(self.words) > KEEP_POSITIONS + FORGET_BATCH:
            self.forget_old()

    def forget_old(self) -> None:
        """Forget written chunks far behind the newest word (never one still open)."""
        if self.dirty_from is not None or not self.words:
            return
        horizon = self.words[-1].position - KEEP_POSITIONS
        keep_from = 0
        for i, chunk in enumerate(self.chunks[:-1]):
            if chunk.last_position >= horizon:
                break
            if chunk.closed:
                keep_from = i + 1
        if keep_from == 0:
            return
        through = self.chunks[keep_from - 1].last_position
        cut = bisect.bisect_right(self.words, through, key=lambda w: w.position)
        self.frozen_words += cut
        self.frozen_through = through
        del self.words[:cut]
        del self.chunks[:keep_from]
