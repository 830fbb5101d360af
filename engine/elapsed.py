"""A time from a start as a reader says it: "0:12", "12:05", "1:02:03".

Every place that shows how far into something a moment is, or how long it took, writes it here:
the Markdown export's times, the terminal's progress bar and ``history`` listings, the History
window's hits and the captions window's session clock. ``width`` is the fewest characters a
place wants: a column of times lines up with 5 ("05:03"), a clock that must not jump as the
hours arrive with 7 ("0:05:03").
"""

from __future__ import annotations

__all__ = ["format_elapsed"]


def format_elapsed(seconds: float, width: int = 4) -> str:
    """``seconds`` (whole ones; below 0 counts as 0) as "h:mm:ss" less the leading zeros and colons
    beyond ``width`` characters: 4 gives "5:03", 5 "05:03", 7 "0:05:03"; "1:02:03" past an hour."""
    minutes, secs = divmod(max(0, int(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    full = f"{hours}:{minutes:02d}:{secs:02d}"
    cut = 0
    while len(full) - cut > width and full[cut] in "0:":
        cut += 1
    return full[cut:]
