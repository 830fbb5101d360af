"""What the captions window captions: the source picker, the device scan, and the audio banner.

The banner says when the chosen source cannot work (no microphone, a named one unplugged, no
sound server, a device lost mid-session) and offers the alternatives as buttons. The choice of
a live source is remembered in the settings; a file is a one-off and is not.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from app import settings as keys
from app.main_window.controls import BannerArea, SourcePicker
from app.settings import AppSettings
from app.workers.jobs import Job, JobRunner
from app.workers.sources import DeviceScan, scan_devices
from engine import SourceChoice

BANNER = "audio"  # the banner topic this controller owns


class SourcesController(QObject):
    scanned = Signal(object)  # a DeviceScan, once the picker lists its devices

    def __init__(self, settings: AppSettings, banners: BannerArea, jobs: JobRunner, window: QWidget):
        """``window`` parents the file dialog; ``jobs`` runs the device scans."""
        super().__init__(window)
        self.settings = settings
        self.banners = banners
        self.jobs = jobs
        self.window = window
        self.last_scan: DeviceScan | None = None
        self.picker = SourcePicker()
        self.picker.choice_changed.connect(self._on_chosen)
        self.picker.file_requested.connect(self.choose_file)

    @property
    def choice(self) -> SourceChoice:
        return self.picker.choice

    def restore(self) -> None:
        """The source from the settings (a file is never remembered: it falls back to the microphone)."""
        kind = self.settings.get(keys.SOURCE_KIND)
        device = self.settings.get(keys.MONITOR_DEVICE if kind == "system" else keys.INPUT_DEVICE)
        self.picker.set_choice(
            SourceChoice("system", device) if kind == "system" else SourceChoice("mic", device)
        )

    def scan_devices(self) -> Job:
        """List microphones and monitors off the UI thread (PortAudio and pactl can be slow)."""
        return self.jobs.run(lambda report, cancelled: scan_devices(), self._on_scan)

    def _on_scan(self, scan: DeviceScan) -> None:
        self.last_scan = scan
        self.picker.populate(scan, self.picker.choice)
        self.check_source()
        self.scanned.emit(scan)

    def check_source(self) -> None:
        """Say in a banner when the chosen source cannot work, and offer the alternatives."""
        scan, choice = self.last_scan, self.picker.choice
        if scan is None or choice.kind == "file":
            self.hide_problem()
            return
        offers = [("Play a file…", self.choose_file)]
        if choice.kind == "mic" and scan.microphone_problem:
            if not scan.monitor_problem:
                offers.append(("Use system audio", lambda: self.choose_source(SourceChoice("system"))))
            self.banners.show_banner(BANNER, "warning", scan.microphone_problem, offers)
        elif choice.kind == "mic" and choice.device and choice.device not in scan.microphones:
            offers.insert(0, ("Use the default microphone", lambda: self.choose_source(SourceChoice("mic"))))
            self.banners.show_banner(
                BANNER,
                "warning",
                f"The microphone “{choice.device}” is not connected. Plug it in, or choose another source.",
                offers,
            )
        elif choice.kind == "system" and scan.monitor_problem:
            self.banners.show_banner(
                BANNER, "warning", f"System audio is unavailable: {scan.monitor_problem}", offers
            )
        else:
            self.hide_problem()

    def device_lost(self, message: str) -> None:
        """The session's device went away mid-session (it resumes by itself if it comes back)."""
        self.banners.show_banner(BANNER, "warning", message)

    def hide_problem(self) -> None:
        """The source works after all (a session runs, the device came back), or an error
        banner says the same thing more precisely."""
        self.banners.hide_banner(BANNER)

    def choose_source(self, choice: SourceChoice) -> None:
        self.picker.set_choice(choice)
        self._on_chosen(choice)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Play an audio file",
            str(Path.home()),
            "Audio files (*.wav *.flac *.ogg);;All files (*)",
        )
        if path:
            self.picker.add_file(path)

    def _on_chosen(self, choice: SourceChoice) -> None:
        if choice.kind in ("mic", "system"):  # a file is a one-off: it is not remembered
            self.settings.set(keys.SOURCE_KIND, choice.kind)
            self.settings.set(
                keys.MONITOR_DEVICE if choice.kind == "system" else keys.INPUT_DEVICE, choice.device
            )
        self.check_source()
