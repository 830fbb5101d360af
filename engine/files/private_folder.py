"""Folders only their owner may enter: journals (every word of a meeting) and the control socket.

``prepare_private_folder`` creates one (0700) and proves it takes files. In a shared folder
such as ``/tmp`` a stable name can be taken first by another user, or be a symbolic link to
somewhere else: a folder livecap did not make for this user is refused, with the reason,
rather than written into.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

FOLDER_MODE = 0o700


def prepare_private_folder(folder: Path, tighten: bool = True, owned_from: Path | None = None) -> None:
    """Create ``folder`` (owner only), check that it takes files, and with ``tighten`` make an
    existing one owner-only too. ``owned_from``: an ancestor of ``folder`` in a shared place:
    it and every folder below it must be real folders owned by this user.

    Raises ``OSError`` (with the reason) when it cannot be used. Journal folders made by older
    versions were 0755: livecap's own are tightened; a folder the user chose is theirs to set.
    """
    if owned_from is None:
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    else:  # checked a level at a time, before anything is made inside: never through a link
        owned_from.parent.mkdir(parents=True, exist_ok=True)
        for part in [owned_from, *_between(owned_from, folder)]:
            part.mkdir(mode=FOLDER_MODE, exist_ok=True)
            _check_owned(part)
    if tighten and folder.stat().st_mode & 0o077:
        os.chmod(folder, FOLDER_MODE)
    # mkdir succeeds on an existing read-only folder: only creating a file proves it is writable.
    fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
    os.close(fd)
    os.unlink(probe)


def _between(top: Path, folder: Path) -> list[Path]:
    parts = folder.relative_to(top).parts
    return [top.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def _check_owned(folder: Path) -> None:
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise PermissionError(f"{folder} is not a folder of its own (a link, or a file)")
    uid = getattr(os, "getuid", lambda: info.st_uid)()
    if info.st_uid != uid:
        raise PermissionError(f"{folder} belongs to another user")
    if info.st_mode & 0o077:
        os.chmod(folder, FOLDER_MODE)


def owned_by_user(folder: Path) -> bool:
    """Whether ``folder`` exists as a real folder of this user's (what a reader checks before it
    trusts files in a shared place)."""
    try:
        _check_owned(folder)
    except OSError:
        return False
    return True
