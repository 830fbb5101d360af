"""The settings dialog's Audio, Punctuation, Overlay and Journal pages.

The other pages have modules of their own: ``recognition_page``, ``dictation_page``,
``meeting_page``, ``history_page``; what every page is built from (``SettingsPage``, its
``controls()`` and ``validate()``) is ``page_base``'s. The names of both are also importable from
here, where the dialog and the other pages have always found them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QWidget,
)

from app import settings as keys
from app.dialogs.page_base import Controls, Problem, SettingsPage, _combo, _hint, _row, _select, _set_buddy
from app.dialogs.recognition_page import RecognitionPage
from app.overlay_options import CLICK_THROUGH_SHORTCUT, MAX_FONT, MAX_LINES, MIN_FONT, MIN_LINES
from app.workers.jobs import Job
from app.workers.sources import scan_devices  # looked up here when a scan starts: tests replace it
from engine import journal_dir

__all__ = ["AudioPage", "JournalPage", "OverlayPage", "PunctuationPage", "RecognitionPage"]
__all__ += ["Controls", "Problem", "SettingsPage", "check_writable_folder"]


def check_writable_folder(text: str) -> str | None:
    """None when ``text`` names a folder livecap can write to (created if missing); else why not."""
    path = Path(text).expanduser()
    if not path.is_absolute():
        return (
            f"“{text}” is not a full path. Choose a folder with Browse…, or type a path starting with / or ~."
        )
    try:
        if path.exists() and not path.is_dir():
            return f"{path} is a file, not a folder. Choose a folder."
        path.mkdir(parents=True, exist_ok=True)
        # os.access can be wrong (read-only mounts, ACLs): writing a file is the only real test.
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc)
        return (
            f"livecap cannot write journals to {path} ({why}). Choose another folder, "
            "or fix that folder's permissions."
        )
    return None


class AudioPage(SettingsPage):
    """What to caption (microphone or system audio) and which device; lists the devices on the
    thread pool, since PortAudio and pactl can be slow."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._other_source = "mic"  # a kind the radios cannot show ("file"): kept unless one is picked
        self._scan: Job | None = None
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
        form = QFormLayout(self)
        form.addRow("Caption:", _row(self.mic_radio, self.system_radio))
        form.addRow("M&icrophone:", self.input_device)
        form.addRow("System au&dio source:", self.monitor_device)
        form.addRow("", _row(self.rescan))
        form.addRow("", self.device_status)

    def controls(self) -> Controls:
        return {
            keys.SOURCE_KIND: (self.source_kind, self.set_source_kind),
            keys.INPUT_DEVICE: (self.input_device.currentData, lambda v: _select(self.input_device, v, v)),
            keys.MONITOR_DEVICE: (
                self.monitor_device.currentData,
                lambda v: _select(self.monitor_device, v, v),
            ),
        }

    def source_kind(self) -> str:
        if self.mic_radio.isChecked():
            return "mic"
        if self.system_radio.isChecked():
            return "system"
        return self._other_source

    def set_source_kind(self, kind: str) -> None:
        self._other_source = kind
        self.mic_radio.setChecked(kind == "mic")
        self.system_radio.setChecked(kind == "system")

    def scan_devices(self) -> None:
        """List microphones and monitors on the thread pool."""
        if self._scan is not None:
            return
        self.rescan.setEnabled(False)
        self.device_status.setText("Looking for audio devices…")
        # The scan may outlive this dialog: a started Job lives until its outcome is delivered.
        job = Job(lambda report, cancelled: scan_devices())
        job.done.connect(self._fill_devices)
        job.failed.connect(self.device_status.setText)
        job.finished.connect(self._scan_finished)
        self._scan = job.start()

    def _scan_finished(self) -> None:
        self._scan = None
        self.rescan.setEnabled(True)

    def _fill_devices(self, scan) -> None:
        mic, monitor = self.input_device.currentData(), self.monitor_device.currentData()
        self.input_device.clear()
        default = f" ({scan.default_microphone})" if scan.default_microphone else ""
        self.input_device.addItem(f"System default microphone{default}", "")
        for name in scan.microphones:
            self.input_device.addItem(name, name)
        self.monitor_device.clear()
        self.monitor_device.addItem("Default output (what you hear)", "")
        for name, description in scan.monitors:
            self.monitor_device.addItem(description if description != name else name, name)
        # A saved device that is unplugged right now stays selected, marked, rather than lost.
        _select(self.input_device, mic, f"{mic} (not connected)" if mic else None)
        _select(self.monitor_device, monitor, f"{monitor} (not available)" if monitor else None)
        problems = [p for p in (scan.microphone_problem, scan.monitor_problem) if p]
        self.device_status.setText(
            " ".join(problems)
            if problems
            else f"Found {len(scan.microphones)} microphone(s) and "
            f"{len(scan.monitors)} system audio source(s)."
        )


