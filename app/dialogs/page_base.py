"""What every settings page is built from: the ``SettingsPage`` contract and the small helpers
the pages share to lay out their controls.

Each page is a widget that owns its controls (with their labels, hints, buddies and accessible
names) and says which setting each control shows: ``controls()`` maps a ``Key`` to the pair
(read the control, write the control). A page whose values can be wrong in a way that would
only show later, mid-meeting, says so in ``validate()``. ``SettingsDialog`` loads, compares and
saves the values; it never reaches into a page's controls itself.

Apart from the pages (``settings_pages``, ``recognition_page``, ``dictation_page``, ...) so that a
page in a module of its own imports only this, and ``settings_pages`` can still name every page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QWidget

from app.settings import Key

Controls = dict[Key, tuple[Callable[[], Any], Callable[[Any], None]]]
Problem = tuple[QWidget, str]  # the control concerned, and what to do about it


def _select(box: QComboBox, data: Any, missing_label: str | None = None) -> None:
    """Select the item holding ``data``; add it (labelled ``missing_label``) when absent."""
    index = box.findData(data)
    if index < 0 and missing_label is not None:
        box.addItem(missing_label, data)
        index = box.count() - 1
    box.setCurrentIndex(max(index, 0))


def _combo(name: str, items: list[tuple[str, Any]] = ()) -> QComboBox:
    box = QComboBox()
    box.setAccessibleName(name)
    for label, data in items:
        box.addItem(label, data)
    return box


def _hint(text: str) -> QLabel:
    label = QLabel(text, wordWrap=True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # secondary text, in either scheme
    return label


def _row(*widgets: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    for widget in widgets:
        row.addWidget(widget)
    return row


def _set_buddy(form: QFormLayout, row: int, widget: QWidget) -> None:
    # addRow(str, layout) makes a label with no buddy; point its mnemonic at the control.
    label = form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
    if isinstance(label, QLabel):
        label.setBuddy(widget)


class SettingsPage(QWidget):
    """One tab of the settings dialog."""

    def controls(self) -> Controls:
        raise NotImplementedError

    def validate(self) -> Problem | None:
        """The first problem on this page, or None when its values can be saved."""
        return None
