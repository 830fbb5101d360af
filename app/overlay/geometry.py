"""Where the caption overlay sits, and how it looks, remembered per screen.

A laptop screen and a conference-room projector want different places and
sizes for captions, so each screen (by its connector name, e.g. ``DP-1``)
keeps its own record under ``overlay/geometry/<screen>`` and
``overlay/style/<screen>/...``. A screen seen for the first time gets a
default: centred near the bottom, like television subtitles.

Screens change between sessions (a docked laptop undocked, a resolution
lowered), so a remembered rectangle is always clamped into the screen's
available area before use: an overlay restored off-screen would be invisible
and, in click-through mode, unreachable.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QScreen

from app.settings import AppSettings

GEOMETRY_PREFIX = "overlay/geometry/"
STYLE_PREFIX = "overlay/style/"
LAST_SCREEN = "overlay/last_screen"
MIN_WIDTH = 240


@dataclass(frozen=True)
class Style:
    lines: int
    font_size: int
    opacity: float


def screen_key(screen: QScreen | None) -> str:
    """A settings-safe name for a screen ('/' would nest QSettings groups)."""
    name = screen.name() if screen is not None else ""
    name = name.strip() or "default"
    return name.replace("/", "_").replace("\\", "_")


def find_screen(name: str) -> QScreen | None:
    for screen in QGuiApplication.screens():
        if screen_key(screen) == name:
            return screen
    return None


def clamp_rect(rect: QRect, area: QRect) -> QRect:
    """``rect`` moved (and if need be narrowed or shortened) so it lies inside ``area``."""
    width = max(1, min(rect.width(), area.width()))
    height = max(1, min(rect.height(), area.height()))
    x = min(max(rect.x(), area.left()), area.left() + area.width() - width)
    y = min(max(rect.y(), area.top()), area.top() + area.height() - height)
    return QRect(x, y, width, height)


def default_rect(area: QRect, height: int) -> QRect:
    """Centred, 70 % of the width, its bottom 8 % above the bottom of ``area``."""
    width = max(MIN_WIDTH, int(area.width() * 0.7))
    x = area.left() + (area.width() - width) // 2
    y = area.top() + area.height() - height - int(area.height() * 0.08)
    return clamp_rect(QRect(x, y, width, height), area)


def load_rect(settings: AppSettings, key: str) -> QRect | None:
    value = settings.get_raw(GEOMETRY_PREFIX + key)
    if isinstance(value, QRect) and value.isValid():
        return value
    if isinstance(value, (list, tuple)) and len(value) == 4:  # a hand-edited "x, y, w, h"
        try:
            rect = QRect(*(int(v) for v in value))
        except (TypeError, ValueError):
            return None
        return rect if rect.isValid() else None
    return None


def save_rect(settings: AppSettings, key: str, rect: QRect) -> None:
    settings.set_raw(GEOMETRY_PREFIX + key, QRect(rect))
    settings.set_raw(LAST_SCREEN, key)


def load_style(settings: AppSettings, key: str) -> Style | None:
    base = STYLE_PREFIX + key + "/"
    raw = [settings.get_raw(base + name) for name in ("lines", "font_size", "opacity")]
    if any(v is None for v in raw):
        return None
    try:
        return Style(lines=int(raw[0]), font_size=int(raw[1]), opacity=float(raw[2]))
    except (TypeError, ValueError):
        return None  # unreadable: fall back to the global style


def save_style(settings: AppSettings, key: str, style: Style) -> None:
    base = STYLE_PREFIX + key + "/"
    settings.set_raw(base + "lines", style.lines)
    settings.set_raw(base + "font_size", style.font_size)
    settings.set_raw(base + "opacity", style.opacity)


def last_screen(settings: AppSettings) -> QScreen | None:
    """The screen the overlay was last on, if it is still connected."""
    name = settings.get_raw(LAST_SCREEN)
    return find_screen(str(name)) if name else None
