"""An exclusive lock shared between processes, for work two livecap instances must not interleave.

fcntl.flock on Linux/macOS, msvcrt.locking on Windows. Both locks belong to
the open file and vanish when the process dies, so a crash never leaves a
stale lock that would need a human to delete it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)  # msvcrt locks bytes from the current position
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


# What "somebody else holds it" looks like: EWOULDBLOCK from flock, EACCES or
# EDEADLOCK from msvcrt. Any other errno is a real failure and propagates.
_BUSY = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, getattr(errno, "EDEADLK", errno.EAGAIN)}


class LockTimeout(TimeoutError):
    pass


class FileLock:
    """Exclusive lock on ``path``.

    It works between processes, and between threads that each use their own FileLock.

    ``on_wait`` is called between polls while another holder has the lock;
    raising from it gives up (a download uses that to honour a cancel button).
    The lock file is left in place on release: deleting it would let a third
    process lock a fresh file while a second still holds the old one.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        timeout: float | None = None,
        on_wait: Callable[[], None] | None = None,
        poll_s: float = 0.05,
    ):
        self.path = Path(path)
        self.timeout = timeout
        self._on_wait = on_wait
        self._poll_s = poll_s
        self._fd: int | None = None

    def acquire(self) -> None:
        """Block until locked. Raises ``OSError`` if the lock file cannot be created."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            # 0600: a lock file next to a journal names a session; nobody else needs to read it.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                if self._wait_for(fd, deadline) and self._still_the_lock_file(fd):
                    self._fd = fd
                    return
            except BaseException:
                os.close(fd)
                raise
            # The holder removed the file on release (``release(remove=True)``): a lock on its
            # old inode excludes no one, so lock the file now under that name instead.
            _unlock(fd)
            os.close(fd)

    def _wait_for(self, fd: int, deadline: float | None) -> bool:
        while True:
            try:
                _try_lock(fd)
                return True
            except OSError as exc:
                if exc.errno not in _BUSY:
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                raise LockTimeout(f"{self.path} is held by another process")
            if self._on_wait is not None:
                self._on_wait()
            time.sleep(self._poll_s)

    def _still_the_lock_file(self, fd: int) -> bool:
        try:
            return os.path.samestat(os.fstat(fd), os.stat(self.path))
        except FileNotFoundError:
            return False

    def release(self, remove: bool = False) -> None:
        """``remove``: delete the lock file too (while still holding it, so no one can lock the
        old file in between), leaving nothing behind in the user's folder."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                if remove:
                    with contextlib.suppress(OSError):  # gone already, or Windows refuses: harmless
                        os.unlink(self.path)
                _unlock(fd)
            finally:
                os.close(fd)

    @property
    def locked(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
