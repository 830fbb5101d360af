"""The dictation window's audio sources: the device scan, the picker, and the banners that say
when a source cannot work (no microphone, a named one unplugged, no sound server, a device
lost mid-session) with buttons for the alternatives. A mixin of ``DictationWindow``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from app import settings as keys
from app.workers.jobs import Job
from app.workers.session_bridge import IDLE
from app.workers.sources import SourceChoice, scan_devices


class WindowSources:
    # -- sources ------------------------------------------------------------------------------------
    def scan_devices(self) -> Job:
        return self.run_job(lambda report, cancelled: scan_devices(), self._on_scan)

    def _on_scan(self, scan) -> None:
        self.last_scan = scan
        self.picker.populate(scan, self.picker.choice)
        self.check_source()

    def check_source(self) -> None:
        """Say in a banner when the chosen source cannot work, and offer the alternatives."""
        scan, choice = self.last_scan, self.picker.choice
        if scan is None or choice.kind == "file":
            self.banners.hide_banner("audio")
            return
        offers = [("Play a file…", self.choose_file)]
        if choice.kind == "mic" and scan.microphone_problem:
            if not scan.monitor_problem:
                offers.append(("Use system audio", lambda: self.choose_source(SourceChoice("system"))))
            self.banners.show_banner("audio", "warning", scan.microphone_problem, offers)
        elif choice.kind == "mic" and choice.device and choice.device not in scan.microphones:
            offers.insert(0, ("Use the default microphone", lambda: self.choose_source(SourceChoice("mic"))))
            self.banners.show_banner(
                "audio",
                "warning",
                f"The microphone “{choice.device}” is not connected. Plug it in, or choose another source.",
                offers,
            )
        elif choice.kind == "system" and scan.monitor_problem:
            self.banners.show_banner(
                "audio", "warning", f"System audio is unavailable: {scan.monitor_problem}", offers
            )
        else:
            self.banners.hide_banner("audio")

    def choose_source(self, choice: SourceChoice) -> None:
        self.picker.set_choice(choice)
        self._on_source_chosen(choice)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Play an audio file", str(Path.home()), "Audio files (*.wav *.flac *.ogg);;All files (*)"
        )
        if path:
            self.picker.add_file(path)

    def _on_source_chosen(self, choice: SourceChoice) -> None:
        if choice.kind in ("mic", "system"):  # a file is a one-off: it is not remembered
            self.settings.set(keys.SOURCE_KIND, choice.kind)
            self.settings.set(
                keys.MONITOR_DEVICE if choice.kind == "system" else keys.INPUT_DEVICE, choice.device
            )
        self.check_source()

    # -- what the bridge says --------------------------------------------------------------------------------
    def _on_notice(self, kind: str, message: str) -> None:
        if kind in ("device_lost", "error"):
            self.banners.show_banner(
                "audio" if kind == "device_lost" else "error",
                "warning" if kind == "device_lost" else "error",
                message,
            )
        elif kind == "device_back":
            self.banners.hide_banner("audio")
            self.statusBar().showMessage(message, 5000)
        else:  # overruns, the end of a file
            self.statusBar().showMessage(message, 8000)

    def _on_error(self, message: str) -> None:
        offers = []
        if self.bridge.state == IDLE and self.picker.choice.kind != "file":
            offers = [("Play a file…", self.choose_file), ("Try again", self.start)]
            self.banners.hide_banner("audio")  # this error says it again, and more precisely
        self.banners.show_banner("error", "error", message, offers)
        self.statusBar().showMessage("Not captioning.")
