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
model downloads run on the thread pool. The pages' controls are built in
``settings_pages``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QTabWidget, QVBoxLayout, QWidget

from app import settings as keys
from app.dialogs.models_panel import ModelsPanel
from app.dialogs.settings_pages import SettingsPages
from app.settings import AppSettings, Key
from app.theme import is_dark
from app.workers.jobs import Job
from app.workers.sources import scan_devices


def _select(box: QComboBox, data: Any, missing_label: str | None = None) -> None:
    """Select the item holding ``data``; add it (labelled ``missing_label``) when absent."""
    index = box.findData(data)
    if index < 0 and missing_label is not None:
        box.addItem(missing_label, data)
        index = box.count() - 1
    box.setCurrentIndex(max(index, 0))


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


class SettingsDialog(SettingsPages, QDialog):
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
        self._other_source = "mic"
        self.models = ModelsPanel(catalogue, models_dir, cache_dir, parent=self)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Settings sections")
        self.tabs.addTab(self._recognition_page(), "&Recognition")
        self.tabs.addTab(self._audio_page(), "A&udio")
        self.tabs.addTab(self._captions_page(), "&Punctuation")
        self.tabs.addTab(self._overlay_page(), "&Overlay")
        self.tabs.addTab(self._journal_page(), "&Journal")
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
        self.models.installed_changed.connect(self._refresh_model_choice)
        self.resize(680, 540)
        self._controls = self._control_map()
        self._load()
        self._baseline = self.values()
        self._scan: Job | None = None
        self.scan_devices()

    # -- values -----------------------------------------------------------------------------

    def _control_map(self) -> dict[Key, tuple]:
        """Each key's (read control, write control) pair."""
        return {
            keys.RECOGNIZER: (self.recognizer.currentData, lambda v: _select(self.recognizer, v)),
            keys.VOSK_MODEL: (
                self.model_choice.currentData,
                lambda v: _select(self.model_choice, v, f"{v} (not installed)"),
            ),
            keys.SOURCE_KIND: (self._source_kind, self._set_source_kind),
            keys.INPUT_DEVICE: (self.input_device.currentData, lambda v: _select(self.input_device, v, v)),
            keys.MONITOR_DEVICE: (
                self.monitor_device.currentData,
                lambda v: _select(self.monitor_device, v, v),
            ),
            keys.LATENCY: (self.latency.value, lambda v: self.latency.setValue(int(v))),
            keys.PAUSE_THRESHOLD: (lambda: round(self.pause.value(), 2), self.pause.setValue),
            keys.CASING: (self.casing.isChecked, self.casing.setChecked),
            keys.PROFANITY_MASK: (self.profanity.isChecked, self.profanity.setChecked),
            keys.OVERLAY_LINES: (self.lines.value, lambda v: self.lines.setValue(int(v))),
            keys.OVERLAY_FONT_SIZE: (self.font_size.value, lambda v: self.font_size.setValue(int(v))),
            keys.OVERLAY_OPACITY: (
                lambda: self.opacity.value() / 100,
                lambda v: self.opacity.setValue(round(float(v) * 100)),
            ),
            keys.OVERLAY_CLICK_THROUGH: (self.click_through.isChecked, self.click_through.setChecked),
            keys.JOURNAL_DIR: (lambda: self.journal.text().strip(), self.journal.setText),
        }

    def _load(self) -> None:
        for key, (_, write) in self._controls.items():
            write(self.settings.get(key))
        self.opacity_value.setText(f"{self.opacity.value()} %")

    def values(self) -> dict[Key, Any]:
        """What the controls hold now, by key."""
        return {key: read() for key, (read, _) in self._controls.items()}

    def _source_kind(self) -> str:
        if self.mic_radio.isChecked():
            return "mic"
        if self.system_radio.isChecked():
            return "system"
        return self._other_source  # "file": kept unless the user picks a live source

    def _set_source_kind(self, kind: str) -> None:
        self._other_source = kind
        self.mic_radio.setChecked(kind == "mic")
        self.system_radio.setChecked(kind == "system")

    # -- saving -----------------------------------------------------------------------------

    def validate(self) -> tuple[QWidget, str] | None:
        """The first problem as (control, message), or None when everything can be saved."""
        journal = self.journal.text().strip()
        if journal:
            problem = check_writable_folder(journal)
            if problem:
                return self.journal, problem
        model, installed = self.model_choice.currentData(), self.models.installed_names()
        if self.recognizer.currentData() != "pocketsphinx":
            if model and model not in installed and not Path(model).expanduser().is_dir():
                return self.model_choice, (
                    f"The Vosk model {model} is not installed. Download it on the "
                    "Recognition page, or choose another model."
                )
            if self.recognizer.currentData() == "vosk" and not model and not installed:
                return self.recognizer, (
                    "Vosk needs a speech model and none is installed. Download one "
                    "below (the small English one is 40 MB), or choose Automatic."
                )
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

    # -- lists that change ------------------------------------------------------------------

    def _refresh_model_choice(self) -> None:
        current = self.model_choice.currentData() if self.model_choice.count() else None
        self.model_choice.clear()
        self.model_choice.addItem("Automatic: the first installed model", "")
        for name in self.models.installed_names():
            self.model_choice.addItem(name, name)
        if current is not None:
            _select(
                self.model_choice,
                current,
                None if current in self.models.installed_names() else f"{current} (not installed)",
            )

    def scan_devices(self) -> None:
        """List microphones and monitors on the thread pool (PortAudio and pactl can be slow)."""
        if self._scan is not None:
            return
        self.rescan.setEnabled(False)
        self.device_status.setText("Looking for audio devices…")
        # Parented to the application: the scan may outlive this dialog, and a Job must
        # outlive its pool thread.
        job = Job(lambda report, cancelled: scan_devices(), QCoreApplication.instance())
        job.done.connect(self._fill_devices)
        job.failed.connect(self.device_status.setText)
        job.finished.connect(self._scan_finished)
        job.finished.connect(job.deleteLater)
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
