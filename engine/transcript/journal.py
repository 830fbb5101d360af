"""The session journal: every settled word on disk, so a crash loses at most a second.

One JSON-lines file per session in ``paths.journal_dir()``,
``session-YYYYmmdd-HHMMSS.jsonl``:

    {"t": "header", "version": 1, "started": "...", "recognizer": ..., "model": ..., ...}
    {"t": "word", "position": 0, "text": "hello", "form": "Hello", "mark": "comma", ...}
    {"t": "speakers", "labels": [[7, "others:2"]]}    who spoke words already journaled
    {"t": "speaker_names", "me": "Me", "others": "Others", "renamed": {"others:2": "Ana"}}
    {"t": "withdrawn", "position": 7}       the recognizer replaced a settled word
    {"t": "retracted", "from": 7}           every word from 7 on was removed
    {"t": "closed", "ended": "...", "words": 123}    clean shutdown
    {"t": "recovered", "at": "..."}         a later start recovered it
    {"t": "title", "title": "...", "at": "..."}    the user named the session (History)
    {"t": "pinned", "pinned": true, "at": "..."}   kept whatever the retention (History)
    {"t": "language", "language": "de", "probability": 0.97}   told from the speech ("auto")
    {"t": "language", "language": "de", "probability": 0.97, "speaker": "others"}   a meeting's side
    {"t": "hidden", "reason": "echo", "words": [{"text": "yes", "start": 3.1, ...}]}   not shown

Why lines and not a rewritten file: appending is the one write a crash cannot
make worse than "the last line is cut off", and a cut-off line is simply
ignored when reading. Each batch of engine events is written and flushed at
once (so a killed process loses nothing the OS already has); a timer thread
fsyncs at least once a second (so a power cut loses at most that second). The
writer runs on the engine's thread, never on the audio thread.

While a session runs, its writer holds an inter-process lock on a hidden
sidecar file, so another livecap process never offers a *running* session's
journal for recovery.

Who spoke: a word line carries the word's speaker as labelled when it settled. A label may come,
or be corrected, later (until its turn settles, ``LabelSettling``): a label of a word not yet
journaled only changes the line it will get; one of a word already journaled is appended as a
"speakers" line, which reading applies over it. So the file stays append-only and recovery gives
each word its latest label. The names shown for the speakers (the user's renames) are a
"speaker_names" line, written whenever they change (``name_speakers``), or a header's
"speaker_names"; the latest holds.

Words a meeting's echo guard hid as possibly the others' speech heard again are not in the
transcript, but they may be the user's own: a "hidden" line keeps them, with their times and
speaker and why they were hidden (``record_hidden``), and ``read_hidden_words`` gives them back.
Readers of the transcript skip the line, as they skip every kind they do not know.

An ``observer`` (``JournalObserver``: the history index's ``LiveIndexer``) is handed each batch of
lines right after it is written, and told when the journal closes, so a running session can be
searched as its words settle. It must never block: it is called on the writer's thread.

Reading and recovery are ``engine.transcript.journal_reading``'s (their names are importable
from here too).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Protocol

from engine.events import Appended, Retracted, Settled, SpeakersLabelled, Withdrawn
from engine.files import paths
from engine.files.lock import FileLock, LockTimeout
from engine.speakers.labels import SpeakerNames
from engine.transcript.journal_reading import (
    JournalContents,
    in_use,
    journals,
    lock_path,
    mark_recovered,
    now_iso,
    read_journal,
    recover,
    remove_journal,
)
from engine.transcript.speaker_labels import LabelSettling, names_to_dict
from engine.words import Word, word_from_dict, word_to_dict

__all__ = [
    "FSYNC_INTERVAL",
    "JOURNAL_VERSION",
    "JournalContents",
    "JournalObserver",
    "JournalWriter",
    "in_use",
    "journals",
    "mark_recovered",
    "read_hidden_words",
    "read_journal",
    "recover",
    "remove_journal",
]

log = logging.getLogger(__name__)

JOURNAL_VERSION = 1
FSYNC_INTERVAL = 1.0  # seconds: the most a power cut may lose


# ---- writing --------------------------------------------------------------------
class JournalObserver(Protocol):
    """Told what a journal writer writes; called on the writer's thread, so it must not block."""

    def journal_written(self, path: Path, records: list[dict]) -> None:
        """``records`` were just appended to ``path``, in this order (the header line first)."""

    def journal_closed(self, path: Path) -> None:
        """The writer closed ``path`` (deleted already, when the session journaled no words)."""


