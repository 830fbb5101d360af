"""How a session and a search hit read in the History window's lists: plain text for screen readers
and copying, rich text (escaped) for the eye, with the words that matched highlighted.

Qt-light: only the date needs QtCore (the user's locale: ``app.dates``).
"""

from __future__ import annotations

import html
import re
from datetime import datetime

from app.dates import short_date_time
from app.profanity import mask
from engine import format_elapsed

# The matched words: dark text on amber, the same in either scheme, so a match reads as a marker
# pen would and keeps 4.5:1 or more against its own background whatever the list's colours.
HIGHLIGHT_BACKGROUND = "#ffd54f"
HIGHLIGHT_TEXT = "#000000"
PIN_MARK = "★"  # in the fonts every desktop has, unlike an emoji pin
SEPARATOR = " · "
_WORD = re.compile(r"\S+")


def duration_text(seconds: float | None) -> str:
    """How long a session ran: "40 s", "12 min", "1 h 05 min"."""
    total = max(0, round(seconds or 0))
    if total < 60:
        return f"{total} s"
    minutes = round(total / 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def started_text(started: datetime | None) -> str:
    """When a session started, in local time: the user's locale's short format, or ISO 8601 where
    the locale has no date format (``app.dates``)."""
    if started is None:
        return "unknown time"
    try:
        return short_date_time(started)  # a naive time is taken as local, as the journal wrote it
    except (OverflowError, OSError, ValueError):
        return str(started)


def session_heading(summary) -> str:
    """What names a session: its title when the user gave one, else its first line."""
    return (summary.title or summary.first_line or "(no words)").strip()


def who(summary) -> str:
    """Who or what was heard: the speakers of a meeting, else the sources."""
    if summary.speakers:
        return ", ".join(summary.speakers)  # the names they were shown by
    return ", ".join(s for s in summary.sources if s) or "unknown source"


def session_texts(summary, masked: bool = False) -> tuple[str, str]:
    """(plain, rich) text of a session's row: when, how long, who; then its title or first line."""
    facts = [started_text(summary.started), duration_text(summary.duration_s), who(summary)]
    if summary.live:
        facts.append("recording now")
    heading = masked_text(session_heading(summary)) if masked else session_heading(summary)
    pinned = f"{PIN_MARK} " if summary.pinned else ""
    plain = ("Pinned. " if summary.pinned else "") + SEPARATOR.join(facts) + "\n" + heading
    rich = f"<b>{html.escape(pinned + SEPARATOR.join(facts))}</b><br>{html.escape(_quoted(summary, heading))}"
    return plain, rich


def _quoted(summary, heading: str) -> str:
    return heading if summary.title else f"“{heading}”"


def masked_text(text: str) -> str:
    """``text`` with each profane word masked; the same length, so match offsets still hold."""
    return _WORD.sub(lambda m: mask(m.group(0)), text)


def highlighted(snippet: str, spans, masked: bool = False) -> str:
    """``snippet`` as escaped rich text, each (start, end) span of it highlighted. Spans out of
    range or overlapping an earlier one are clipped, never trusted blindly."""
    text = masked_text(snippet) if masked else snippet
    out, at = [], 0
    for start, end in sorted((int(a), int(b)) for a, b in spans):
        start, end = max(start, at), min(end, len(text))
        if start >= end:
            continue
        out.append(html.escape(text[at:start]))
        out.append(
            f'<span style="background-color:{HIGHLIGHT_BACKGROUND}; color:{HIGHLIGHT_TEXT};">'
            f"{html.escape(text[start:end])}</span>"
        )
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def matched_words(snippet: str, spans) -> list[str]:
    """The words a hit matched, in the order the snippet has them (a phrase's span gives each of
    its words)."""
    matched = [snippet[int(a) : int(b)] for a, b in sorted(spans) if 0 <= int(a) < int(b) <= len(snippet)]
    return [word for text in matched for word in text.split()]


def hit_texts(hit, summary=None, masked: bool = False) -> tuple[str, str]:
    """(plain, rich) text of a search result: the snippet with its matches highlighted, then the
    session (date, and its title when it has one), who spoke, and the moment (mm:ss)."""
    facts = [started_text(hit.started)]
    if summary is not None and summary.title:
        facts.append(summary.title)
    if hit.speaker:
        facts.append(hit.speaker)
    facts.append(f"at {format_elapsed(hit.time_s or 0, width=5)}")  # "mm:ss": the hits' times line up
    snippet = masked_text(hit.snippet) if masked else hit.snippet
    plain = f"{snippet}\n{SEPARATOR.join(facts)}"
    where = html.escape(SEPARATOR.join(facts))
    rich = f"{highlighted(hit.snippet, hit.spans, masked)}<br><small>{where}</small>"
    return plain, rich
