"""Unpack a downloaded .zip or .tar.gz without letting any entry write outside the target folder.

Archives come from the network, so each entry is checked before anything is
written: no absolute paths, no ``..``, no symlinks or hard links (a link
planted first could redirect a later file anywhere), no devices. A rejected
archive leaves nothing behind. We never call ``zipfile.extract`` or
``tarfile.extractall``: their sanitizing differs between Python versions and
silently rewrites names instead of refusing them.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from engine.files.sizes import format_bytes
from engine.vosk_models.errors import CorruptArchiveError, StorageError, UnsafeArchiveError

CHUNK = 64 * 1024


def archive_kind(name: str) -> str:
    """ "tar" for .tar.gz/.tgz names, otherwise "zip" (what Vosk publishes)."""
    return "tar" if name.endswith((".tar.gz", ".tgz")) else "zip"


def extract_archive(
    archive: str | os.PathLike[str],
    target: str | os.PathLike[str],
    check: Callable[[], None] | None = None,
    kind: str | None = None,
) -> None:
    """Unpack ``archive`` into the existing folder ``target``.

    ``kind`` is "zip" or "tar" (default: from the file name). ``check`` is
    called before each entry is written; raising from it aborts (cancel).
    Raises ``UnsafeArchiveError``, ``CorruptArchiveError`` for a truncated or
    damaged archive, ``StorageError`` when the disk cannot hold the contents.
    """
    archive, target = Path(archive), Path(target).resolve()
    extract = _extract_tar if (kind or archive_kind(archive.name)) == "tar" else _extract_zip
    try:
        extract(archive, target, check or (lambda: None))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        # BadGzipFile is an OSError: it must be caught here, or it would pass for a disk problem.
        raise CorruptArchiveError(f"{archive.name} is truncated or corrupt ({exc}).") from exc


def _extract_zip(archive: Path, target: Path, check: Callable[[], None]) -> None:
    with zipfile.ZipFile(archive) as zf:
        plan = []
        for info in zf.infolist():
            kind = stat.S_IFMT(info.external_attr >> 16)  # the Unix mode, when made on Unix
            if kind == stat.S_IFLNK:
                raise UnsafeArchiveError(f"{archive.name}: refusing symbolic link {info.filename!r}.")
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise UnsafeArchiveError(f"{archive.name}: refusing special file {info.filename!r}.")
            plan.append((_safe_path(info.filename, target, archive), info.is_dir(), info.file_size, info))
        _check_plan(plan, target, archive)
        for dest, is_dir, _, info in plan:
            check()
            if is_dir:
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            # zipfile stops at the declared size and checks the CRC, so a
            # member cannot write more than _check_plan accounted for.
            with zf.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, CHUNK)


def _extract_tar(archive: Path, target: Path, check: Callable[[], None]) -> None:
    with tarfile.open(archive, "r:*") as tf:
        plan = []
        for member in tf.getmembers():
            if member.issym() or member.islnk():
                raise UnsafeArchiveError(f"{archive.name}: refusing link {member.name!r}.")
            if not (member.isfile() or member.isdir()):
                raise UnsafeArchiveError(f"{archive.name}: refusing special file {member.name!r}.")
            plan.append((_safe_path(member.name, target, archive), member.isdir(), member.size, member))
        _check_plan(plan, target, archive)
        for dest, is_dir, _, member in plan:
            check()
            if is_dir:
                dest.mkdir(parents=True, exist_ok=True)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            with tf.extractfile(member) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, CHUNK)


def _safe_path(name: str, target: Path, archive: Path) -> Path:
    # Backslashes and drive letters are separators on Windows: "..\\x" or "C:x"
    # would escape there even though they look harmless to a POSIX path.
    if "\\" in name or "\0" in name or re.match(r"^[A-Za-z]:", name):
        raise UnsafeArchiveError(f"{archive.name}: refusing entry {name!r} (Windows path syntax).")
    pure = PurePosixPath(name)
    if pure.is_absolute():
        raise UnsafeArchiveError(f"{archive.name}: refusing absolute path {name!r}.")
    if ".." in pure.parts:
        raise UnsafeArchiveError(f"{archive.name}: refusing entry {name!r}: it climbs out with '..'.")
    dest = (target / pure).resolve()
    if dest != target and target not in dest.parents:  # belt and braces: nothing may escape
        raise UnsafeArchiveError(f"{archive.name}: entry {name!r} would land outside {target}.")
    return dest


def _check_plan(plan: list, target: Path, archive: Path) -> None:
    files = [dest for dest, is_dir, _, _ in plan if not is_dir]
    file_set = set(files)
    if len(file_set) != len(files):
        raise UnsafeArchiveError(f"{archive.name}: the same file appears twice.")
    if target in file_set:
        raise UnsafeArchiveError(f"{archive.name}: a file entry has an empty name.")
    for dest, *_ in plan:
        if any(parent in file_set for parent in dest.parents):
            raise UnsafeArchiveError(f"{archive.name}: {dest.name!r} sits inside an entry that is a file.")
    needed = sum(size for _, is_dir, size, _ in plan if not is_dir)
    free = shutil.disk_usage(target).free
    if needed > free:  # refuse up front rather than fill the disk halfway (or feed a zip bomb)
        raise StorageError(
            f"Not enough disk space in {target.parent}: unpacking needs "
            f"{format_bytes(needed)}, {format_bytes(free)} are free.",
            target.parent,
        )
