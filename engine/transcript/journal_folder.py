"""Where session journals go, and how long they stay there.

A journal holds every word of a meeting, so it is private (files 0600, folders 0700, see
``journal.py``) and it does not stay forever: ``prune_journals`` deletes sessions without
words, cleanly closed or recovered sessions after ``DEFAULT_KEEP_DAYS``, and unfinished
(crashed) ones when they expire the same way, unrecovered. It runs at the start of each live
session and in ``livecap recover``; the age is the file's last change (the session's end, or
its recovery), so a recovered session gets the full period again.

``choose_journal_folder`` decides where a session journals when the per-user data folder
cannot be written (``HOME`` read-only, full, or ``/proc`` in a sandbox): captions must run
anyway. It falls back to a private folder under ``$XDG_RUNTIME_DIR`` (per-user, 0700, emptied
at logout), then to a fresh ``tempfile.mkdtemp`` folder; when nothing is writable the session
runs without a journal. The CLI prints its notice; the app shows it.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.files import paths

log = logging.getLogger(__name__)

DEFAULT_KEEP_DAYS = 30
FOLDER_MODE = 0o700
_DAY = 86400.0


# ---- where ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JournalFolder:
    """Where a session journals (``path``, None: nowhere) and, when that is not the folder
    asked for, the one line that says why (``notice``)."""

    path: Path | None
    notice: str = ""

    @property
    def recovery_off(self) -> bool:
        return self.path is None


def prepare_private_folder(folder: Path, tighten: bool = True) -> None:
    """Create ``folder`` (owner only), check that it takes files, and with ``tighten`` make an
    existing one owner-only too.

    Raises ``OSError`` (with the reason) when it cannot be used. Journal folders made by older
    versions were 0755: livecap's own are tightened; a folder the user chose is theirs to set.
    """
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if tighten and folder.stat().st_mode & 0o077:
        os.chmod(folder, FOLDER_MODE)
    # mkdir succeeds on an existing read-only folder: only creating a file proves it is writable.
    fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
    os.close(fd)
    os.unlink(probe)


def runtime_fallback_dir() -> Path | None:
    """The private fallback under ``$XDG_RUNTIME_DIR`` (None when that is unset or relative);
    ``livecap recover`` looks there too."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    return Path(runtime) / paths.APP_NAME / "journal" if os.path.isabs(runtime) else None


def choose_journal_folder(preferred: str | os.PathLike[str] | None = None) -> JournalFolder:
    """The folder a new session journals to: ``preferred`` (default: the per-user journal folder)
    when it can be written, else a private fallback, else none (crash recovery off)."""
    wanted = Path(preferred) if preferred is not None else paths.journal_dir()
    try:
        prepare_private_folder(wanted, tighten=preferred is None)
        return JournalFolder(wanted)
    except OSError as exc:
        why = f"cannot write journals to {wanted} ({exc.strerror or exc})"
    fallback = runtime_fallback_dir()
    if fallback is not None:
        try:
            prepare_private_folder(fallback)
            return JournalFolder(
                fallback,
                f"{why}; journaling to {fallback} instead (private, emptied at logout; "
                f"after a crash: livecap recover --journal-dir {fallback})",
            )
        except OSError:
            pass
    try:
        folder = Path(tempfile.mkdtemp(prefix="livecap-journal-"))  # 0700 by definition
        return JournalFolder(
            folder,
            f"{why}; journaling to {folder} instead (private, temporary; "
            f"after a crash: livecap recover --journal-dir {folder})",
        )
    except OSError:
        pass
    return JournalFolder(
        None, f"{why}, nor to a temporary folder: captioning without a journal, so crash recovery is off"
    )


# ---- how long ---------------------------------------------------------------------------------
def prune_journals(
    folder: str | os.PathLike[str] | None = None,
    keep_days: float | None = DEFAULT_KEEP_DAYS,
    now: float | None = None,
) -> list[Path]:
    """Delete what the retention policy does not keep; returns the deleted journals.

    Kept: sessions with words, changed within ``keep_days`` (None: forever), and every session
    still being written by a running livecap. Never raises: a journal that cannot be read or
    deleted is left (and logged), since pruning must never stop a session from starting.
    """
    from engine.transcript.journal import in_use, journals, read_journal, remove_journal

    now = time.time() if now is None else now
    deleted = []
    for path in journals(folder):
        try:
            expired = keep_days is not None and now - path.stat().st_mtime > keep_days * _DAY
            if in_use(path):
                continue
            if not expired and read_journal(path).transcript.words:
                continue
            remove_journal(path)
            deleted.append(path)
        except OSError as exc:
            log.warning("cannot prune journal %s: %s", path, exc)
    if deleted:
        log.info("deleted %d journal(s) past the retention policy", len(deleted))
    return deleted
