"""Sizes as the user reads them: one unit, the megabyte of 10^6 bytes (what download pages and
most file managers show), for every size livecap prints or shows: the model lists of the window
and of ``livecap models``, and downloads as they go. Always in MB, so that sizes compare at a
glance; never MiB beside MB, which differ by 5 % and look the same.
"""

from __future__ import annotations

__all__ = ["format_bytes"]


def format_bytes(size: float) -> str:
    """``size`` bytes in MB: "104 MB", "1,933 MB"; a tenth below 10 MB ("8.5 MB"), where a
    rounded size would say too little."""
    mb = size / 1e6
    return f"{mb:.1f} MB" if mb < 10 else f"{mb:,.0f} MB"
