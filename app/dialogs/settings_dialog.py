"""The settings dialog: every preference in one place, saved only on OK or Apply.

The controls are filled from ``AppSettings``; what they hold when the dialog
opens is the baseline, and OK/Apply write only the keys whose control now
differs from it. So Cancel writes nothing, a value the dialog cannot show (a
source kind of "file", a hand-edited number out of range) is left alone
unless the user touches its control, and ``settings_changed`` lists exactly
what changed for the app to apply live.

Checks that could only fail later, in the middle of a meeting, are made here:
a journal folder must be writable, and Vosk needs an installed model.
Problems appear in a line above the buttons and move the focus to the
control concerned.

Slow things stay off the UI thread: device listing (PortAudio, pactl) and
model downloads run on the thread pool. The pages, each owning its controls, are in
``settings_pages`` (and ``dictation_page``, ``meeting_page``, ``history_page``, ``vocabulary_page``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.dialogs.dictation_page import DictationPage
from app.dialogs.history_page import HistoryPage
from app.dialogs.meeting_page import MeetingPage
from app.dialogs.models_panel import ModelsPanel
from app.dialogs.settings_pages import (
    AudioPage,
    JournalPage,
    OverlayPage,
    PunctuationPage,
    RecognitionPage,
)
from app.dialogs.vocabulary_page import VocabularyPage
from app.settings import JOURNAL_DIR, AppSettings, Key
from app.theme import is_dark


def _journal_folder(settings: AppSettings) -> Path | None:
    """The journal folder the history counts in (None: the default one)."""
    folder = settings.get(JOURNAL_DIR)
    return Path(folder) if folder else None


class SettingsDialog(QDialog):
    settings_changed = Signal(list)  # the names of the keys that changed (``Key.name``)

    def __init__(
        self,
        settings: AppSettings,
        parent: QWidget | None = None,
        *,
        catalogue=None,
        models_dir: str | Path | None = None,
        cache_dir: str | Path | None = None,
    ):
        """``catalogue``, ``models_dir`` and ``cache_dir`` are for tests (defaults: the shipped
        catalogue and the per-user folders)."""
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("livecap settings")
        self.setAccessibleName("livecap settings")
        self.models = ModelsPanel(catalogue, models_dir, cache_dir, parent=self)
        self.recognition_page = RecognitionPage(self.models)
        self.audio_page = AudioPage()
        self.punctuation_page = PunctuationPage()
        self.overlay_page = OverlayPage()
        self.journal_page = JournalPage()
        self.dictation_page = DictationPage()
        self.meeting_page = MeetingPage()
        self.history_page = HistoryPage(self.journal_page)
        self.vocabulary_page = VocabularyPage(journal_folder=_journal_folder(settings))
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Settings sections")
        self.tabs.addTab(self.recognition_page, "&Recognition")
        self.tabs.addTab(self.audio_page, "A&udio")
        self.tabs.addTab(self.punctuation_page, "&Punctuation")
        self.tabs.addTab(self.overlay_page, "&Overlay")
        self.tabs.addTab(self.journal_page, "&Journal")
        self.tabs.addTab(self.dictation_page, "&Dictation")
        self.tabs.addTab(self.meeting_page, "M&eeting")
        self.tabs.addTab(self.history_page, "&History")
        self.tabs.addTab(self.vocabulary_page, "&Vocabulary")
        self.error = QLabel(wordWrap=True)
        self.error.setAccessibleName("Problem with the settings")
        self.error.setStyleSheet(f"color: {'#ff8a80' if is_dark(self.palette()) else '#b3261e'};")
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Apply
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).clicked.connect(self._ok)
        self.buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(680, 540)
        pages = (
            self.recognition_page,
            self.audio_page,
            self.punctuation_page,
            self.overlay_page,
            self.journal_page,
            self.dictation_page,
            self.meeting_page,
            self.history_page,
            self.vocabulary_page,
        )
        self._controls = {key: pair for page in pages for key, pair in page.controls().items()}
        # Checked in this order: a journal folder that cannot be written first.
        self._checked = (self.journal_page, self.recognition_page)
        self._load()
        self._baseline = self.values()
        self.audio_page.scan_devices()

    # -- values -----------------------------------------------------------------------------

    def _load(self) -> None:
        for key, (_, write) in self._controls.items():
            write(self.settings.get(key))

    def values(self) -> dict[Key, Any]:
        """What the controls hold now, by key."""
        return {key: read() for key, (read, _) in self._controls.items()}

    # -- saving -----------------------------------------------------------------------------

    def validate(self) -> tuple[QWidget, str] | None:
        """The first problem as (control, message), or None when everything can be saved."""
        for page in self._checked:
            problem = page.validate()
            if problem is not None:
                return problem
        return None

    def apply(self) -> bool:
        """Validate and save what changed; returns False (and shows why) when something is invalid."""
        problem = self.validate()
        if problem is not None:
            widget, message = problem
            self.error.setText(message)
            self.error.show()
            page = widget
            while page is not None and self.tabs.indexOf(page) < 0:
                page = page.parentWidget()
            if page is not None:
                self.tabs.setCurrentWidget(page)
            widget.setFocus(Qt.FocusReason.OtherFocusReason)
            return False
        self.error.hide()
        now = self.values()
        changed = [key for key, value in now.items() if value != self._baseline.get(key)]
        for key in changed:
            self.settings.set(key, now[key])
        self.settings.sync()
        self._baseline = now
        if changed:
            self.settings_changed.emit([key.name for key in changed])
        return True

    def _ok(self) -> None:
        if self.apply():
            self.accept()

    def done(self, result: int) -> None:
        self.models.cancel_download()  # its progress dialog belongs to this dialog
        super().done(result)
