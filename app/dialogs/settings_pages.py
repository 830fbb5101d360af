"""The settings dialog's five pages (Recognition, Audio, Punctuation, Overlay, Journal): the
controls and their labels, hints, buddies and accessible names. A mixin of ``SettingsDialog``,
which owns what the controls mean: loading, validating and saving the values. Kept apart so
that adding a control is one place to look, and the dialog's logic stays short.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.overlay.caption_overlay import CLICK_THROUGH_SHORTCUT
from engine.files import paths


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


class SettingsPages:
    """Needs from the dialog: ``models`` (the ModelsPanel), ``_refresh_model_choice`` and
    ``scan_devices``."""

    def _recognition_page(self) -> QWidget:
        self.recognizer = _combo(
            "Speech recognizer",
            [
                ("Automatic: Vosk if a model is installed, else PocketSphinx", "auto"),
                ("Vosk (accurate; needs a downloaded model)", "vosk"),
                ("PocketSphinx (built in, English only, less accurate)", "pocketsphinx"),
            ],
        )
        self.model_choice = _combo("Vosk model to use")
        self._refresh_model_choice()
        page = QWidget()
        form = QFormLayout()
        form.addRow("Recogni&zer:", self.recognizer)
        form.addRow("Model &to use:", self.model_choice)
        layout = QVBoxLayout(page)
        layout.addLayout(form)
        layout.addWidget(QLabel("Vosk speech models (downloads and removals take effect at once):"))
        layout.addWidget(self.models)
        return page

    def _audio_page(self) -> QWidget:
        self.mic_radio = QRadioButton("&Microphone")
        self.mic_radio.setAccessibleName("Caption the microphone")
        self.system_radio = QRadioButton("&System audio (what you hear: a meeting, a video)")
        self.system_radio.setAccessibleName("Caption system audio")
        self.source_group = QButtonGroup(self)
        self.source_group.addButton(self.mic_radio)
        self.source_group.addButton(self.system_radio)
        self.input_device = _combo("Microphone device", [("System default microphone", "")])
        self.monitor_device = _combo("System audio source", [("Default output (what you hear)", "")])
        self.rescan = QPushButton("&Look for devices again")
        self.rescan.setAccessibleName("Look for audio devices again")
        self.rescan.clicked.connect(self.scan_devices)
        self.device_status = QLabel("Looking for audio devices…", wordWrap=True)
        self.device_status.setAccessibleName("Audio device status")
        page = QWidget()
        form = QFormLayout(page)
        form.addRow("Caption:", _row(self.mic_radio, self.system_radio))
        form.addRow("M&icrophone:", self.input_device)
        form.addRow("System au&dio source:", self.monitor_device)
        form.addRow("", _row(self.rescan))
        form.addRow("", self.device_status)
        return page

    def _captions_page(self) -> QWidget:
        self.latency = QSlider(Qt.Orientation.Horizontal, minimum=0, maximum=100, singleStep=5, pageStep=10)
        self.latency.setAccessibleName("Punctuation: faster (0) to more accurate (100)")
        self.latency.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.latency.setTickInterval(25)
        self.pause = QDoubleSpinBox(minimum=0.0, maximum=3.0, singleStep=0.05, decimals=2, suffix=" s")
        self.pause.setSpecialValueText("Off")  # shown at the minimum, 0
        self.pause.setAccessibleName("Pause that marks a sentence break, in seconds; 0 turns it off")
        self.pause.setMaximumWidth(140)
        self.casing = QCheckBox("&Capitalise sentences and names")
        self.casing.setAccessibleName("Capitalise sentences and names")
        self.profanity = QCheckBox("Mas&k profanity on screen (f***); saved transcripts keep every word")
        self.profanity.setAccessibleName("Mask profanity on screen")
        page = QWidget()
        form = QFormLayout(page)
        form.addRow("&Latency:", _row(QLabel("Faster"), self.latency, QLabel("More accurate")))
        form.addRow(
            "",
            _hint(
                "How long punctuation waits for the next words before it commits to "
                "a comma or a full stop: faster shows final text sooner, more accurate "
                "waits longer and changes its mind less."
            ),
        )
        form.addRow("Pause &threshold:", self.pause)
        form.addRow("", _hint("A silence at least this long counts as a hint of a sentence break."))
        form.addRow("", self.casing)
        form.addRow("", self.profanity)
        self._set_buddy(form, 0, self.latency)
        return page

    def _overlay_page(self) -> QWidget:
        self.lines = QSpinBox(minimum=1, maximum=4)
        self.lines.setAccessibleName("Overlay lines")
        self.lines.setMaximumWidth(140)
        self.font_size = QSpinBox(minimum=10, maximum=96, suffix=" pt")
        self.font_size.setAccessibleName("Overlay text size in points")
        self.font_size.setMaximumWidth(140)
        self.opacity = QSlider(Qt.Orientation.Horizontal, minimum=0, maximum=100, singleStep=5, pageStep=10)
        self.opacity.setAccessibleName("Overlay background opacity, percent")
        self.opacity_value = QLabel()
        self.opacity.valueChanged.connect(lambda v: self.opacity_value.setText(f"{v} %"))
        self.click_through = QCheckBox(
            f"Clic&k-through: clicks pass to the window below "
            f"(toggle with {CLICK_THROUGH_SHORTCUT} or the tray menu)"
        )
        self.click_through.setAccessibleName("Overlay click-through")
        page = QWidget()
        form = QFormLayout(page)
        form.addRow("L&ines:", self.lines)
        form.addRow("&Text size:", self.font_size)
        form.addRow("&Background:", _row(self.opacity, self.opacity_value))
        form.addRow("", self.click_through)
        form.addRow(
            "",
            _hint(
                "Each screen remembers its own overlay place, size and style; these "
                "values apply to the screen the overlay is on now. Right-click the "
                "overlay to change them there, Ctrl+wheel changes the text size."
            ),
        )
        self._set_buddy(form, 2, self.opacity)
        return page

    def _journal_page(self) -> QWidget:
        self.journal = QLineEdit(placeholderText=f"Default: {paths.journal_dir()}")
        self.journal.setAccessibleName("Journal folder; empty for the default")
        self.journal.setClearButtonEnabled(True)
        browse = QPushButton("&Browse…")
        browse.setAccessibleName("Choose the journal folder")
        browse.clicked.connect(self._browse_journal)
        note = QLabel(
            "livecap writes every session to a journal as it goes, so a crash or a power "
            "cut loses no captions. Leave empty to use the default folder.",
            wordWrap=True,
        )
        page = QWidget()
        form = QFormLayout(page)
        form.addRow("&Folder:", _row(self.journal, browse))
        form.addRow("", note)
        self._set_buddy(form, 0, self.journal)
        return page

    @staticmethod
    def _set_buddy(form: QFormLayout, row: int, widget: QWidget) -> None:
        # addRow(str, layout) makes a label with no buddy; point its mnemonic at the control.
        label = form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
        if isinstance(label, QLabel):
            label.setBuddy(widget)

    def _browse_journal(self) -> None:
        start = self.journal.text().strip() or str(paths.journal_dir())
        folder = QFileDialog.getExistingDirectory(self, "Choose the journal folder", start)
        if folder:
            self.journal.setText(folder)
