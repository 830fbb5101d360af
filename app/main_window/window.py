"""The captions window: live captions in large text, and the controls to run a session.

The window only asks and shows. Sessions run in ``SessionBridge`` (engine threads plus a
serial job runner), slow work (device scans, re-punctuation, exports, downloads) in ``Job``s,
so the UI thread never waits. The window is composed of parts that own their state:
``SourcesController`` (the source picker, device scan and audio banner),
``TranscriptController`` (the finished text: re-punctuation, editing, copy, export),
``OverlayController`` (the caption overlay) and ``ModelOffer`` (the speech-model banner and
download). The window runs the session and wires the parts together; the session's captions
reach the caption view and the overlay through one ``CaptionFeed`` (``app.caption_feed``) that
both subscribe to. The commands and their shortcuts are in ``actions``, what the window shows
of the session's state and reports in ``session_status``, and the tray, the History, the
settings dialog, crash recovery and closing in ``companions``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMainWindow, QMessageBox, QVBoxLayout, QWidget

from app import settings as keys
from app.action_button import ActionButton
from app.caption_feed import CaptionFeed
from app.dialogs.recovery import RecoveryDialog
from app.main_window.about import show_about
from app.main_window.actions import build_actions, shortcuts_text
from app.main_window.caption_view import CaptionView
from app.main_window.companions import (
    close_window,
    finish_background_work,
    install_tray,
    offer_crash_recovery,
    open_history,
    open_settings,
    restore_session,
)
from app.main_window.controls import BannerArea, ElapsedClock, LatencyControl, LevelMeter, latency_map_for
from app.main_window.dictation_controller import DictationController
from app.main_window.input_hint import InputHintLabel
from app.main_window.job_progress import JobProgress
from app.main_window.language_controller import LanguageController, restart_in_language
from app.main_window.live_settings import apply_live
from app.main_window.model_offer import ModelOffer
from app.main_window.overlay_controller import OverlayController
from app.main_window.session_status import (
    show_error,
    show_notice,
    show_placeholder,
    show_ready,
    show_state,
    show_words_hidden,
)
from app.main_window.share_controller import ShareController
from app.main_window.sources_controller import SourcesController
from app.main_window.transcript_controller import TranscriptController
from app.main_window.vocabulary_controller import VocabularyController
from app.settings import speaker_names
from app.workers.jobs import JobRunner
from app.workers.session_bridge import IDLE, PAUSED, RUNNING, SessionBridge
from engine import Accuracy, SessionSpec, Transcript, best_built_in_recognizer, keep_days


def known_accuracy(value: str) -> str:
    """The stored Speed or accuracy choice; a hand-edited or newer one the engine does not know
    starts the session with the default rather than not at all."""
    return value if value in {a.value for a in Accuracy} else keys.ACCURACY.default


class CaptionWindow(QMainWindow):
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
        self.confirm_on_close = True
        self.jobs = JobRunner(self)  # the window's background jobs; closing cancels them
        self.tray = None
        self.settings_dialog = None
        self.recovery_dialog = None
        self.history_window = None  # made when first asked for (Ctrl+H, the tray)
        self.close_when_idle = False  # closing waits for the session to drain
        self.heard_nothing = False  # the last session heard no words: the placeholder says so
        self.setWindowTitle("livecap — live captions")
        self.setAccessibleName("livecap captions window")
        self.commands = build_actions(self)
        self._build()
        self._connect()
        self.sources.restore()
        geometry = self.settings.get_raw("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._on_state(IDLE)

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        a = self.commands
        self.banners = BannerArea()
        self.view = CaptionView(font_size=self.settings.get(keys.WINDOW_FONT_SIZE))
        self.view.mask_profanity = self.settings.get(keys.PROFANITY_MASK)
        self.view.speaker_names = speaker_names(self.settings)
        self.captions = CaptionFeed(parent=self)  # the session's captions, for the view and the overlay
        self.captions.listen_to(self.bridge)
        self.view.set_feed(self.captions)
        self.job_progress = JobProgress()
        self.sources = SourcesController(self.settings, self.banners, self.jobs, self)
        self.text = TranscriptController(
            self.settings,
            self.bridge,
            self.view,
            self.banners,
            self.job_progress,
            self.jobs,
            self.model_dir,
            self,
        )
        self.overlay_controller = OverlayController(self.settings, self.captions, a, self)
        self.model_offer = ModelOffer(self.banners, self.jobs, self)

        self.start_button = ActionButton(a.start_stop)
        self.pause_button = ActionButton(a.pause)
        self.elapsed_label = ElapsedClock()
        self.meter = LevelMeter()
        # A bare thin bar reads as an empty progress bar: name it where it stands.
        self.meter_label = QLabel("Input level:")  # plain text: an emoji is a box without an emoji font
        self.meter_label.setBuddy(self.meter)
        source_label = QLabel("S&ource:")
        source_label.setBuddy(self.sources.picker)
        self.latency = LatencyControl(latency_map_for(self.model_dir), self.settings.get(keys.LATENCY))
        top = QHBoxLayout()
        for widget in (
            self.start_button,
            self.pause_button,
            self.elapsed_label,
            self.meter_label,
            self.meter,
            source_label,
            self.sources.picker,
        ):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.latency)
        bottom = QHBoxLayout()
        for action in (a.copy_all, a.clear, a.export, a.type_into_apps):
            bottom.addWidget(ActionButton(action))
        bottom.addStretch(1)
        self.words_label = QLabel("")
        self.words_label.setAccessibleName("Word count")
        bottom.addWidget(self.words_label)
        self.statusBar().addPermanentWidget(self.job_progress)
        self.language = LanguageController(self.settings, self)
        self.statusBar().addPermanentWidget(self.language.label)
        self.statusBar().addPermanentWidget(self.language.override)
        self.typing_indicator = QLabel()
        self.statusBar().addPermanentWidget(self.typing_indicator)
        self.dictation = DictationController(
            self.settings,
            self.bridge,
            a.type_into_apps,
            self.typing_indicator,
            self.jobs,
            self._own_windows,
            self,
        )
        self.share = ShareController(self.bridge, a.share, self)  # Captions → Share captions…
        self.vocabulary = VocabularyController(self)  # a caption word's "Add to vocabulary…"
        layout = QVBoxLayout()
        layout.addLayout(top)
        layout.addWidget(self.banners)
        layout.addWidget(self.view, 1)
        self.input_hint = InputHintLabel()  # hidden until the input itself is the problem
        layout.addWidget(self.input_hint)
        layout.addLayout(bottom)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        self.resize(1000, 640)

    def _own_windows(self) -> list[str]:
        """livecap's windows as the desktop names them: dictation never types into them."""
        windows = [self] + [w for w in (self.overlay_controller.overlay,) if w is not None]
        return [str(int(w.winId())) for w in windows]

    def _connect(self) -> None:
        a, text, overlay = self.commands, self.text, self.overlay_controller
        for action, slot in (
            (a.start_stop, self.toggle_start),
            (a.pause, self.toggle_pause),
            (a.export, text.export_dialog),
            (a.copy_all, text.copy_all),
            (a.clear, text.clear),
            (a.play_file, self.sources.choose_file),
            (a.history, self.open_history),
            (a.overlay, overlay.set_visible),
            (a.settings, self.open_settings),
            (a.download_model, lambda: self.model_offer.start_download()),
            (a.larger, lambda: self.change_font_size(+2)),
            (a.smaller, lambda: self.change_font_size(-2)),
            (a.shortcuts_help, self.show_shortcuts),
            (a.about, self.show_about),
            (a.quit, self.close),
        ):
            action.triggered.connect(slot)
        self.latency.changed.connect(self._on_latency)
        show = self.statusBar().showMessage
        text.status.connect(show)
        text.final_shown.connect(self._update_text_actions)
        text.final_shown.connect(self.session_done)
        text.cleared.connect(self._update_text_actions)
        self.model_offer.status.connect(show)
        self.model_offer.installed.connect(self._on_model_installed)
        self.model_offer.removed.connect(self._on_model_installed)  # the same: load afresh
        self.model_offer.use_builtin.connect(self._use_builtin_recognizer)
        self.dictation.status.connect(lambda text: show(text, 5000))
        self.dictation.problem.connect(lambda text: self.banners.show_banner("dictation", "error", text))
        b = self.bridge
        b.state_changed.connect(self._on_state)
        b.captions_changed.connect(self._on_captions)
        b.level_changed.connect(self.meter.set_rms)
        b.notice.connect(self._on_notice)
        b.error.connect(self._on_error)
        b.ready.connect(self._on_ready)
        b.ready.connect(self.language.on_ready)
        b.language_detected.connect(self.language.on_detected)
        b.words_hidden.connect(lambda total, first: show_words_hidden(self, total, first))
        self.language.restart_requested.connect(lambda: restart_in_language(self))
        self.sources.scanned.connect(lambda _scan: self._update_placeholder())
        self.sources.picker.currentIndexChanged.connect(lambda _i: self._update_placeholder())
        b.finished.connect(self._on_finished)

    # -- sessions ------------------------------------------------------------------------------------
    def spec(self) -> SessionSpec:
        s, setting = self.settings, self.latency.setting
        source, others = self.sources.session_sources()  # others: a meeting's other side
        return SessionSpec(
            source=source,
            others=others,
            realtime=self.realtime,
            recognizer=s.get(keys.RECOGNIZER),
            recognizer_model=s.get(keys.RECOGNIZER_MODEL),
            marks=s.get(keys.MARKS),
            accuracy=known_accuracy(s.get(keys.ACCURACY)),
            model_dir=self.model_dir,
            journal_dir=self.journal_folder(),
            journal_keep_days=keep_days(s.get(keys.JOURNAL_KEEP_DAYS)),
            threshold=setting.threshold,
            l_max=setting.l_max,
            casing=s.get(keys.CASING),
            pause_threshold=s.get(keys.PAUSE_THRESHOLD) if s.is_set(keys.PAUSE_THRESHOLD) else None,
            speaker_names=speaker_names(s) if others is not None else None,
            echo_guard=s.get(keys.ECHO_GUARD),
            vocabulary=self.vocabulary.for_session(),
            **self.language.spec_fields(),
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
        if self.bridge.state != IDLE or (self.text.unsaved and not self.text.confirm_discard()):
            return False
        if self.language.pack_missing(self.banners) or not self.bridge.start(self.spec()):
            return False
        self.text.forget_final()
        self.captions.restart(self.bridge.builder)
        self.banners.hide_banner("error")
        self.input_hint.clear_hint()
        self.elapsed_label.reset()
        return True

    def toggle_pause(self) -> None:
        if self.bridge.state == RUNNING:
            self.bridge.pause()
        elif self.bridge.state == PAUSED:
            self.bridge.resume()

    def _on_state(self, state: str) -> None:
        show_state(self, state)

    def _on_captions(self, events: list, partial) -> None:
        """The captions themselves reach the view and the overlay through ``self.captions``."""
        self.input_hint.apply(events)
        if events:
            self._update_text_actions()

    def _on_finished(self, transcript: Transcript) -> None:
        if self.close_when_idle:
            return
        self.heard_nothing = not transcript.words
        self.text.show_final(transcript)
        self._update_placeholder()

    def _update_placeholder(self) -> None:
        show_placeholder(self)

    def _update_text_actions(self) -> None:
        count = self.text.word_count()
        self.commands.copy_all.setEnabled(count > 0)
        self.commands.clear.setEnabled(count > 0 and self.bridge.state == IDLE)
        self.commands.export.setEnabled(count > 0)
        self.words_label.setText(f"{count} words" if count else "")

    def _on_latency(self, setting) -> None:
        self.settings.set(keys.LATENCY, setting.value)
        self.bridge.set_latency(setting.threshold, setting.l_max)

    # -- what the bridge says (``session_status``) ------------------------------------------------------
    def _on_notice(self, kind: str, message: str) -> None:
        show_notice(self, kind, message)

    def _on_error(self, message: str) -> None:
        show_error(self, message)

    def _on_ready(self, info) -> None:
        show_ready(self, info)

    # -- models ---------------------------------------------------------------------------------------
    def _use_builtin_recognizer(self) -> None:
        """The user's answer to a Vosk model that will not load: the embedded Whisper from now on
        (Settings → Recognition changes it back)."""
        self.settings.set(keys.RECOGNIZER, best_built_in_recognizer().name)
        self.statusBar().showMessage(
            "Using the built-in recognizer (Settings → Recognition to change).", 8000
        )
        self._on_model_installed("")

    def _on_model_installed(self, _path: str) -> None:
        self.bridge.forget_recognizers()
        if self.bridge.state == IDLE:
            self.preload()

    # -- settings, tray, history, recovery (``companions``) ---------------------------------------------
    def open_settings(self) -> None:
        open_settings(self)

    def apply_settings(self, names: list) -> None:
        """React to settings changed elsewhere (the dialog): what can change live does."""
        apply_live(self, names)
        self.language.settings_changed(names)

    def install_tray(self) -> bool:
        return install_tray(self)

    def open_history(self) -> None:
        open_history(self)

    def offer_recovery(self) -> RecoveryDialog | None:
        """If a session crashed, offer its journaled transcript; returns the dialog (or None)."""
        return offer_crash_recovery(self)

    def restore_session(self, contents) -> None:
        restore_session(self, contents)

    # -- small things ------------------------------------------------------------------------------
    def show_shortcuts(self) -> None:
        QMessageBox.information(self, "Keyboard shortcuts", shortcuts_text())

    def show_about(self) -> QMessageBox:
        self.about_box = show_about(self, self.settings.store.fileName())
        return self.about_box

    def change_font_size(self, delta: int) -> None:
        size = max(10, min(72, self.settings.get(keys.WINDOW_FONT_SIZE) + delta))
        self.settings.set(keys.WINDOW_FONT_SIZE, size)
        self.view.set_font_size(size)

    def closeEvent(self, event) -> None:
        close_window(self, event)

    def finish_background_work(self, wait_ms: int = 60000) -> bool:
        return finish_background_work(self, wait_ms)
