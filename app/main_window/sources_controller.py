"""What the captions window captions: the source picker, the device scan, and the audio banner.

The banner says when the chosen source cannot work (no microphone, a named one unplugged, no
sound server, a device lost mid-session) and offers the alternatives as buttons. The choice of
a live source is remembered in the settings; a file is a one-off and is not.

A meeting captions the microphone (the one chosen in the list before, or in Settings → Audio)
beside the others' side: the system audio, or one application's. The applications playing
sound are listed again while the picker's popup is open (every ``APPLICATIONS_MS``), off the UI
thread; an application remembered from last time stays listed while it plays nothing (a session
on it waits for its sound).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from app import settings as keys
from app.main_window.controls import BannerArea
from app.main_window.source_picker import SourcePicker
from app.settings import AppSettings
from app.workers.jobs import Job, JobRunner
from app.workers.sources import DeviceScan, MeetingChoice, scan_applications, scan_devices
from engine import SPEAKER_ME, SPEAKER_OTHERS, RecognizerInfo, SourceChoice, SpeakerNames

BANNER = "audio"  # the banner topic this controller owns
APPLICATIONS_MS = 2000  # how often the open popup lists the applications playing again


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
        self._applications_scan: Job | None = None
        self._applications_timer = QTimer(self, interval=APPLICATIONS_MS, timeout=self.scan_applications)
        self.picker.popup_opened.connect(self._on_popup_opened)
        self.picker.popup_closed.connect(self._applications_timer.stop)

    @property
    def choice(self) -> SourceChoice | MeetingChoice:
        """What the session captions; a meeting's microphone is the one last chosen."""
        choice = self.picker.choice
        if isinstance(choice, MeetingChoice):
            return replace(choice, microphone=SourceChoice("mic", self.settings.get(keys.INPUT_DEVICE)))
        return choice

    def session_sources(self) -> tuple[SourceChoice, SourceChoice | None]:
        """(``SessionSpec.source``, ``SessionSpec.others``): the others' side only in a meeting."""
        choice = self.choice
        if isinstance(choice, MeetingChoice):
            return choice.microphone, choice.others
        return choice, None

    def restore(self) -> None:
        """The source from the settings (a file is never remembered: it falls back to the microphone)."""
        s = self.settings
        kind, application = s.get(keys.SOURCE_KIND), s.get(keys.AUDIO_APPLICATION)
        if kind == "system":
            choice = SourceChoice("system", s.get(keys.MONITOR_DEVICE))
        elif kind == "app" and application:
            choice = SourceChoice("app", application)
        elif kind == "meeting" and s.get(keys.MEETING_OTHERS) == "app" and application:
            choice = MeetingChoice(SourceChoice("app", application))
        elif kind == "meeting":
            choice = MeetingChoice(SourceChoice("system"))
        else:
            choice = SourceChoice("mic", s.get(keys.INPUT_DEVICE))
        self.picker.set_choice(choice)

    def scan_devices(self) -> Job:
        """List microphones and monitors off the UI thread (PortAudio and pactl can be slow)."""
        return self.jobs.run(lambda report, cancelled: scan_devices(), self._on_scan)

    def scan_applications(self) -> Job | None:
        """List the applications playing sound off the UI thread (one scan at a time)."""
        if self._applications_scan is not None:
            return None
        job = self.jobs.run(lambda report, cancelled: scan_applications(), self._on_applications)
        job.finished.connect(self._applications_scan_ended)
        self._applications_scan = job
        return job

    def _on_popup_opened(self) -> None:
        self.scan_applications()
        self._applications_timer.start()

    def _applications_scan_ended(self) -> None:
        self._applications_scan = None

    def _on_applications(self, found: tuple[list[str], str]) -> None:
        names, problem = found
        if self.last_scan is not None:
            self.last_scan.applications, self.last_scan.application_problem = names, problem
        self.picker.set_applications(names)

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
        microphone = choice.kind in ("mic", "meeting")
        others = choice.others if isinstance(choice, MeetingChoice) else choice
        if microphone and scan.microphone_problem:
            if not scan.monitor_problem and choice.kind == "mic":
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
        elif others.kind in ("system", "app") and scan.monitor_problem:
            what = "System audio" if others.kind == "system" else "An application's sound"
            self.banners.show_banner(
                BANNER, "warning", f"{what} is unavailable: {scan.monitor_problem}", offers
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

    def choose_source(self, choice) -> None:
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

    def captioning_line(self, info: RecognizerInfo | None, names: SpeakerNames) -> str:
        """The status bar's line for a running session: what it captions (in a meeting, each
        side by its speaker's name), with which recognizer, and how a meeting handles echo."""
        choice, recognizer = self.choice, f" with {info.name}" if info else ""
        if not isinstance(choice, MeetingChoice):
            return f"Captioning {choice.label}{recognizer}"
        echo = f". {info.echo}" if info is not None and info.echo else ""
        return (
            f"Captioning a meeting: {names.name(SPEAKER_ME)} on {choice.microphone.label}, "
            f"{names.name(SPEAKER_OTHERS)} on {choice.others_label}{recognizer}{echo}"
        )

    def _on_chosen(self, choice) -> None:
        s = self.settings
        if isinstance(choice, MeetingChoice):
            s.set(keys.SOURCE_KIND, "meeting")
            s.set(keys.MEETING_OTHERS, choice.others.kind)
            if choice.others.kind == "app":
                s.set(keys.AUDIO_APPLICATION, choice.others.device)
        elif choice.kind == "app":
            s.set(keys.SOURCE_KIND, "app")
            s.set(keys.AUDIO_APPLICATION, choice.device)
        elif choice.kind in ("mic", "system"):  # a file is a one-off: it is not remembered
            s.set(keys.SOURCE_KIND, choice.kind)
            s.set(keys.MONITOR_DEVICE if choice.kind == "system" else keys.INPUT_DEVICE, choice.device)
        self.check_source()
