"""The settings dialog's History page: how long sessions are kept, and that pinned ones stay.

Every session is journaled and its words indexed, so the History window (Ctrl+H) finds a phrase
from any of them. How long they stay is the journal's retention setting: one setting with one
meaning, saved by the Journal page (it also chooses the folder). This page shows the same value
in a control of its own, kept in step with the Journal page's both ways, so either place changes
it and the dialog saves it once. A session pinned in the History window is kept forever, whatever
the retention says.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QSpinBox, QWidget

from app.dialogs.settings_pages import Controls, JournalPage, SettingsPage, _hint

PINNED_NOTE = (
    "Pinned sessions are kept forever, whatever this says. To pin one, open it in the History "
    "window (Ctrl+H in the captions window, or History… in the tray menu) and press Pin (Ctrl+D)."
)


class HistoryPage(SettingsPage):
    def __init__(self, journal_page: JournalPage, parent: QWidget | None = None):
        super().__init__(parent)
        self.journal_keep_days = journal_page.keep_days
        self.keep_days = QSpinBox(
            minimum=self.journal_keep_days.minimum(), maximum=self.journal_keep_days.maximum()
        )
        self.keep_days.setSuffix(self.journal_keep_days.suffix())
        self.keep_days.setSpecialValueText("Forever")  # 0: one control says both
        self.keep_days.setAccessibleName("Keep finished sessions for this many days; 0 keeps them forever")
        self.keep_days.setValue(self.journal_keep_days.value())
        # One value in two places: a change in either shows in the other (an unchanged value emits
        # nothing, so the two never bounce).
        self.journal_keep_days.valueChanged.connect(self.keep_days.setValue)
        self.keep_days.valueChanged.connect(self.journal_keep_days.setValue)
        form = QFormLayout(self)
        form.addRow(
            "",
            _hint(
                "The History window lists every kept session and finds any words in them as you "
                "type. Its index stays on this computer, beside the session journals."
            ),
        )
        form.addRow("&Keep sessions:", self.keep_days)
        form.addRow(
            "",
            _hint(
                "Finished sessions older than this are deleted when a new session starts (the same "
                "setting as on the Journal page)."
            ),
        )
        form.addRow("Pinned:", _hint(PINNED_NOTE))

    def controls(self) -> Controls:
        return {}  # the retention is the Journal page's setting: saved there, once
