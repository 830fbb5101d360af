"""The app's look: light and dark palettes that follow the system, caption colours, the icon.

Why the palette is managed here at all: on Linux, Qt only follows the desktop's
dark mode when a platform theme plugin (GNOME's portal, KDE's) hands it a dark
palette. Without one, Qt 6.5+ still *reports* the scheme through
``QStyleHints.colorScheme()`` but keeps a light palette, so a dark desktop would
get a glaring white window. We therefore install our own palette only when the
reported scheme and the palette disagree, and leave a correct platform palette
alone (it knows the user's accent colour, we don't).

Caption colours are chosen for contrast (WCAG 2 "AA" or better against the
background they are drawn on), because people read captions from a distance and
at a glance; tests check the ratios.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette

from engine import SPEAKER_ME, voice_number

ICON_PATH = Path(__file__).with_name("resources") / "livecap.svg"


@dataclass(frozen=True)
class CaptionColors:
    """Text colours for caption text in one scheme.

    settled: final text that will not change; provisional: punctuated text the
    engine may still revise (drawn lighter and italic); partial: the
    recognizer's words that are not even final yet (lighter still);
    background: what the colours were checked against.
    """

    settled: QColor
    provisional: QColor
    partial: QColor
    background: QColor
    outline: QColor  # the overlay's text outline, so text stays readable over any video


_DARK = CaptionColors(
    settled=QColor("#ffffff"),
    provisional=QColor("#c9d3de"),
    partial=QColor("#9ba7b4"),
    background=QColor("#1b1d21"),
    outline=QColor(0, 0, 0, 220),
)
_LIGHT = CaptionColors(
    settled=QColor("#111111"),
    provisional=QColor("#36414d"),
    partial=QColor("#56616d"),
    background=QColor("#ffffff"),
    outline=QColor(255, 255, 255, 220),
)


def caption_colors(dark: bool) -> CaptionColors:
    """Caption text colours for a dark or a light background."""
    return _DARK if dark else _LIGHT


# A meeting's speakers, each in its own colour: Me first, the others' side second, then one per
# voice told apart among the others. Every colour keeps 4.5:1 or more against its scheme's caption
# background (and the dark ones against the overlay's black panel); tests check the ratios.
_SPEAKERS_LIGHT = ("#1a56b0", "#9c4200", "#1d6b35", "#7a2ea6", "#0b6671", "#b0233b")
_SPEAKERS_DARK = ("#8ab4f8", "#f6ad55", "#7dd3a0", "#d7aefb", "#5fd4dd", "#ff8fa3")


def speaker_palette(dark: bool) -> tuple[QColor, ...]:
    """Every speaker colour of a scheme, in the order speakers take them."""
    return tuple(QColor(c) for c in (_SPEAKERS_DARK if dark else _SPEAKERS_LIGHT))


def speaker_color(speaker: str, dark: bool) -> QColor:
    """The colour of ``speaker`` (an engine speaker id: "me", "others", "others:N") on a dark or
    light background. The others' side without voices told apart and its first voice share a
    colour: the first voice is usually the only one."""
    colours = speaker_palette(dark)
    number = voice_number(speaker)
    if speaker == SPEAKER_ME:
        index = 0
    elif number is not None:
        index = 1 + (number - 1) % (len(colours) - 1)
    else:
        index = 1
    return colours[index]


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio between two opaque colours (1 = none, 21 = black on white)."""

    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#202226",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#1b1d21",
        QPalette.ColorRole.AlternateBase: "#26292e",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.Button: "#2b2e33",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.ToolTipBase: "#2b2e33",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
        QPalette.ColorRole.Highlight: "#3d7bd9",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Light: "#3a3e44",
        QPalette.ColorRole.Midlight: "#32363b",
        QPalette.ColorRole.Mid: "#2a2d32",
        QPalette.ColorRole.Dark: "#15171a",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    # Disabled controls must look disabled, yet stay legible (about 4.5:1 on the window).
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#8a9099"))
    return p


def light_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#f3f4f6",
        QPalette.ColorRole.WindowText: "#111111",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#f0f2f5",
        QPalette.ColorRole.Text: "#111111",
        QPalette.ColorRole.Button: "#e9ebee",
        QPalette.ColorRole.ButtonText: "#111111",
        QPalette.ColorRole.ToolTipBase: "#ffffdc",
        QPalette.ColorRole.ToolTipText: "#111111",
        QPalette.ColorRole.PlaceholderText: "#6b7280",
        QPalette.ColorRole.Highlight: "#1f6feb",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#0b57d0",
        QPalette.ColorRole.BrightText: "#b00020",
        QPalette.ColorRole.Light: "#ffffff",
        QPalette.ColorRole.Midlight: "#e3e5e8",
        QPalette.ColorRole.Mid: "#b8bcc2",
        QPalette.ColorRole.Dark: "#9aa0a6",
        QPalette.ColorRole.Shadow: "#5f6368",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e737a"))
    return p


class ThemeWatcher(QObject):
    """Keeps the application palette in step with the system's light/dark setting.

    ``dark`` is the current state; ``scheme_changed(dark)`` fires when it flips,
    so views that paint their own text (the caption view, the overlay) can pick
    new ``caption_colors``.
    """

    scheme_changed = Signal(bool)

    def __init__(self, app: QGuiApplication):
        super().__init__(app)
        self._app = app
        self._platform_palette = QPalette(app.palette())  # what the desktop gave us, to restore
        self.dark = is_dark(self._platform_palette)
        self.apply()
        app.styleHints().colorSchemeChanged.connect(self._on_scheme_changed)

    def scheme(self) -> Qt.ColorScheme:
        return self._app.styleHints().colorScheme()

    def apply(self) -> bool:
        """Install the palette matching the current scheme; returns whether it is dark."""
        scheme = self.scheme()
        if scheme == Qt.ColorScheme.Unknown:
            wanted_dark = is_dark(self._platform_palette)  # nothing reported: trust the platform
        else:
            wanted_dark = scheme == Qt.ColorScheme.Dark
        if is_dark(self._platform_palette) == wanted_dark:
            palette = self._platform_palette  # the desktop's own palette already fits: keep its accents
        else:
            palette = dark_palette() if wanted_dark else light_palette()
        self._app.setPalette(palette)
        changed = wanted_dark != self.dark
        self.dark = wanted_dark
        return changed

    def _on_scheme_changed(self, _scheme) -> None:
        # A platform theme may have changed its palette too. Setting an empty palette
        # resets the application to the platform's, so we can read the desktop's new one.
        self._app.setPalette(QPalette())
        self._platform_palette = QPalette(self._app.palette())
        if self.apply():
            self.scheme_changed.emit(self.dark)


def apply_system_palette(app: QGuiApplication) -> ThemeWatcher:
    """Follow the system's light/dark scheme now and whenever it changes.

    Returns the watcher (owned by ``app``): read ``.dark``, connect ``.scheme_changed``.
    """
    existing = app.findChild(ThemeWatcher)
    return existing if existing is not None else ThemeWatcher(app)


def app_icon() -> QIcon:
    """livecap's icon (an SVG; needs Qt's svg image plugin, which PySide6 ships)."""
    return QIcon(str(ICON_PATH))
