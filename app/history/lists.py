"""The History window's two lists: sessions (newest first) and search results.

Each row holds its text twice: plain (the item's display text, which screen readers read and
keyboard search uses) and rich (what ``RichTextDelegate`` paints: a result's matched words
highlighted, a session's facts in bold). The item's data is the ``SessionSummary`` or the
``SearchHit`` itself, so opening a row needs nothing else.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListView,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.history.rows import hit_texts, session_texts

DATA_ROLE = Qt.ItemDataRole.UserRole
RICH_ROLE = Qt.ItemDataRole.UserRole + 1
PADDING = 6  # pixels around a row's text


class RichTextDelegate(QStyledItemDelegate):
    """Paints a row's rich text (``RICH_ROLE``) over the style's own row background, so selection
    and focus look as in every other list; the text wraps to the list's width."""

    def _document(self, index: QModelIndex, option: QStyleOptionViewItem, width: int) -> QTextDocument:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(option.font)
        doc.setHtml(index.data(RICH_ROLE) or "")
        doc.setTextWidth(max(40, width - 2 * PADDING))
        return doc

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""  # the style draws the row, the document its text
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = self._document(index, opt, opt.rect.width())
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(role))
        painter.save()
        painter.translate(opt.rect.left() + PADDING, opt.rect.top() + PADDING)
        painter.setClipRect(0, 0, opt.rect.width() - PADDING, opt.rect.height() - PADDING)
        doc.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        view = option.widget
        width = view.viewport().width() if view is not None else option.rect.width()
        doc = self._document(index, option, width)
        return QSize(width, int(doc.size().height()) + 2 * PADDING)


class RichList(QListWidget):
    """A list of rich-text rows, one selected at a time, driven from the keyboard."""

    def __init__(self, accessible_name: str, parent=None):
        super().__init__(parent)
        self.setAccessibleName(accessible_name)
        self.setItemDelegate(RichTextDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setResizeMode(QListView.ResizeMode.Adjust)  # rows re-wrap to a new width
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setUniformItemSizes(False)

    def add_row(self, plain: str, rich: str, data) -> QListWidgetItem:
        item = QListWidgetItem(plain)
        item.setData(RICH_ROLE, rich)
        item.setData(DATA_ROLE, data)
        self.addItem(item)
        return item

    def current_data(self):
        item = self.currentItem()
        return item.data(DATA_ROLE) if item is not None else None

    def row_data(self, row: int):
        item = self.item(row)
        return item.data(DATA_ROLE) if item is not None else None


class SessionList(RichList):
    """Every session, newest first: date, duration, who, a pin, the title or first line."""

    def __init__(self, parent=None):
        super().__init__("Sessions, newest first", parent)

    def show_sessions(self, sessions, masked: bool = False) -> None:
        keep = self.current_data()
        self.clear()
        for summary in sessions:
            plain, rich = session_texts(summary, masked)
            self.add_row(plain, rich, summary)
        self.select_session(keep.id if keep is not None else None)

    def select_session(self, session_id: str | None) -> None:
        """Make ``session_id``'s row current (the first row where it is gone or None)."""
        rows = [r for r in range(self.count()) if self.row_data(r).id == session_id]
        if self.count():
            self.setCurrentRow(rows[0] if rows else 0)


class ResultList(RichList):
    """The search results, best first: each the snippet with its matched words highlighted, the
    session and the moment."""

    def __init__(self, parent=None):
        super().__init__("Search results", parent)

    def show_hits(self, hits, sessions_by_id: dict, masked: bool = False) -> None:
        self.clear()
        for hit in hits:
            plain, rich = hit_texts(hit, sessions_by_id.get(hit.session_id), masked)
            self.add_row(plain, rich, hit)
        if self.count():
            self.setCurrentRow(0)
