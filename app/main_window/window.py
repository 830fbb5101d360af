"""The dictation window: live captions in large text, and the controls to run a session.

The window only asks and shows. Sessions run in ``SessionBridge`` (engine threads plus a
worker pool), slow jobs (device scans, re-punctuation, exports, downloads) in ``Job``s,
so the UI thread never waits. Sources and their problems are handled in ``WindowSources``;
overlay, settings, tray, model download and crash recovery are wired in ``WindowExtras``; the
finished text (re-punctuation, editing, copy, export) in ``WindowText``; the commands and their
shortcuts are in ``window_actions``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMainWindow, QMessageBox, QVBoxLayout, QWidget

from app import settings as keys
from app.main_window.actions import ActionButton, build_actions
from app.main_window.caption_view import CaptionView
from app.main_window.controls import BannerArea, LatencyControl, LevelMeter, SourcePicker
from app.main_window.job_progress import JobProgress
from app.main_window.window_extras import WindowExtras
from app.main_window.window_sources import WindowSources
from app.main_window.window_text import WindowText
from app.workers.jobs import Job
from app.workers.session_bridge import IDLE, PAUSED, RUNNING, STARTING, STOPPING, SessionBridge, SessionSpec
from app.workers.sources import SourceChoice
from engine.punctuation.latency import LatencyMap
from engine.transcript.transcript import Transcript

log = logging.getLogger(__name__)


class DictationWindow(WindowText, WindowSources, WindowExtras, QMainWindow):
    models_ready = Signal()  # recognizer and punctuation model loaded: Start is instant
    session_done = Signal()  # a finished session's transcript is shown (re-punctuated, editable)

    def __init__(
        self,
        settings,
        model_dir: Path | None = None,
        bridge: SessionBridge | None = None,
        journal_dir: Path | None = None,
        parent=None,
    ):
        super().__init__(parent)
        self.settings = settings
        self.model_dir = Path(model_dir) if model_dir else None
        self.journal_dir = journal_dir
        self.bridge = bridge or SessionBridge(self)
        self.realtime = True  # files are paced like live audio (tests switch it off)
        self.final_transcript: Transcript | None = None  # the finished text edits are made against
        self._saved_text: str | None = None  # the finished text as last exported or copied
        self.confirm_on_close = True
        self.last_scan = None
        self.jobs: list[Job] = []  # running jobs (a Job must outlive its run)
        self._close_when_idle = False
        self.setWindowTitle("livecap — live captions")
        self.setAccessibleName("livecap dictation window")
        self.commands = build_actions(self)
        self._build()
        self.init_extras()
        self._connect_bridge()
        self._restore_settings()
        self._on_state(IDLE)

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        a = self.commands
        self.start_button = ActionButton(a.start_stop)
        self.pause_button = ActionButton(a.pause)
        self.elapsed_label = QLabel("0:00:00")
        self.elapsed_label.setAccessibleName("Elapsed time")
        self.elapsed_label.setToolTip("Time captioned in this session (pauses not counted)")
        self.meter = LevelMeter()
        self.picker = SourcePicker()
        source_label = QLabel("S&ource:")
        source_label.setBuddy(self.picker)
        self.latency = LatencyControl(self._latency_map(), self.settings.get(keys.LATENCY))
        top = QHBoxLayout()
        for widget in (
            self.start_button,
            self.pause_button,
            self.elapsed_label,
            self.meter,
            source_label,
            self.picker,
        ):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.latency)
        self.banners = BannerArea()
        self.view = CaptionView(font_size=self.settings.get(keys.WINDOW_FONT_SIZE))
        self.view.mask_profanity = self.settings.get(keys.PROFANITY_MASK)
        self.view.set_builder(self.bridge.builder)
        bottom = QHBoxLayout()
        for action in (a.copy_all, a.clear, a.export):
            bottom.addWidget(ActionButton(action))
        bottom.addStretch(1)
        self.words_label = QLabel("")
        self.words_label.setAccessibleName("Word count")
        bottom.addWidget(self.words_label)
        self.job_progress = JobProgress()
        self.statusBar().addPermanentWidget(self.job_progress)
        layout = QVBoxLayout()
        layout.addLayout(top)
        layout.addWidget(self.banners)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        self.picker.choice_changed.connect(self._on_source_chosen)
        self.picker.file_requested.connect(self.choose_file)
        self.latency.changed.connect(self._on_latency)
        self._elapsed = QElapsedTimer()
        self._elapsed_before = 0  # ms captioned before the current run (pauses excluded)
        self._clock = QTimer(self, interval=500, timeout=self._tick)
        self.resize(1000, 640)

    def _latency_map(self) -> LatencyMap:
        from engine.punctuation.model import ModelConfig, ModelError, default_model_dir

        folder = self.model_dir or default_model_dir()
        try:
            decoder = ModelConfig.load(folder).decoder
            return LatencyMap.for_model(folder, decoder.threshold, decoder.l_max)
        except ModelError:  # a broken model is reported when a session loads it
            return LatencyMap.for_model(None, 1.0, 4)

    def _connect_bridge(self) -> None:
        b = self.bridge
        b.state_changed.connect(self._on_state)
        b.captions_changed.connect(self._on_captions)
        b.level_changed.connect(self.meter.set_rms)
        b.notice.connect(self._on_notice)
        b.error.connect(self._on_error)
        b.ready.connect(self._on_ready)
        b.finished.connect(self._on_finished)

    def _restore_settings(self) -> None:
        self.restore_source()
        geometry = self.settings.get_raw("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    def restore_source(self) -> None:
        """The source from the settings (a file is never remembered: it falls back to the microphone)."""
        kind = self.settings.get(keys.SOURCE_KIND)
        device = self.settings.get(keys.MONITOR_DEVICE if kind == "system" else keys.INPUT_DEVICE)
        self.picker.set_choice(
            SourceChoice("system", device) if kind == "system" else SourceChoice("mic", device)
        )

    # -- sessions ------------------------------------------------------------------------------------
    def spec(self) -> SessionSpec:
        s, setting = self.settings, self.latency.setting
        return SessionSpec(
            source=self.picker.choice,
            realtime=self.realtime,
            recognizer=s.get(keys.RECOGNIZER),
            vosk_model=s.get(keys.VOSK_MODEL),
            model_dir=self.model_dir,
            journal_dir=self.journal_folder(),
            threshold=setting.threshold,
            l_max=setting.l_max,
            casing=s.get(keys.CASING),
            pause_threshold=s.get(keys.PAUSE_THRESHOLD),
        )

    def journal_folder(self) -> Path | None:
        folder = self.journal_dir or self.settings.get(keys.JOURNAL_DIR)
        return Path(folder) if folder else None

    def preload(self) -> None:
        self.bridge.preload(self.spec())

    def toggle_start(self) -> None:
        if self.bridge.state == IDLE:
            self.start()
        elif self.bridge.state in (RUNNING, PAUSED):
            self.bridge.stop()

    def start(self) -> bool:
        if self.bridge.state != IDLE or (self.unsaved and not self.confirm_discard()):
            return False
        if not self.bridge.start(self.spec()):
            return False
        self.final_transcript = None
        self.view.set_builder(self.bridge.builder)
        self.banners.hide_banner("error")
        self._elapsed_before = 0
        return True

    def toggle_pause(self) -> None:
        if self.bridge.state == RUNNING:
            self.bridge.pause()
        elif self.bridge.state == PAUSED:
            self.bridge.resume()

    def _on_state(self, state: str) -> None:
        a, running = self.commands, state in (RUNNING, PAUSED)
        a.start_stop.setText(
            {IDLE: "&Start", STARTING: "Starting…", STOPPING: "Stopping…"}.get(state, "&Stop")
        )
        a.start_stop.setEnabled(state in (IDLE, RUNNING, PAUSED))
        a.pause.setText("&Resume" if state == PAUSED else "&Pause")
        a.pause.setEnabled(running)
        self.picker.setEnabled(state == IDLE)
        if state == RUNNING:
            self._elapsed.start()
            self._clock.start()
            self.banners.hide_banner("audio")  # the source works after all
            info = self.bridge.recognizer_info
            self.statusBar().showMessage(
                f"Captioning {self.picker.choice.label}" + (f" with {info.name}" if info else "")
            )
        elif self._elapsed.isValid():
            self._elapsed_before += self._elapsed.elapsed()
            self._elapsed.invalidate()
        if state == PAUSED:
            self.statusBar().showMessage("Paused: audio is ignored until you resume (Ctrl+P)")
        elif state == STOPPING:
            self.statusBar().showMessage("Stopping: settling the last marks…")
        if state != RUNNING:
            self.meter.setValue(0)  # paused or stopped: no level to show
        if not running:
            self._clock.stop()
        self._tick()
        self.update_tray(running)
        self._update_text_actions()
        if state == IDLE and self._close_when_idle:
            self.close()

    def _tick(self) -> None:
        ms = self._elapsed_before + (self._elapsed.elapsed() if self._elapsed.isValid() else 0)
        seconds = ms // 1000
        self.elapsed_label.setText(f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}")

    def _on_captions(self, events: list, partial) -> None:
        self.view.apply(events, partial)
        self.feed_overlay()
        if events:
            self._update_text_actions()

    def _on_finished(self, transcript: Transcript) -> None:
        if self._close_when_idle:
            return
        self.show_final(transcript)

    def _update_text_actions(self) -> None:
        count = (
            len(self.final_transcript.words)
            if self.final_transcript is not None and not self.view.live
            else len(self.bridge.transcript.words)
        )
        self.commands.copy_all.setEnabled(count > 0)
        self.commands.clear.setEnabled(count > 0 and self.bridge.state == IDLE)
        self.commands.export.setEnabled(count > 0)
        self.words_label.setText(f"{count} words" if count else "")

    def _on_latency(self, setting) -> None:
        self.settings.set(keys.LATENCY, setting.value)
        self.bridge.set_latency(setting.threshold, setting.l_max)

    # -- small things ------------------------------------------------------------------------------
    def run_job(self, fn, done=None, failed=None) -> Job:
        job = Job(fn, self)
        if done is not None:
            job.done.connect(done)
        if failed is not None:
            job.failed.connect(failed)
        job.finished.connect(lambda: self.jobs.remove(job) if job in self.jobs else None)
        self.jobs.append(job)
        return job.start()

    def confirm_discard(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Discard the transcript?",
            "The current transcript has not been exported or copied. Discard it? "
            "(It stays in the session journal on disk.)",
        )
        return answer == QMessageBox.Yes

    def change_font_size(self, delta: int) -> None:
        size = max(10, min(72, self.settings.get(keys.WINDOW_FONT_SIZE) + delta))
        self.settings.set(keys.WINDOW_FONT_SIZE, size)
        self.view.set_font_size(size)

    def closeEvent(self, event) -> None:
        if self.bridge.state != IDLE:
            # Let the session drain and close its journal cleanly first; close again once idle.
            self._close_when_idle = True
            self.bridge.stop()
            self.statusBar().showMessage("Saving the transcript before closing…")
            event.ignore()
            return
        if self.confirm_on_close and self.unsaved and not self.confirm_discard():
            event.ignore()
            return
        self.settings.set_raw("window/geometry", self.saveGeometry())
        self.settings.sync()
        for job in self.jobs:
            job.cancel()  # the thread pool waits for its jobs at exit: a long re-punctuation must stop
        self.close_extras()
        self.bridge.close_recognizers()  # idle now: nothing is feeding them
        event.accept()
