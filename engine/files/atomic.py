"""Write a file so that readers see either the old content or the new one, never half of it.

An export or a settings save that dies mid-write (crash, full disk, power loss)
must not leave a truncated file where a good one used to be. The classic
recipe: write a temporary file in the *same* directory (so the final rename
never crosses a filesystem), fsync it, ``os.replace`` it over the target, then
fsync the directory so the rename itself survives a power loss.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

# O_BINARY exists only on Windows; without it Windows would turn "\n" into "\r\n"
# behind our back. O_CLOEXEC keeps the descriptor out of child processes.
_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, creating parent directories.

    On failure the temporary file is removed, ``path`` keeps its old content
    (or stays absent) and the exception propagates.
    """
    target = Path(path)
    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True)

    tmp, fd = _create_temp(target)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            # Without fsync the rename can reach the disk before the data does,
            # and a power loss then leaves an empty file under the final name.
            os.fsync(f.fileno())
        _copy_mode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        # BaseException: a KeyboardInterrupt mid-write must not leave litter either.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_directory(directory)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically. Newlines are written as given, on every platform.

    Subtitle and JSON files are exchanged between machines; translating "\\n"
    to "\\r\\n" on Windows would make the same export differ byte for byte.
    """
    atomic_write_bytes(path, text.encode(encoding))


def _create_temp(target: Path) -> tuple[Path, int]:
    """Create an exclusive temp file next to ``target``; return its path and an open descriptor."""
    while True:
        # Hidden name with the target's name in it, so a leftover after a hard
        # crash is recognizable and does not show up as a real export.
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            # Mode 0o666 lets the kernel apply the umask, so a new file gets the
            # same permissions a plain open() would give it (mkstemp forces 0o600).
            return tmp, os.open(tmp, _OPEN_FLAGS, 0o666)
        except FileExistsError:
            continue


def _copy_mode(target: Path, tmp: Path) -> None:
    """Keep an existing file's permissions: replacing it must not make it private or public."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError):
        os.chmod(tmp, mode & 0o7777)


def fsync_directory(directory: Path) -> None:
    """Persist the rename. Best effort: Windows cannot open a directory, some filesystems refuse fsync."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
