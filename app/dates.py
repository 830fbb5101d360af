"""Dates and times as the user reads them: in local time, in the locale's short format where the
locale has one, and in ISO 8601 ("2026-12-07 04:17") where it has none.

The C (POSIX) locale, which a system runs under when no language is set (``LANG=C.UTF-8``, a
minimal install, a container), has no convention for dates: Qt's short format for it reads
"7 12 2026 04:17", which nobody writes and which leaves day and month to guess. ISO 8601 is
read the same way everywhere.
"""

from __future__ import annotations

from datetime import datetime

__all__ = ["ISO_DATE_TIME", "short_date_time"]

ISO_DATE_TIME = "yyyy-MM-dd HH:mm"  # Qt's pattern for ISO 8601's date and minute, local time


def short_date_time(moment: datetime) -> str:
    """``moment`` in local time, as the user's locale (``QLocale()``) writes a date and a time
    shortly; ISO 8601 for the C locale. A naive ``moment`` is taken as local."""
    from PySide6.QtCore import QDateTime, QLocale

    locale = QLocale()
    stamp = QDateTime.fromSecsSinceEpoch(int(moment.timestamp()))
    if locale.language() == QLocale.Language.C:
        return locale.toString(stamp, ISO_DATE_TIME)
    return locale.toString(stamp, QLocale.FormatType.ShortFormat)
