"""Which way a piece of text goes: what every view that lays out right-to-left captions asks (the
captions window's paragraphs, ``app.captions.style``; the overlay's lines,
``overlay.caption_layout``), answered once here, below both."""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import Qt

__all__ = ["strong_direction"]


def strong_direction(text: str) -> Qt.LayoutDirection:
    """The direction of ``text``'s first strong letter (Unicode's bidi classes L, R and AL); Auto
    when it has none (digits, marks, spaces only)."""
    for char in text:
        bidi = unicodedata.bidirectional(char)
        if bidi == "L":
            return Qt.LayoutDirection.LeftToRight
        if bidi in ("R", "AL"):
            return Qt.LayoutDirection.RightToLeft
    return Qt.LayoutDirection.LayoutDirectionAuto
