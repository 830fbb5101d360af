"""The source picker: what to caption, in one list.

Microphones by name, system-audio monitors, meetings (the microphone beside the system audio,
or beside one application's sound), one application's sound alone, files played so far, and
"Play a file…". Applications come and go (a call starts, a video ends), so the list of them is
refreshed while the popup is open: the picker says when it opens and closes
(``popup_opened``/``popup_closed``) and whoever scans hands the names to ``set_applications``; it
never asks the sound server itself, so opening it never waits.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.workers.sources import DeviceScan, MeetingChoice
from engine import SourceChoice

MEETING_WITH_SYSTEM = MeetingChoice(SourceChoice("system"))


def meeting_with(application: str) -> MeetingChoice:
    return MeetingChoice(SourceChoice("app", application))


def _is_application_item(data) -> bool:
    """Whether a list entry follows the applications playing now (and goes when they stop)."""
    if isinstance(data, MeetingChoice):
        return data.others.kind == "app"
    return isinstance(data, SourceChoice) and data.kind == "app"


def _application_of(data) -> str:
    return data.others.device if isinstance(data, MeetingChoice) else data.device


def item_label(choice, playing: bool = True) -> str:
    """How the list names ``choice``; an application not playing now says so (a session on it
    waits for its sound)."""
    if isinstance(choice, MeetingChoice):
        if choice.others.kind == "system":
            label = "Meeting: microphone + system audio"
        else:
            label = f"Meeting: microphone + {choice.others.device}"
    elif choice.kind == "app":
        label = f"{choice.device} only"
    elif choice.kind == "file":
        return f"File: {choice.label}"
    else:
        return f"{choice.label} (not found)"
    return label if playing else f"{label} (not playing now)"


class SourcePicker(QComboBox):
    """See the module docstring. ``choice`` is a ``SourceChoice`` or a ``MeetingChoice``."""

    choice_changed = Signal(object)  # SourceChoice | MeetingChoice
    file_requested = Signal()
    popup_opened = Signal()
    popup_closed = Signal()
    PLAY_FILE = "Play a file…"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Audio source")
        self.setToolTip(
            "What to caption: a microphone, what the computer plays (system audio), one "
            "application, a meeting (your microphone and the others, labelled), or a file"
        )
        self.setMinimumContentsLength(22)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self._current = SourceChoice("mic")
        self.applications: list[str] = []  # playing now, as last scanned
        self.activated.connect(self._on_activated)
        self.populate(DeviceScan([], None, []), self._current)

    @property
    def choice(self) -> SourceChoice | MeetingChoice:
        return self._current

    def populate(self, scan: DeviceScan, current) -> None:
        files = [data for data in self._data() if isinstance(data, SourceChoice) and data.kind == "file"]
        self.blockSignals(True)
        self.clear()
        self.addItem(
            "Default microphone" + (f" ({scan.default_microphone})" if scan.default_microphone else ""),
            SourceChoice("mic"),
        )
        for name in scan.microphones:
            self.addItem(name, SourceChoice("mic", name))
        self.addItem("System audio (what this computer plays)", SourceChoice("system"))
        for name, description in scan.monitors:
            self.addItem(f"System audio: {description}", SourceChoice("system", name))
        self.addItem(item_label(MEETING_WITH_SYSTEM), MEETING_WITH_SYSTEM)
        for choice in files:
            self.addItem(item_label(choice), choice)
        self.addItem(self.PLAY_FILE, None)
        self.blockSignals(False)
        self._current = current
        self.set_applications(scan.applications)
        self.set_choice(current)

    def set_applications(self, names: list[str]) -> None:
        """Offer a meeting with, and the sound alone of, each application in ``names`` (playing
        now); the chosen one stays listed when it stops playing. Only those entries change, so
        the list can be refreshed while its popup is open."""
        self.applications = list(dict.fromkeys(names))
        listed = list(self.applications)
        chosen = self._current if _is_application_item(self._current) else None
        if chosen is not None and _application_of(chosen) not in listed:
            listed.append(_application_of(chosen))
        wanted = [meeting_with(name) for name in listed] + [SourceChoice("app", name) for name in listed]
        labels = [item_label(data, _application_of(data) in self.applications) for data in wanted]
        rows = [i for i in range(self.count()) if _is_application_item(self.itemData(i))]
        if [self.itemData(i) for i in rows] == wanted and [self.itemText(i) for i in rows] == labels:
            return
        self.blockSignals(True)
        for i in reversed(rows):
            self.removeItem(i)
        at = self._index_of(MEETING_WITH_SYSTEM) + 1
        for offset, (data, label) in enumerate(zip(wanted, labels)):
            self.insertItem(at + offset, label, data)
        self.setCurrentIndex(max(0, self._index_of(self._current)))
        self.blockSignals(False)

    def set_choice(self, choice) -> None:
        if _is_application_item(choice) and self._index_of(choice) < 0:
            self._current = choice
            self.set_applications(self.applications)  # listed, marked as not playing now
        index = self._index_of(choice)
        if index < 0:
            self.insertItem(self.count() - 1, item_label(choice), choice)
            index = self._index_of(choice)
        self.setCurrentIndex(index)
        self._current = choice

    def add_file(self, path: str) -> None:
        self.set_choice(SourceChoice("file", path))
        self.choice_changed.emit(self._current)

    def showPopup(self) -> None:
        self.popup_opened.emit()
        super().showPopup()

    def hidePopup(self) -> None:
        super().hidePopup()
        self.popup_closed.emit()

    def _data(self) -> list:
        return [self.itemData(i) for i in range(self.count())]

    def _index_of(self, choice) -> int:
        return next((i for i in range(self.count()) if self.itemData(i) == choice), -1)

    def _on_activated(self, index: int) -> None:
        data = self.itemData(index)
        if data is None:  # "Play a file…": keep showing the current source until a file is chosen
            self.setCurrentIndex(self._index_of(self._current))
            self.file_requested.emit()
            return
        if data != self._current:
            self._current = data
            self.choice_changed.emit(data)
