"""The vocabulary files: the user's own (``vocabulary.txt`` in the config folder) and any other
given for one session (``--vocabulary FILE``).

A file is plain UTF-8 text, one entry per line (``entries``). It is the user's: adding or
removing an entry rewrites it atomically with every other line as it was, comments, notes,
blank lines and order included. A file that cannot be read or parsed is refused in one line
naming it (and the line), never skipped: captions would silently lose the user's terms.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.files.atomic import atomic_write_text
from engine.files.paths import config_dir
from engine.vocabulary.entries import Entry, Vocabulary, VocabularyError, parse_entry, parse_vocabulary

__all__ = [
    "FILE_NAME",
    "HEADER",
    "VocabularyFile",
    "read_vocabulary",
    "session_vocabulary",
    "user_vocabulary_path",
]

FILE_NAME = "vocabulary.txt"
HEADER = (
    "# livecap's vocabulary: the names and terms captions should write your way.\n"
    "# One per line: the term, then optionally a colon and how it is said, comma-separated,\n"
    "# then optionally a note after ' #'. For example:\n"
    "#   PostgreSQL: post gres Q L, postgres  # the database\n"
)


def user_vocabulary_path() -> Path:
    """The user's own vocabulary, beside the app's settings (``paths.config_dir``)."""
    return config_dir() / FILE_NAME


def _read_lines(path: Path) -> list[str]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise VocabularyError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise VocabularyError(f"{path} is a folder; give a text file of terms") from None
    except OSError as exc:
        raise VocabularyError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise VocabularyError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None
    return text.splitlines()


def read_vocabulary(path: str | os.PathLike[str]) -> Vocabulary:
    """The entries of the file at ``path``; ``VocabularyError`` in one line for a missing,
    unreadable or bad file."""
    path = Path(path)
    return parse_vocabulary(_read_lines(path), str(path))


def session_vocabulary(extra: str | os.PathLike[str] | None = None, user: Path | None = None) -> Vocabulary:
    """A session's vocabulary: the user's own (``user``, default ``user_vocabulary_path()``; none
    while that file does not exist) and the entries of ``extra`` (``--vocabulary FILE``) it lacks."""
    user = user_vocabulary_path() if user is None else user
    own = read_vocabulary(user) if user.exists() else Vocabulary()
    return own.merged(read_vocabulary(extra)) if extra is not None else own


@dataclass
class VocabularyFile:
    """A vocabulary file as lines, to change one entry and write the rest back as it was."""

    path: Path
    lines: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, path: Path | None = None) -> VocabularyFile:
        """The file at ``path`` (default: the user's own), checked whole; empty while it does not
        exist."""
        path = user_vocabulary_path() if path is None else Path(path)
        if not path.exists():
            return cls(path, [])
        lines = _read_lines(path)
        parse_vocabulary(lines, str(path))  # a bad file is refused before any change to it
        return cls(path, lines)

    @property
    def vocabulary(self) -> Vocabulary:
        return parse_vocabulary(self.lines, str(self.path))

    def add(self, entry: Entry) -> None:
        """Append ``entry`` (``VocabularyError`` when its term is there already)."""
        existing = self.vocabulary.find(entry.term)
        if existing is not None:
            raise VocabularyError(
                f"{existing.term!r} is already in {self.path}; remove it first to change it"
            )
        self.lines.append(entry.line())

    def remove(self, term: str) -> Entry:
        """Drop ``term``'s line (any case), keeping every other line; the entry removed, or
        ``VocabularyError`` when it is not there."""
        for index, line in enumerate(self.lines):
            entry = parse_entry(line)
            if entry is not None and entry.key == Entry(term).key:
                del self.lines[index]
                return entry
        raise VocabularyError(f"{term!r} is not in {self.path}")

    def save(self) -> None:
        """Write the lines back atomically (a new file starts with a header saying the format)."""
        text = "\n".join(self.lines) + "\n" if self.lines else ""
        if not self.path.exists() and not any(line.startswith("#") for line in self.lines):
            text = HEADER + text
        atomic_write_text(self.path, text)
