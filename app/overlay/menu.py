"""The caption overlay's right-click menu: lines, text size, background, the spoken language and
translation, click-through, hide.

Built afresh on every right-click, so its ticks always show the overlay's
current state; the overlay deletes it after use.
"""

from __future__ import annotations

from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QMenu

from app.languages import fill_menu
from app.overlay_options import (
    CLICK_THROUGH_SHORTCUT,
    FONT_CHOICES,
    FONT_STEP,
    MAX_LINES,
    MIN_LINES,
    OPACITY_CHOICES,
)


def build_menu(overlay) -> QMenu:
    """The menu for ``overlay`` (a ``CaptionOverlay``, whose public methods its actions call);
    actions have object names for tests."""
    style = overlay.style_values()
    menu = QMenu(overlay)
    menu.setAccessibleName("Caption overlay options")
    lines = menu.addMenu("&Lines")
    _choices(
        lines,
        [(n, f"&{n}") for n in range(MIN_LINES, MAX_LINES + 1)],
        style.lines,
        overlay.set_lines,
        "lines",
    )
    size = menu.addMenu("Text &size")
    larger = size.addAction(
        "&Larger\tCtrl+Wheel up", lambda: overlay.set_font_size(overlay.style_values().font_size + FONT_STEP)
    )
    larger.setObjectName("font-larger")
    smaller = size.addAction(
        "S&maller\tCtrl+Wheel down",
        lambda: overlay.set_font_size(overlay.style_values().font_size - FONT_STEP),
    )
    smaller.setObjectName("font-smaller")
    size.addSeparator()
    _choices(size, [(n, f"{n} pt") for n in FONT_CHOICES], style.font_size, overlay.set_font_size, "font")
    background = menu.addMenu("&Background")
    _choices(background, list(OPACITY_CHOICES), style.opacity, overlay.set_background_opacity, "opacity")
    # The same choices as Settings → Recognition, applied as the settings are (a running
    # session starts again in the language chosen).
    language = menu.addMenu("Lan&guage")
    language.setObjectName("language")
    fill_menu(language, overlay._settings)  # the settings the overlay was made with
    menu.addSeparator()
    # The shortcut is shown, not bound here: the main window's action owns Ctrl+Shift+T.
    through = menu.addAction(f"&Click-through\t{CLICK_THROUGH_SHORTCUT}")
    through.setObjectName("click-through")
    through.setCheckable(True)
    through.setChecked(overlay.is_click_through())
    through.toggled.connect(overlay.set_click_through)
    hide = menu.addAction("&Hide overlay", overlay.hide)
    hide.setObjectName("hide")
    return menu


def _choices(menu: QMenu, choices, current, apply, name: str) -> None:
    """Exclusive, ticked choices: one per (value, label)."""
    group = QActionGroup(menu)
    for value, label in choices:
        action = menu.addAction(label)
        action.setObjectName(f"{name}-{value}")
        action.setCheckable(True)
        action.setChecked(abs(value - current) < 1e-6)
        action.setActionGroup(group)
        action.triggered.connect(lambda _checked=False, v=value: apply(v))
