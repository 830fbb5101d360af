"""Where session journals go, and how long they stay there.

A journal holds every word of a meeting, so it is private (files 0600, folders 0700, see
``journal.py``) and it does not stay forever: ``prune_journals`` deletes sessions without
words, cleanly closed or recovered sessions after ``DEFAULT_KEEP_DAYS``, and unfinished
(crashed) ones when they expire the same way, unrecovered. A session the user pinned (History)
is never deleted. It runs at the start of each live session and in ``livecap recover``; the age
is the file's last change (the session's end, or its recovery), so a recovered session gets the
full period again. What it deletes leaves the history index too, where the front ends prune
through ``engine.history.retention.apply_retention``.

``choose_journal_folder`` decides where a session journals when the per-user data folder
cannot be written (``HOME`` read-only, full, or ``/proc`` in a sandbox): captions must run
anyway. It falls back to a private folder under ``$XDG_RUNTIME_DIR`` (per-user, 0700, emptied
at logout), then to livecap's stable per-user folder in the temporary folder (checked to be
this user's own), in each to a folder of this data folder's own; when nothing is writable the
session runs without a journal. The CLI prints its notice; the app shows it.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from engine.files import paths
from engine.files.private_folder import prepare_private_folder

log = logging.getLogger(__name__)

DEFAULT_KEEP_DAYS = 30
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


def fallback_journal_dirs() -> list[tuple[Path, Path, str]]:
    """Where a session journals when the per-user data folder cannot be written, in order:
    (folder, the ancestor that must be this user's, how long it lasts). ``livecap recover`` and
    the next start look in each. Stable names, so that whatever a crashed session left there is
    found again; one folder per data folder (``journal-`` and ``paths.data_dir_key()``), so that
    a run with another ``LIVECAP_DATA_DIR`` (a test, a portable install) neither sees nor prunes
    these sessions."""
    name = f"journal-{paths.data_dir_key()}"
    return [(base / name, base, lasts) for base, lasts in _fallback_bases()]


def legacy_fallback_journal_dirs() -> list[tuple[Path, Path]]:
    """The fallback folders of livecap before they were per data folder (``journal``, shared by
    every data folder): (folder, the ancestor that must be this user's). Never written now; read
    by ``recovery_journal_dirs`` for the default data folder, so that what a crashed session left
    there before an upgrade is still found (and pruned as it expires)."""
    return [(base / "journal", base) for base, _ in _fallback_bases()]


def recovery_journal_dirs() -> list[Path]:
    """Where ``livecap recover`` looks: the per-user journal folder, then this data folder's
    fallbacks, then (for the default data folder only: a run with its own ``LIVECAP_DATA_DIR``
    has no sessions from before) the shared fallbacks of older versions that are still there. A
    fallback in a shared place counts only when it is this user's own (nobody else's files)."""
    from engine.files.private_folder import owned_by_user

    found = [folder for folder, owner, _ in fallback_journal_dirs() if owned_by_user(owner)]
    if not os.environ.get(paths.OVERRIDE_ENV):
        for folder, owner in legacy_fallback_journal_dirs():
            if owned_by_user(owner) and folder.is_dir():  # only where one is left: nothing new goes there
                found.append(folder)
    return [paths.journal_dir(), *found]


def _fallback_bases() -> list[tuple[Path, str]]:
    """livecap's private per-user folders outside the data folder, in order, with how long what
    is in them lasts."""
    found = []
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        found.append((Path(runtime) / paths.APP_NAME, "emptied at logout"))
    found.append((paths.temp_user_dir(), "in the temporary folder, which the system may empty"))
    return found


def choose_journal_folder(preferred: str | os.PathLike[str] | None = None) -> JournalFolder:
    """The folder a new session journals to: ``preferred`` (default: the per-user journal folder)
    when it can be written, else a private fallback, else none (crash recovery off)."""
    wanted = Path(preferred) if preferred is not None else paths.journal_dir()
    try:
        prepare_private_folder(wanted, tighten=preferred is None)
        return JournalFolder(wanted)
    except OSError as exc:
        why = f"cannot write journals to {wanted} ({exc.strerror or exc})"
    refused = ""
    for folder, owned_from, lasts in fallback_journal_dirs():
        try:
            prepare_private_folder(folder, owned_from=owned_from)
        except PermissionError as exc:
            refused = f" ({exc.strerror or exc})"
            continue
        except OSError:
            continue
        return JournalFolder(
            folder,
            f"{why}; journaling to {folder} instead (private, {lasts}; "
            "after a crash, livecap recover finds it there)",
        )
    return JournalFolder(
        None,
        f"{why}, nor to a private temporary folder{refused}: captioning without a journal, "
        "so crash recovery is off",
    )


# ---- how long ---------------------------------------------------------------------------------
def keep_days(value: float | int | str | None) -> float | None:
    """How long closed sessions are kept, as a user sets it in the window's Settings or with
    ``--keep-days``: a number of days, where 0 and "forever" both mean never delete (None, as
    ``prune_journals`` takes it). One setting, one meaning, whichever front end reads it.
    Raises ``ValueError`` with the reason for anything else."""
    if value is None or value == "forever":
        return None
    try:
        days = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a number of days (or 'forever')") from None
    if days < 0:
        raise ValueError("a number of days cannot be negative")
    return days or None


def prune_journals(
    folder: str | os.PathLike[str] | None = None,
    keep_days: float | None = DEFAULT_KEEP_DAYS,
    now: float | None = None,
) -> list[Path]:
    """Delete what the retention policy does not keep; returns the deleted journals.

    Kept: sessions with words, changed within ``keep_days`` (None: forever), pinned sessions, and
    every session still being written by a running livecap. Never raises: a journal that cannot be
    read or deleted is left (and logged), since pruning must never stop a session from starting.
    """
    from engine.transcript.journal import in_use, journals, read_journal, remove_journal

    now = time.time() if now is None else now
    deleted = []
    for path in journals(folder):
        try:
            expired = keep_days is not None and now - path.stat().st_mtime > keep_days * _DAY
            if in_use(path):
                continue
            contents = read_journal(path)
            if contents.pinned or (not expired and contents.transcript.words):
                continue
            remove_journal(path)
            deleted.append(path)
        except OSError as exc:
            log.warning("cannot prune journal %s: %s", path, exc)
    if deleted:
        log.info("deleted %d journal(s) past the retention policy", len(deleted))
    return deleted
