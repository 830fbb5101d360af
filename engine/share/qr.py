"""The share link as a QR code, for a phone to read off the screen: a PNG for the window, text
for a terminal. Drawn by ``segno``."""

from __future__ import annotations

import io
from typing import TextIO

__all__ = ["qr_png", "write_qr"]


def qr_png(text: str, scale: int = 6) -> bytes:
    """``text`` as a PNG QR code, ``scale`` pixels a module, with its quiet zone."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def write_qr(text: str, out: TextIO) -> None:
    """``text`` as a QR code drawn with block characters on a terminal."""
    import segno

    segno.make(text, error="m").terminal(out=out, compact=True)
