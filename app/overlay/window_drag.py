"""Moving and resizing a frameless window with the mouse.

The compositor is asked first (``QWindow.startSystemMove``/``startSystemResize``):
on Wayland that is the only way a client window can move at all, and on X11 it
gives the window manager's snapping and edge resistance. Where the platform
declines (the offscreen platform of the tests, a few old X11 window managers),
the window is moved by hand from the mouse's global position.

Only the left and right edges resize: the overlay's height follows its
number of lines and font size.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QWidget


class WindowDrag:
    EDGE = 10  # pixels from the left/right border that grab the edge instead of the body

    def __init__(self, window: QWidget, min_width: int):
        self.window, self.min_width = window, min_width
        self._drag: tuple[Qt.Edge | None, QPoint, QRect] | None = None

    @property
    def active(self) -> bool:
        return self._drag is not None

    def edge_at(self, pos: QPoint) -> Qt.Edge | None:
        if pos.x() < self.EDGE:
            return Qt.Edge.LeftEdge
        if pos.x() >= self.window.width() - self.EDGE:
            return Qt.Edge.RightEdge
        return None

    def press(self, pos: QPoint, global_pos: QPoint) -> None:
        edge = self.edge_at(pos)
        handle = self.window.windowHandle()
        if handle is not None and (handle.startSystemResize(edge) if edge else handle.startSystemMove()):
            return  # the compositor drives it from here; we only see the resulting move/resize events
        self._drag = (edge, global_pos, QRect(self.window.geometry()))

    def move(self, pos: QPoint, global_pos: QPoint) -> None:
        if self._drag is None:
            edge = self.edge_at(pos)
            self.window.setCursor(Qt.CursorShape.SizeHorCursor if edge else Qt.CursorShape.SizeAllCursor)
            return
        edge, start, rect = self._drag
        delta = global_pos - start
        if edge is None:
            self.window.move(rect.topLeft() + delta)
        elif edge == Qt.Edge.LeftEdge:  # the right border stays put
            width = max(self.min_width, rect.width() - delta.x())
            self.window.setGeometry(rect.right() - width + 1, rect.y(), width, rect.height())
        else:
            self.window.resize(max(self.min_width, rect.width() + delta.x()), rect.height())

    def release(self) -> bool:
        """End a drag; True when one was in progress."""
        was, self._drag = self._drag is not None, None
        return was