class PunctuationPage(SettingsPage):
    """Latency, the pause threshold, casing and the profanity mask."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
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
        form = QFormLayout(self)
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
        _set_buddy(form, 0, self.latency)

    def controls(self) -> Controls:
        return {
            keys.LATENCY: (self.latency.value, lambda v: self.latency.setValue(int(v))),
            keys.PAUSE_THRESHOLD: (lambda: round(self.pause.value(), 2), self.pause.setValue),
            keys.CASING: (self.casing.isChecked, self.casing.setChecked),
            keys.PROFANITY_MASK: (self.profanity.isChecked, self.profanity.setChecked),
        }


class OverlayPage(SettingsPage):
    """The caption overlay's lines, text size, background and click-through."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.lines = QSpinBox(minimum=MIN_LINES, maximum=MAX_LINES)
        self.lines.setAccessibleName("Overlay lines")
        self.lines.setMaximumWidth(140)
        self.font_size = QSpinBox(minimum=MIN_FONT, maximum=MAX_FONT, suffix=" pt")
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
        form = QFormLayout(self)
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
        _set_buddy(form, 2, self.opacity)

    def controls(self) -> Controls:
        return {
            keys.OVERLAY_LINES: (self.lines.value, lambda v: self.lines.setValue(int(v))),
            keys.OVERLAY_FONT_SIZE: (self.font_size.value, lambda v: self.font_size.setValue(int(v))),
            keys.OVERLAY_OPACITY: (lambda: self.opacity.value() / 100, self._set_opacity),
            keys.OVERLAY_CLICK_THROUGH: (self.click_through.isChecked, self.click_through.setChecked),
        }

    def _set_opacity(self, value) -> None:
        self.opacity.setValue(round(float(value) * 100))
        self.opacity_value.setText(f"{self.opacity.value()} %")  # also when the value did not change


class JournalPage(SettingsPage):
    """The folder session journals are written to, and how long closed sessions are kept."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.folder = QLineEdit(placeholderText=f"Default: {journal_dir()}")
        self.folder.setAccessibleName("Journal folder; empty for the default")
        self.folder.setClearButtonEnabled(True)
        browse = QPushButton("&Browse…")
        browse.setAccessibleName("Choose the journal folder")
        browse.clicked.connect(self._browse)
        note = QLabel(
            "livecap writes every session to a journal as it goes, so a crash or a power "
            "cut loses no captions. Leave empty to use the default folder.",
            wordWrap=True,
        )
        # 0 shows as "Forever": a spin box's special value text, so one control says both.
        self.keep_days = QSpinBox(minimum=0, maximum=3650, suffix=" days")
        self.keep_days.setSpecialValueText("Forever")
        self.keep_days.setAccessibleName("Keep finished sessions for this many days; 0 keeps them forever")
        keep_note = QLabel(
            "Finished sessions older than this are deleted when a new session starts; sessions "
            "with no words are never kept, and a session that did not finish is kept until you "
            "recover it (livecap recover).",
            wordWrap=True,
        )
        form = QFormLayout(self)
        form.addRow("&Folder:", _row(self.folder, browse))
        form.addRow("", note)
        form.addRow("&Keep sessions:", self.keep_days)
        form.addRow("", keep_note)
        _set_buddy(form, 0, self.folder)

    def controls(self) -> Controls:
        return {
            keys.JOURNAL_DIR: (lambda: self.folder.text().strip(), self.folder.setText),
            keys.JOURNAL_KEEP_DAYS: (self.keep_days.value, self.keep_days.setValue),
        }

    def validate(self) -> Problem | None:
        folder = self.folder.text().strip()
        problem = check_writable_folder(folder) if folder else None
        return (self.folder, problem) if problem else None

    def _browse(self) -> None:
        start = self.folder.text().strip() or str(journal_dir())
        folder = QFileDialog.getExistingDirectory(self, "Choose the journal folder", start)
        if folder:
            self.folder.setText(folder)
