"""The session journal: every settled word on disk, so a crash loses at most a second.

One JSON-lines file per session in ``paths.journal_dir()``,
``session-YYYYmmdd-HHMMSS.jsonl``:

    {"t": "header", "version": 1, "started": "...", "recognizer": ..., "model": ..., ...}
    {"t": "word", "position": 0, "text": "hello", "form": "Hello", "mark": "comma", ...}
    {"t": "withdrawn", "position": 7}       the recognizer replaced a settled word
    {"t": "retracted", "from": 7}           every word from 7 on was removed
    {"t": "closed", "ended": "...", "words": 123}    clean shutdown
    {"t": "recovered", "at": "..."}         a later start recovered it

Why lines and not a rewritten file: appending is the one write a crash cannot
make worse than "the last line is cut off", and a cut-off line is simply
ignored when reading. Each batch of engine events is written and flushed at
once (so a killed process loses nothing the OS already has); a timer thread
fsyncs at least once a second (so a power cut loses at most that second). The
writer runs on the engine's thread, never on the audio thread.

While a session runs, its writer holds an inter-process lock on a hidden
sidecar file, so another livecap process never offers a *running* session's
journal for recovery.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.events import Appended, Retracted, Settled, Withdrawn
from engine.files import paths
from engine.files.lock import FileLock, LockTimeout
from engine.recognizers.kinds import find_kind
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word, word_to_dict

log = logging.getLogger(__name__)

JOURNAL_VERSION = 1
FSYNC_INTERVAL = 1.0  # seconds: the most a power cut may lose
_PATTERN = "session-*.jsonl"


def _now_iso() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


# ---- writing --------------------------------------------------------------------
class JournalWriter:
    """Appends a session's settled words to its journal; ``apply`` is an engine subscriber."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: dict | None = None,
        fsync_interval: float = FSYNC_INTERVAL,
        on_error: Callable[[str], None] | None = None,
    ):
        self.path = Path(path)
        self.fsync_interval = fsync_interval
        self.on_error = on_error
        self.words = 0  # journaled words, withdrawals applied (what recovery would give)
        self.error: str | None = None
        # Lock before the file exists, so recovery never sees a new journal unlocked.
        self._lock = FileLock(_lock_path(self.path), timeout=0)
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
        self._io = threading.Lock()  # the engine thread writes, the timer thread fsyncs
        self._dirty = False
        self._closed = False
        self._stop = threading.Event()
        self._write([{"t": "header", "version": JOURNAL_VERSION, "started": _now_iso(), **(header or {})}])
        self._fsync()
        self._timer = threading.Thread(target=self._sync_loop, name="journal-fsync", daemon=True)
        self._timer.start()

    @classmethod
    def create(
        cls, directory: str | os.PathLike[str] | None = None, header: dict | None = None, **options
    ) -> JournalWriter:
        """A new journal named after the current time, in ``directory`` (default: the per-user one).

        ``header`` (recognizer, model, source...) goes into the first line; ``options``
        are the constructor's (``fsync_interval``, ``on_error``).
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
        # Settled positions far behind can no longer be withdrawn (the decoder keeps at most
        # a few hundred words): forget them, so the set, scanned on every retraction, stays small.
        if len(self._settled) > 2048:
            newest = max(self._settled)
            self._settled = {p: w for p, w in self._settled.items() if p > newest - 1024}
        if records:
            self._write(records)

    def close(self, clean: bool = True) -> None:
        """Stop the timer, write the "closed" line (when ``clean``), fsync and release the lock.

        A session that journaled no words leaves nothing behind: its journal is deleted (there is
        nothing to recover, and a pile of empty sessions only hides the ones that matter).
        """
        if self._closed:
            return
        self._stop.set()
        if self._timer is not threading.current_thread():
            self._timer.join(timeout=5)
        if clean:
            self._write([{"t": "closed", "ended": _now_iso(), "words": self.words}])
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
        if self.words == 0 and not self.error:
            try:
                remove_journal(self.path)
            except OSError as exc:
                log.warning("cannot delete the empty journal %s: %s", self.path, exc)
        elif clean:
            _lock_path(self.path).unlink(missing_ok=True)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- internals ------------------------------------------------------------------
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


# ---- reading and recovery ----------------------------------------------------------
@dataclass
class JournalContents:
    path: Path
    header: dict = field(default_factory=dict)
    transcript: Transcript = field(default_factory=Transcript)
    closed: bool = False
    recovered: bool = False
    skipped_lines: int = 0  # lines that were not valid JSON (a torn last line after a crash)

    @property
    def started(self) -> str | None:
        return self.header.get("started")

    @property
    def language(self) -> str | None:
        """The language the session's recognizer heard, as the header names it (None: unknown,
        taken for English). A journal from before headers named it: its Vosk model's, when the
        model's folder is still there to tell."""
        if "language" in self.header:
            language = self.header["language"]
            return language if isinstance(language, str) else None
        model = self.header.get("model")
        kind = find_kind(self.header.get("recognizer"))
        if kind is None or not kind.downloads_models:  # only a catalogue model's name says its language
            return None
        if not isinstance(model, str) or not Path(model).is_dir():
            return None
        from engine.vosk_models.catalogue import model_language

        return model_language(model)

    @property
    def english(self) -> bool:
        """Whether the session's words are English; words of another language passed through
        unmarked, and an export must not end them with an English period."""
        from engine.words import is_english

        return is_english(self.language)


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Parse a journal; withdrawals are applied, torn or unreadable lines skipped."""
    path = Path(path)
    contents = JournalContents(path)
    words: dict[int, TranscriptWord] = {}
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for line in f:
            try:
                record = json.loads(line)
                kind = record["t"]
                if kind == "word":
                    # Only settled words are journaled: their marks are final (``repunctuate`` keeps them).
                    word = TranscriptWord.from_dict(record, text_key="text")
                    word.settled = True
                    words[int(record["position"])] = word
                elif kind == "withdrawn":
                    words.pop(int(record["position"]), None)
                elif kind == "retracted":
                    cut = int(record["from"])
                    for p in [p for p in words if p >= cut]:
                        del words[p]
                elif kind == "header":
                    contents.header = {k: v for k, v in record.items() if k != "t"}
                elif kind == "closed":
                    contents.closed = True
                elif kind == "recovered":
                    contents.recovered = True
            except (ValueError, KeyError, TypeError, AttributeError):
                # A crash mid-write leaves half a line; it held at most one batch of words.
                contents.skipped_lines += 1
    contents.transcript = Transcript([words[p] for p in sorted(words)])
    return contents


def remove_journal(path: str | os.PathLike[str]) -> None:
    """Delete a journal and its lock sidecar (the caller checked it is not ``in_use``)."""
    path = Path(path)
    path.unlink(missing_ok=True)
    _lock_path(path).unlink(missing_ok=True)


def in_use(path: str | os.PathLike[str]) -> bool:
    """True while a running session (in any process) still writes this journal.

    Asking leaves no lock file behind: a writer locks its sidecar before the journal exists and
    removes it when it closes cleanly, so a missing sidecar means nobody writes; one left by a
    crashed session is removed here, under the lock, once it is known to be free.
    """
    lock_path = _lock_path(Path(path))
    if not lock_path.exists():
        return False
    lock = FileLock(lock_path, timeout=0)
    try:
        lock.acquire()
    except LockTimeout:
        return True
    except OSError:
        return False  # cannot open the lock file (read-only folder): nobody can be writing either
    lock.release(remove=True)
    return False


def journals(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every session journal, oldest first."""
    folder = Path(directory) if directory is not None else paths.journal_dir()
    try:
        return sorted(p for p in folder.glob(_PATTERN) if p.is_file())
    except OSError:
        return []


def recover(directory: str | os.PathLike[str] | None = None) -> list[JournalContents]:
    """Journals of sessions that ended without a clean shutdown and were not recovered yet.

    Journals of sessions still running in another process are left out.
    """
    found = []
    for path in journals(directory):
        try:
            contents = read_journal(path)
        except OSError as exc:
            log.warning("cannot read journal %s: %s", path, exc)
            continue
        if not contents.closed and not contents.recovered and not in_use(path):
            found.append(contents)
    return found


def mark_recovered(path: str | os.PathLike[str]) -> None:
    """Append a "recovered" line, so the journal is not offered again (it stays on disk)."""
    path = Path(path)
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            # After a torn line, start a fresh one: glued onto it, the marker would be unreadable too.
            prefix = b"" if f.read(1) == b"\n" else b"\n"
        else:
            prefix = b""
        f.seek(0, os.SEEK_END)
        f.write(prefix + (json.dumps({"t": "recovered", "at": _now_iso()}) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())
    _lock_path(path).unlink(missing_ok=True)
