"""Everything that can go wrong while fetching and installing a model, as messages a user can act on.

One base class, so the UI can catch ``DownloadError`` and show ``str(exc)``;
subclasses, so code (and tests) can react to the kind of failure.
"""

from __future__ import annotations

import errno
from pathlib import Path

from engine.files import paths


class DownloadError(Exception):
    """Base of every failure reported by the downloader; ``str()`` says what to do."""


class InsecureUrlError(DownloadError):
    pass


class OfflineError(DownloadError):
    """The host could not be reached: no network, DNS failure, connection refused, timeout."""


class HttpError(DownloadError):
    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class DownloadInterrupted(DownloadError):
    """The transfer broke off; the ``.part`` file is kept and the next try resumes it."""


class DownloadCancelled(DownloadError):
    """The caller cancelled; the ``.part`` file is kept for a later resume."""


class StorageError(DownloadError):
    """A folder cannot be written: disk full, read-only, no permission, a file in the way."""

    def __init__(self, message: str, folder: Path):
        super().__init__(message)
        self.folder = folder


class ChecksumError(DownloadError):
    """Size or md5 differs from the catalogue's; the ``.part`` file is deleted."""


class UnsafeArchiveError(DownloadError):
    """An entry would be written outside its folder, or is a link or device."""


class CorruptArchiveError(DownloadError):
    pass


class NotAVoskModelError(DownloadError):
    pass


def storage_error(exc: OSError, folder: Path) -> StorageError:
    """Turn an ``OSError`` from writing under ``folder`` into advice that names the folder."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        why = "the disk is full. Free some space and try again"
    elif isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
        why = (
            "it is read-only or you lack permission. Fix its permissions, "
            f"or point {paths.OVERRIDE_ENV} at a writable folder"
        )
    elif isinstance(exc, (NotADirectoryError, FileExistsError)):
        why = "part of that path is a file, not a folder"
    else:
        why = exc.strerror or str(exc)
    return StorageError(f"Cannot write to {folder}: {why}.", Path(folder))
