"""How a measuring script hands over its result: the JSON on stdout, and the same written
atomically where ``--out`` names a file, so a run cut short never leaves half a report."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["emit"]


def emit(result: dict, out: Path | None, shown: str | None = None) -> None:
    """Print ``result`` as JSON (or ``shown`` instead, a table say) and write the JSON to ``out``."""
    text = json.dumps(result, indent=2)
    print(text if shown is None else shown)
    if out:
        from engine.files.atomic import atomic_write_text

        atomic_write_text(out, text + "\n")
