"""Reading session journals back, and offering the unfinished ones for recovery.

The format is ``engine.transcript.journal``'s (one JSON object a line; its writer is there).
Reading applies each line in order: a word line gives a settled word (with its speaker, where the
session had speakers), a "speakers" line relabels words already read (the latest label of a word
wins, so a correction made before its turn settled is kept), withdrawals and retractions remove
words. A line that cannot be read (torn by a crash) is skipped. Journals written before words had
speakers read as one-source sessions.

What the user decides about a session later (its title, whether it is pinned) is appended to the
journal too ("title" and "pinned" lines, ``append_record``), the latest line winning: the journal
stays the one truth, and the history index (``engine.history``) is rebuilt from journals alone.
``read_journal_words`` is the reading itself, with the words made by the caller: the index reads
every journal at once and needs neither ``TranscriptWord`` nor its checks.
"""

from __future__ import annotations

import json
import json.scanner
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from engine.files import paths
from engine.files.lock import FileLock, LockTimeout
from engine.recognizers.kinds import find_kind
from engine.speakers.labels import SpeakerNames
from engine.transcript.speaker_labels import names_from_dict
from engine.transcript.transcript import Transcript, TranscriptWord

log = logging.getLogger(__name__)

PATTERN = "session-*.jsonl"  # the journals' names in their folder


def now_iso() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def lock_path(path: Path) -> Path:
    """The hidden sidecar a running session's writer holds locked."""
    return path.with_name(f".{path.name}.lock")


@dataclass
class JournalContents:
    path: Path
    header: dict = field(default_factory=dict)
    transcript: Transcript = field(default_factory=Transcript)
    closed: bool = False
    recovered: bool = False
    skipped_lines: int = 0  # lines that were not valid JSON (a torn last line after a crash)
    # The speaker names the session last recorded ("speaker_names" lines), None where it recorded
    # none: ``speaker_names`` then reads the header's.
    recorded_names: SpeakerNames | None = None
    title: str = ""  # the user's name for the session (the latest "title" line), "" where none
    pinned: bool = False  # kept whatever the retention (the latest "pinned" line)
    ended: str | None = None  # when it closed cleanly (its "closed" line), None where it did not
    # The language the recognizer told from the speech (a "language" line: a session started
    # with "auto"), None where it told none; ``language`` prefers it to the header's.
    detected_language: str | None = None

    @property
    def started(self) -> str | None:
        return self.header.get("started")

    @property
    def language(self) -> str | None:
        """The language the session's recognizer heard, as the header names it (None: unknown,
        taken for English). A journal from before headers named it: its Vosk model's, when the
        model's folder is still there to tell."""
        if self.detected_language is not None:
            return self.detected_language
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
    def speaker_names(self) -> SpeakerNames:
        """The names the session showed its speakers by, renames included: the latest it
        recorded, else its header's, else the defaults (a journal from before names were kept)."""
        if self.recorded_names is not None:
            return self.recorded_names
        return names_from_dict(self.header.get("speaker_names"))

    @property
    def translated(self) -> bool:
        """Whether the words are an English translation of ``language`` (the header says)."""
        return self.header.get("translated") is True

    @property
    def english(self) -> bool:
        """Whether the session's words are English (a translation's are); words of another
        language passed through unmarked, and an export must not end them with an English period."""
        from engine.words import is_english

        return self.translated or is_english(self.language)


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Parse a journal; withdrawals are applied, torn or unreadable lines skipped."""
    contents, words = read_journal_words(path, _settled_word)
    contents.transcript = Transcript([words[p] for p in sorted(words)])
    return contents


def _settled_word(record: dict) -> TranscriptWord:
    # Only settled words are journaled: their marks are final (``repunctuate`` keeps them).
    word = TranscriptWord.from_dict(record, text_key="text")
    word.settled = True
    return word


SpokenWord = TypeVar("SpokenWord")


# The JSON decoder's own scanner, called on each line directly: ``json.loads`` spends a third of
# a journal's reading time around it (the history index reads every journal at once).
_scan_json = json.scanner.make_scanner(json.JSONDecoder())


def _parse_line(line: str):
    """One line's JSON value; ValueError for a line that is not exactly one (torn, glued, garbage)."""
    start = 0 if line[:1] == "{" else len(line) - len(line.lstrip())  # as json.loads, space first
    try:
        value, end = _scan_json(line, start)
    except StopIteration:
        raise ValueError("not JSON") from None
    if line[end:].strip():
        raise ValueError("more than one JSON value on a line")
    return value


def read_journal_words(
    path: str | os.PathLike[str], make_word: Callable[[dict], SpokenWord]
) -> tuple[JournalContents, dict[int, SpokenWord]]:
    """Read a journal as ``read_journal`` does, but leave its transcript empty: (contents, the settled
    words by position). ``make_word`` makes a word of a "word" line; what it makes must have a
    settable ``speaker`` (a "speakers" line relabels it). A line it refuses (ValueError, KeyError,
    TypeError) is skipped like a torn one."""
    path = Path(path)
    contents = JournalContents(path)
    words: dict[int, Any] = {}
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for line in f:
            try:
                record = _parse_line(line)
                kind = record["t"]
                if kind == "word":
                    words[int(record["position"])] = make_word(record)
                elif kind == "speakers":
                    # A label changed after its word was journaled: the latest one holds.
                    for position, speaker in record["labels"]:
                        if int(position) in words:
                            words[int(position)].speaker = str(speaker)
                elif kind == "speaker_names":
                    contents.recorded_names = names_from_dict(record)
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
                    ended = record.get("ended")
                    contents.ended = ended if isinstance(ended, str) else None
                elif kind == "recovered":
                    contents.recovered = True
                elif kind == "title":
                    contents.title = str(record["title"])
                elif kind == "pinned":
                    contents.pinned = bool(record["pinned"])
                elif kind == "language":
                    contents.detected_language = str(record["language"])
            except (ValueError, KeyError, TypeError, AttributeError):
                # A crash mid-write leaves half a line; it held at most one batch of words.
                contents.skipped_lines += 1
    return contents, words


def remove_journal(path: str | os.PathLike[str]) -> None:
    """Delete a journal and its lock sidecar (the caller checked it is not ``in_use``)."""
    path = Path(path)
    path.unlink(missing_ok=True)
    lock_path(path).unlink(missing_ok=True)


def in_use(path: str | os.PathLike[str]) -> bool:
    """True while a running session (in any process) still writes this journal.

    Asking leaves no lock file behind: a writer locks its sidecar before the journal exists and
    removes it when it closes cleanly, so a missing sidecar means nobody writes; one left by a
    crashed session is removed here, under the lock, once it is known to be free.
    """
    sidecar = lock_path(Path(path))
    if not sidecar.exists():
        return False
    lock = FileLock(sidecar, timeout=0)
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
        return sorted(p for p in folder.glob(PATTERN) if p.is_file())
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
    append_record(path, {"t": "recovered", "at": now_iso()})
    lock_path(path).unlink(missing_ok=True)


def append_record(path: str | os.PathLike[str], record: dict) -> None:
    """Append one line to a journal no session is writing (the caller checked it is not
    ``in_use``: a running writer appends at its own offset, over whatever was added behind it),
    and fsync it: a title or a pin the user set must outlive a power cut."""
    path = Path(path)
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            # After a torn line, start a fresh one: glued onto it, the new line would be unreadable too.
            prefix = b"" if f.read(1) == b"\n" else b"\n"
        else:
            prefix = b""
        f.seek(0, os.SEEK_END)
        f.write(prefix + (json.dumps(record, ensure_ascii=False) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())
