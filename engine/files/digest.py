"""SHA-256 of a file: the one implementation behind the checked encoder download, the model
file's identity in the evaluation reports, and the end-to-end report."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_hex(path: str | Path) -> str:
    """The full hex digest. Raises OSError if the file cannot be read."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def file_digest(path: str | Path) -> str | None:
    """The first 16 hex digits, enough to tell two model files apart in a report (None if the
    file is missing or unreadable, which a report records rather than fails on)."""
    try:
        return sha256_hex(path)[:16]
    except OSError:
        return None
