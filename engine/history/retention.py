"""The retention policy applied to a journal folder and to the history index beside it.

``prune_journals`` (``engine.transcript.journal_folder``) decides which journals go and deletes
them; the sessions it deleted leave the index here, at once, so History never lists a session
whose journal is gone. Each front end prunes through ``apply_retention`` (a live session's start,
``livecap recover``). A deletion the index missed is dropped by its next ``sync`` all the same.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.history.store import forget_journals
from engine.transcript.journal_folder import DEFAULT_KEEP_DAYS, prune_journals

__all__ = ["apply_retention"]


def apply_retention(
    folder: str | os.PathLike[str] | None = None,
    keep_days: float | None = DEFAULT_KEEP_DAYS,
    now: float | None = None,
) -> list[Path]:
    """Delete the journals of ``folder`` that the retention policy does not keep, and drop them
    from the history index; returns the deleted journals. Never raises, as neither step does."""
    deleted = prune_journals(folder, keep_days, now)
    forget_journals(deleted)
    return deleted
