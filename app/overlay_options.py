"""What the caption overlay's user can choose, and within which limits.

Shared by the overlay, its right-click menu, the settings dialog's Overlay page, the tray menu and
the captions window's shortcuts list. It sits beside the windows and imports none of them, so no
window has to import another for a number.
"""

from __future__ import annotations

MIN_LINES, MAX_LINES = 1, 4
MIN_FONT, MAX_FONT = 10, 96
FONT_CHOICES = (18, 22, 28, 36, 48, 64)  # points, as offered in the menu
FONT_STEP = 4  # the menu's Larger / Smaller
OPACITY_CHOICES = (
    (0.0, "&Transparent"),
    (0.25, "&25 %"),
    (0.5, "&50 %"),
    (0.65, "&65 %"),
    (0.8, "&80 %"),
    (1.0, "&Opaque"),
)
# Bound by the overlay's click-through action (added to the main window, application-wide);
# shown in the overlay's menu, the tray menu, the settings dialog and Help → Keyboard shortcuts.
CLICK_THROUGH_SHORTCUT = "Ctrl+Shift+T"
