"""The caption overlay: a frameless, translucent, always-on-top strip of captions over a meeting.

Design notes, because each choice answers a complaint people have with overlays:

* It never takes the keyboard focus (``WA_ShowWithoutActivating``,
  ``WindowDoesNotAcceptFocus``): showing captions must not interrupt typing
  in the meeting's chat.
* Click-through mode (``WindowTransparentForInput``) lets clicks reach the
  meeting underneath. The overlay then cannot be clicked at all, so the
  toggle lives on a shortcut (``click_through_action``) and in the tray.
* Text is painted from cached paths in ``paintEvent``: an update costs one
  layout of the visible tail and one repaint, with no widget relayout, so
  captions do not flicker. Old lines never reflow (see ``caption_layout``).
* The height follows the number of lines and the font size; the user sets
  the width by dragging the left or right edge. Moving and resizing go
  through the compositor (``startSystemMove``/``startSystemResize``) where it
  offers that, which is the only way that works on Wayland.
* Geometry and style are remembered per screen (``OverlayPlacement`` in
  ``placement``, records in ``geometry``).
* Arabic, Hebrew, Persian and Urdu captions read from the right: each line goes its speaker's
  turn's way, as the captions window's paragraphs do (``caption_layout``).

Wayland: compositors decide stacking and placement. Stay-on-top and
restoring the position may be ignored there; see docs/USER_GUIDE.md ("On Wayland").
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontMetricsF,
    QKeySequence,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import QMenu, QWidget
from shiboken6 import isValid

from app.overlay import geometry as og
from app.overlay.caption_layout import CaptionLayout, Line
from app.overlay.menu import build_menu
from app.overlay.placement import OverlayPlacement
from app.overlay.window_drag import WindowDrag
from app.overlay_options import CLICK_THROUGH_SHORTCUT, MAX_FONT, MAX_LINES, MIN_FONT, MIN_LINES
from app.settings import OVERLAY_CLICK_THROUGH, OVERLAY_FONT_SIZE, OVERLAY_LINES, OVERLAY_OPACITY, AppSettings
from app.theme import caption_colors, speaker_color

PLACEHOLDER = "Captions appear here"


class CaptionOverlay(QWidget):
    """See the module docstring. Slots: ``set_captions``, ``set_click_through``,
    ``toggle_click_through``, ``reload_settings``. Where it sits is ``placement``'s business."""

    visibility_changed = Signal(bool)
    click_through_changed = Signal(bool)
    style_changed = Signal()  # lines, font size or opacity changed (from the menu or the settings)

    PAD_X, PAD_Y, RADIUS = 18, 10, 12

    def __init__(self, settings: AppSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self._settings = settings
        self._click_through = bool(settings.get(OVERLAY_CLICK_THROUGH))
        self.setWindowFlags(self._flags())
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)  # closing captions never quits
        self.setMouseTracking(True)
        self.setWindowTitle("livecap captions")
        self.setAccessibleName("Caption overlay")
        self.setAccessibleDescription(
            "Live captions. Drag to move, drag the left or right edge "
            "to resize, right-click for text size, lines and background."
        )
        self.setMinimumWidth(og.MIN_WIDTH)
        self._layout = CaptionLayout()
        self._texts = ("", "")
        self._labels: dict[str, str] = {}  # label word -> speaker id
        self._lines: list[Line] = []
        self._paths: tuple[QPainterPath, QPainterPath] = (QPainterPath(), QPainterPath())
        self._label_paths: dict[str, QPainterPath] = {}  # colour name -> the labels drawn in it
        self._drag = WindowDrag(self, og.MIN_WIDTH)
        self._changing_flags = False
        self._actions: list[QAction] = []
        self.placement = OverlayPlacement(self, settings)
        self._style = og.Style(*self._global_style())
        self._apply_style(self._style, persist=False)
        self.placement.restore_geometry()

    # -- captions ---------------------------------------------------------------------------

    def set_captions(self, settled_text: str, provisional_text: str, labels=None) -> None:
        """Show the recent captions: settled text, then the provisional tail (drawn lighter, italic).
        ``labels``: {word: speaker id} for the words that are a meeting's speaker labels ("Me›"),
        drawn in the speaker's colour."""
        texts, labels = (settled_text or "", provisional_text or ""), dict(labels or {})
        if texts == self._texts and labels == self._labels:
            return
        self._texts, self._labels = texts, labels
        self._relayout()

    def laid_out_lines(self) -> list[Line]:
        """The lines on screen now, oldest first (at most ``lines``); for tests and accessibility."""
        return list(self._lines)

    def fonts(self) -> tuple[QFont, QFont]:
        """(settled font, provisional font)."""
        base = QFont(self.font())
        base.setPointSize(self._style.font_size)
        base.setWeight(QFont.Weight.DemiBold)  # heavier strokes survive the outline and video behind
        provisional = QFont(base)
        provisional.setItalic(True)
        provisional.setWeight(QFont.Weight.Normal)
        return base, provisional

    def _relayout(self) -> None:
        settled_font, provisional_font = self.fonts()
        self._layout.configure(
            settled_font, provisional_font, self.width() - 2 * self.PAD_X, self._style.lines
        )
        self._lines = self._layout.layout(*self._texts, labels=self._labels)
        # Bottom-aligned like subtitles: the newest line is always on the last row.
        first_row = self._style.lines - len(self._lines)
        spacing, ascent = self.line_spacing(), QFontMetricsF(settled_font).ascent()
        settled, provisional = QPainterPath(), QPainterPath()
        self._label_paths = {}
        for i, line in enumerate(self._lines):
            baseline = self.PAD_Y + (first_row + i) * spacing + ascent
            for run in line.runs:
                path, font = (provisional, provisional_font) if run.provisional else (settled, settled_font)
                if run.label:  # always on the dark panel: the dark scheme's colour
                    colour = speaker_color(self._labels[run.text], dark=True).name()
                    path = self._label_paths.setdefault(colour, QPainterPath())
                path.addText(self.PAD_X + run.x, baseline, font, line.text_to_draw(run))
        self._paths = (settled, provisional)
        self.update()

    # -- style ------------------------------------------------------------------------------

    def style_values(self) -> og.Style:
        return self._style

    def set_lines(self, lines: int) -> None:
        self._set_style(lines=int(lines))

    def set_font_size(self, points: int) -> None:
        self._set_style(font_size=int(points))

    def set_background_opacity(self, opacity: float) -> None:
        self._set_style(opacity=float(opacity))

    def restore_style(self, style: og.Style) -> None:
        """Show ``style`` (a screen's remembered one) and make it the current settings."""
        self._apply_style(style, persist=True)

    def reload_settings(self) -> None:
        """Apply the OVERLAY_* settings (connect to ``SettingsDialog.settings_changed``)."""
        lines, size, opacity = self._global_style()
        self._set_style(lines=lines, font_size=size, opacity=opacity)
        self.set_click_through(bool(self._settings.get(OVERLAY_CLICK_THROUGH)))

    def _global_style(self) -> tuple[int, int, float]:
        return (
            self._settings.get(OVERLAY_LINES),
            self._settings.get(OVERLAY_FONT_SIZE),
            self._settings.get(OVERLAY_OPACITY),
        )

    def _set_style(
        self, lines: int | None = None, font_size: int | None = None, opacity: float | None = None
    ) -> None:
        s = self._style
        style = og.Style(
            lines=s.lines if lines is None else lines,
            font_size=s.font_size if font_size is None else font_size,
            opacity=s.opacity if opacity is None else opacity,
        )
        if style != self._style:
            self._apply_style(style, persist=True)

    def _apply_style(self, style: og.Style, persist: bool) -> None:
        style = og.Style(
            lines=min(MAX_LINES, max(MIN_LINES, style.lines)),
            font_size=min(MAX_FONT, max(MIN_FONT, style.font_size)),
            opacity=min(1.0, max(0.0, style.opacity)),
        )
        old_bottom = self.geometry().bottom()
        self._style = style
        height = self.content_height()
        if height != self.height():
            self.setFixedHeight(height)
            if self.isVisible():  # grow upwards: captions usually sit at the bottom of the screen
                rect = QRect(self.x(), old_bottom - height + 1, self.width(), height)
                area = self.placement.current_screen().availableGeometry()
                self.setGeometry(og.clamp_rect(rect, area))
        if persist:
            self._settings.set(OVERLAY_LINES, style.lines)
            self._settings.set(OVERLAY_FONT_SIZE, style.font_size)
            self._settings.set(OVERLAY_OPACITY, style.opacity)
            if not self.placement.restoring:
                og.save_style(self._settings, og.screen_key(self.placement.current_screen()), style)
        self._relayout()
        self.style_changed.emit()

    def line_spacing(self) -> float:
        """Pixels from one caption row to the next (the taller of the two fonts)."""
        return max(QFontMetricsF(f).lineSpacing() for f in self.fonts())

    def content_height(self) -> int:
        """The height that shows ``lines`` rows of captions at the current text size."""
        return int(2 * self.PAD_Y + self._style.lines * self.line_spacing())

    # -- click-through ----------------------------------------------------------------------

    def is_click_through(self) -> bool:
        return self._click_through

    def toggle_click_through(self) -> None:
        self.set_click_through(not self._click_through)

    def set_click_through(self, on: bool) -> None:
        """Let mouse clicks pass through to the windows below (and persist the choice)."""
        on = bool(on)
        flagged = bool(self.windowFlags() & Qt.WindowType.WindowTransparentForInput)
        if on != flagged:
            # Changing window flags re-creates the native window, which hides it: put it back
            # where it was, without telling listeners the overlay was hidden.
            geometry, visible = QRect(self.geometry()), self.isVisible()
            self._changing_flags = True
            try:
                self.setWindowFlag(Qt.WindowType.WindowTransparentForInput, on)
                self.setGeometry(geometry)
                if visible:
                    self.show()
            finally:
                self._changing_flags = False
        self._drag.release()
        changed = on != self._click_through
        self._click_through = on
        self._settings.set(OVERLAY_CLICK_THROUGH, on)
        self._actions = [a for a in self._actions if isValid(a)]
        for action in self._actions:
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)
        if changed:
            self.click_through_changed.emit(on)
            self.update()

    def click_through_action(self, parent: QWidget) -> QAction:
        """A checkable action bound to Ctrl+Shift+T that toggles click-through.

        Added to ``parent`` (the main window) with an application-wide context, so the
        shortcut works while any livecap window has the focus. Qt has no system-wide
        hotkeys: from inside the meeting, use the tray menu.
        """
        action = QAction("&Click-through overlay", parent)
        action.setObjectName("overlay-click-through")
        action.setCheckable(True)
        action.setChecked(self._click_through)
        action.setShortcut(QKeySequence(CLICK_THROUGH_SHORTCUT))
        action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        action.setToolTip("Let clicks pass through the caption overlay to the meeting below")
        action.toggled.connect(self.set_click_through)
        if isinstance(parent, QWidget):
            parent.addAction(action)
        self._actions.append(action)
        return action

    def _flags(self) -> Qt.WindowType:
        flags = (
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus
        )
        if self._click_through:
            flags |= Qt.WindowType.WindowTransparentForInput
        return flags

    # -- events -----------------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        colors = caption_colors(dark=True)  # always a dark panel, whatever the desktop's scheme
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        panel = QColor(0, 0, 0, round(255 * self._style.opacity))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(panel)
        p.drawRoundedRect(self.rect(), self.RADIUS, self.RADIUS)
        if self.underMouse() and not self._click_through:  # show where the grab area is
            p.setPen(QPen(QColor(255, 255, 255, 90), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(self.rect().adjusted(0, 0, -1, -1), self.RADIUS, self.RADIUS)
        settled, provisional = self._paths
        if not self._lines:
            settled, provisional = QPainterPath(), QPainterPath()
            metrics = QFontMetricsF(self.fonts()[1])
            baseline = self.height() - self.PAD_Y - metrics.descent() - 2
            provisional.addText(self.PAD_X, baseline, self.fonts()[1], PLACEHOLDER)
        # An outline under the fill keeps text readable on a light video frame even with no panel.
        outline = QPen(
            colors.outline,
            max(2.0, self._style.font_size / 7),
            Qt.PenStyle.SolidLine,
            Qt.PenCapStyle.RoundCap,
            Qt.PenJoinStyle.RoundJoin,
        )
        labels = [(path, QColor(colour)) for colour, path in self._label_paths.items()] if self._lines else []
        for path, colour in (
            (settled, colors.settled),
            (provisional, colors.provisional if self._lines else colors.partial),
            *labels,
        ):
            if not path.isEmpty():
                p.strokePath(path, outline)
                p.fillPath(path, colour)
        p.end()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._relayout()
        self.placement.save_soon()

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        self.placement.save_soon()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._changing_flags:
            self.visibility_changed.emit(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        if not self._changing_flags:
            self.placement.save_geometry()
            self.visibility_changed.emit(False)

    def enterEvent(self, event) -> None:
        self.update()

    def leaveEvent(self, event) -> None:
        self.update()

    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        self._drag.press(event.position().toPoint(), event.globalPosition().toPoint())
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        self._drag.move(event.position().toPoint(), event.globalPosition().toPoint())

    def mouseReleaseEvent(self, event) -> None:
        if self._drag.release():
            self.placement.save_soon()

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:  # Ctrl+wheel: text size
            step = 2 if event.angleDelta().y() > 0 else -2
            self.set_font_size(self._style.font_size + step)
            event.accept()
        else:
            event.ignore()

    def context_menu(self) -> QMenu:
        """The right-click menu, built for the current state (also used by the tests)."""
        return build_menu(self)

    def contextMenuEvent(self, event) -> None:
        menu = self.context_menu()
        menu.exec(event.globalPos())
        menu.deleteLater()