class JournalWriter:
    """Appends a session's settled words to its journal; ``apply`` is an engine subscriber."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: dict | None = None,
        fsync_interval: float = FSYNC_INTERVAL,
        on_error: Callable[[str], None] | None = None,
        observer: JournalObserver | None = None,
    ):
        self.path = Path(path)
        self.observer = observer
        self.fsync_interval = fsync_interval
        self.on_error = on_error
        self.words = 0  # journaled words, withdrawals applied (what recovery would give)
        self.hidden_words = 0  # words journaled as hidden (``record_hidden``)
        self.error: str | None = None
        # Lock before the file exists, so recovery never sees a new journal unlocked.
        self._lock = FileLock(lock_path(self.path), timeout=0)
        try:
            self._lock.acquire()
        except LockTimeout:
            raise FileExistsError(f"{self.path} is being written by another session") from None
        try:
            # O_EXCL: a journal is never reused; two sessions in the same second get different
            # names. 0600: it holds a whole meeting's words, for its owner's eyes only.
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
            self._file = open(fd, "w", encoding="utf-8", newline="\n")
        except BaseException:
            self._release_lock()
            raise
        # Positions appended but not yet settled: the only words the writer keeps in memory
        # (the decoder keeps at most a few dozen pending).
        self._pending: dict[int, Word] = {}
        # Settled positions not yet trimmed (for the word count), with their words: the end of a
        # session may settle the last one again with the mark that ends its sentence.
        self._settled: dict[int, Word] = {}
        self._labels = LabelSettling("journal")
        self._names: dict | None = None  # the speaker names last written
        self._naming = threading.Lock()
        self._io = threading.Lock()  # the engine thread writes, the timer thread fsyncs
        self._dirty = False
        self._closed = False
        self._stop = threading.Event()
        self._write([{"t": "header", "version": JOURNAL_VERSION, "started": now_iso(), **(header or {})}])
        self._fsync()
        self._timer = threading.Thread(target=self._sync_loop, name="journal-fsync", daemon=True)
        self._timer.start()

    @classmethod
    def create(
        cls, directory: str | os.PathLike[str] | None = None, header: dict | None = None, **options
    ) -> JournalWriter:
        """A new journal named after the current time, in ``directory`` (default: the per-user one).

        ``header`` (recognizer, model, source...) goes into the first line; ``options``
        are the constructor's (``fsync_interval``, ``on_error``, ``observer``).
        """
        folder = Path(directory) if directory is not None else paths.journal_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # see journal_folder: owner only
        stem = datetime.now().strftime("session-%Y%m%d-%H%M%S")
        for attempt in range(1, 1000):
            name = f"{stem}.jsonl" if attempt == 1 else f"{stem}-{attempt}.jsonl"
            try:
                return cls(folder / name, header, **options)
            except FileExistsError:
                continue
        raise FileExistsError(f"too many journals named {stem}* in {folder}")

    def apply(self, events) -> None:
        """Journal one batch of engine events (called on the engine thread)."""
        records = []
        for event in events:
            if isinstance(event, Appended):
                self._pending[event.position] = event.word
            elif isinstance(event, Settled):
                word = self._pending.pop(event.position, None)
                again = word is None and event.position in self._settled
                if again:  # settled anew (the session's end): the newer line wins when read
                    word = self._settled[event.position]
                elif word is None:
                    continue  # appended before this writer subscribed: nothing to say about it
                decision = {"form": event.form, "mark": event.mark, "case": event.case}
                # every field of the word that is set, so whatever the recognizer side adds is kept
                records.append({"t": "word", "position": event.position, **decision, **word_to_dict(word)})
                if not again:
                    self.words += 1
                self._settled[event.position] = word
            elif isinstance(event, Withdrawn):
                records.append({"t": "withdrawn", "position": event.position})
                if self._settled.pop(event.position, None) is not None:
                    self.words -= 1
            elif isinstance(event, Retracted):
                records.append({"t": "retracted", "from": event.from_position})
                for p in [p for p in self._pending if p >= event.from_position]:
                    del self._pending[p]
                gone = [p for p in self._settled if p >= event.from_position]  # Withdrawn came first
                for p in gone:
                    del self._settled[p]
                self.words -= len(gone)
                self._labels.retracted(event.from_position)
            elif isinstance(event, SpeakersLabelled):
                relabelled = []
                for p, speaker in self._labels.accepted(event, self._label_of):
                    if p in self._pending:  # not journaled yet: its word line will say it
                        self._pending[p] = replace(self._pending[p], speaker=speaker)
                    else:
                        self._settled[p] = replace(self._settled[p], speaker=speaker)
                        relabelled.append([p, speaker])
                if relabelled:
                    records.append({"t": "speakers", "labels": relabelled})
        # Settled positions far behind can no longer be withdrawn (the decoder keeps at most
        # a few hundred words): forget them, so the set, scanned on every retraction, stays small.
        if len(self._settled) > 2048:
            newest = max(self._settled)
            self._settled = {p: w for p, w in self._settled.items() if p > newest - 1024}
        if records:
            self._write(records)

    def name_speakers(self, names: SpeakerNames) -> None:
        """Record the names the session shows its speakers by (from any thread; a rename calls it
        again), so a recovered transcript shows them too. Unchanged names write nothing."""
        record = names_to_dict(names)
        with self._naming:  # two renames at once: the one written last is the one remembered
            if record != self._names:
                self._names = record
                self._write([{"t": "speaker_names", **record}])

    def record_language(self, language: str, probability: float, speaker: str | None = None) -> None:
        """Record the language the recognizer told from the speech (from any thread), so a
        recovered or exported session names it; the header's ``language`` was not known yet.
        ``speaker``: the meeting's side it was heard on ("me", "others"); None for one source.
        A reader takes the last language line as the session's."""
        record = {"t": "language", "language": language, "probability": round(float(probability), 3)}
        self._write([{**record, "speaker": speaker} if speaker is not None else record])

    def record_hidden(self, words, reason: str = "echo") -> None:
        """Keep words that were not shown, marked with why (from any thread): a meeting's echo
        guard hid them as possibly the others' speech heard again (``reason`` "echo"), and they
        may be the user's own."""
        words = list(words)
        if words:
            self._write([{"t": "hidden", "reason": reason, "words": [word_to_dict(w) for w in words]}])
            self.hidden_words += len(words)

    def close(self, clean: bool = True) -> None:
        """Stop the timer, write the "closed" line (when ``clean``), fsync and release the lock.

        A session that journaled no words (shown or hidden) leaves nothing behind: its journal is
        deleted (there is nothing to recover, and a pile of empty sessions only hides the ones
        that matter).
        """
        if self._closed:
            return
        self._stop.set()
        if self._timer is not threading.current_thread():
            self._timer.join(timeout=5)
        if clean:
            self._write([{"t": "closed", "ended": now_iso(), "words": self.words}])
        with self._io:
            self._closed = True
            try:
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as exc:
                self._fail(exc)
            finally:
                self._file.close()
        self._release_lock()
        if self.words == 0 and self.hidden_words == 0 and not self.error:
            try:
                remove_journal(self.path)
            except OSError as exc:
                log.warning("cannot delete the empty journal %s: %s", self.path, exc)
        elif clean:
            lock_path(self.path).unlink(missing_ok=True)
        if self.observer is not None:
            try:
                self.observer.journal_closed(self.path)
            except Exception:  # the journal is closed and whole either way
                log.exception("journal observer failed")

    @property
    def closed(self) -> bool:
        return self._closed

    # -- internals ------------------------------------------------------------------
    def _label_of(self, position: int) -> str | None:
        """The speaker a word kept here has now; None for one not kept (nothing to relabel)."""
        word = self._pending.get(position) or self._settled.get(position)
        return None if word is None else word.speaker

    def _write(self, records: list[dict]) -> None:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        with self._io:
            if self._closed or self.error:
                return
            try:
                self._file.write(text)
                self._file.flush()  # into the OS now: a killed process loses nothing written
                self._dirty = True
            except OSError as exc:
                self._fail(exc)
                return
            if self.observer is not None:
                # Under the lock: the observer sees the lines in the order the file has them.
                try:
                    self.observer.journal_written(self.path, records)
                except Exception:  # a broken observer must not stop the journal
                    log.exception("journal observer failed; it is told nothing more")
                    self.observer = None

    def _fsync(self) -> None:
        with self._io:
            if self._closed or self.error:
                return
            try:
                os.fsync(self._file.fileno())
                self._dirty = False
            except OSError as exc:
                self._fail(exc)

    def _sync_loop(self) -> None:
        while not self._stop.wait(self.fsync_interval):
            if self._dirty:
                self._fsync()

    def _fail(self, exc: OSError) -> None:
        # A full disk must not stop the captions; say so once, and stop journaling.
        self.error = f"cannot write the session journal {self.path}: {exc.strerror or exc}"
        log.error(self.error)
        if self.on_error is not None:
            try:
                self.on_error(self.error)
            except Exception:
                log.exception("journal error callback failed")

    def _release_lock(self) -> None:
        self._lock.release()


# ---- the hidden words ------------------------------------------------------------------
def read_hidden_words(path: str | os.PathLike[str], reason: str | None = None) -> list[Word]:
    """The words the journal at ``path`` keeps as hidden (``record_hidden``), in the order they
    were hidden, each with its times and speaker; only those hidden for ``reason`` ("echo") when
    given. A line that cannot be read (torn by a crash) is skipped, as the transcript's reader does."""
    found: list[Word] = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            try:
                record = json.loads(line)
                if record.get("t") != "hidden" or (reason is not None and record.get("reason") != reason):
                    continue
                found += [word_from_dict(w) for w in record["words"]]
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
    return found
