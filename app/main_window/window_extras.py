"""The dictation window's companions: caption overlay, settings dialog, tray icon, model
download offer and crash recovery. A mixin of ``DictationWindow`` so that file stays about
the session itself; everything here is wiring to modules that do the work.

The overlay, settings dialog and tray come from their own modules; each import is guarded,
so a window still opens (with that feature off and a note in the log) if one fails to load.
"""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QMessageBox

from app import settings as keys
from app.dialogs.recovery import RecoveryDialog, unfinished_sessions

log = logging.getLogger(__name__)


def default_entry():
    """The model the banner offers: the catalogue's small English one (about 40 MB)."""
    from engine.vosk_models.catalogue import default_english

    return default_english()


class WindowExtras:
    # -- set-up and tear-down -------------------------------------------------------------------
    def init_extras(self) -> None:
        self.overlay = None
        self.tray = None
        self.settings_dialog = None
        self.recovery_dialog = None
        self.download = None  # (worker, dialog) while a model downloads
        self._make_overlay()

    def close_extras(self) -> None:
        if self.overlay is not None:
            self.overlay.close()
        if self.tray is not None:
            self.tray.hide()

    # -- overlay --------------------------------------------------------------------------------------
    def _make_overlay(self) -> None:
        try:
            from app.overlay.caption_overlay import CaptionOverlay

            self.overlay = CaptionOverlay(self.settings)
        except Exception:  # the window is useful without it
            log.exception("the caption overlay is unavailable")
            self.commands.overlay.setEnabled(False)
            return
        self.overlay.visibility_changed.connect(self._on_overlay_visibility)
        action = self.overlay.click_through_action(self)
        self.commands.view_menu.insertAction(self.commands.view_separator, action)
        if hasattr(self.overlay, "click_through_changed"):
            self.overlay.click_through_changed.connect(
                lambda on: self.tray and self.tray.set_click_through(on)
            )

    def set_overlay_visible(self, visible: bool) -> None:
        if self.overlay is None:
            return
        if visible:
            self.feed_overlay()
        self.overlay.setVisible(bool(visible))
        self._on_overlay_visibility(bool(visible))

    def toggle_overlay(self) -> None:
        self.set_overlay_visible(self.overlay is not None and not self.overlay.isVisible())

    def _on_overlay_visibility(self, visible: bool) -> None:
        self.settings.set(keys.OVERLAY_VISIBLE, visible)
        self.commands.overlay.blockSignals(True)
        self.commands.overlay.setChecked(visible)
        self.commands.overlay.blockSignals(False)
        if self.tray is not None:
            self.tray.set_overlay_visible(visible)

    def feed_overlay(self) -> None:
        if self.overlay is not None and self.overlay.isVisible():
            self.overlay.set_captions(*self.view.tail_texts())

    # -- tray ---------------------------------------------------------------------------------------------
    def install_tray(self) -> bool:
        try:
            from app.tray import TrayIcon
        except Exception:
            log.exception("the tray icon is unavailable")
            return False
        if not TrayIcon.available():
            return False
        self.tray = TrayIcon(self)
        self.tray.start_stop_requested.connect(self.toggle_start)
        self.tray.overlay_toggle_requested.connect(self.toggle_overlay)
        if self.overlay is not None:
            self.tray.click_through_toggle_requested.connect(self.overlay.toggle_click_through)
            self.tray.set_click_through(self.overlay.is_click_through())
        self.tray.show_window_requested.connect(self._show_window)
        self.tray.quit_requested.connect(self.close)
        self.tray.set_overlay_visible(self.overlay is not None and self.overlay.isVisible())
        self.tray.show()
        return True

    def update_tray(self, running: bool) -> None:
        if self.tray is not None:
            self.tray.set_running(running)

    def _show_window(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    # -- settings -----------------------------------------------------------------------------------------
    def open_settings(self) -> None:
        try:
            from app.dialogs.settings_dialog import SettingsDialog
        except Exception:
            log.exception("the settings dialog is unavailable")
            self.statusBar().showMessage("The settings dialog could not be loaded (see the log).", 8000)
            return
        if self.settings_dialog is None:
            self.settings_dialog = SettingsDialog(self.settings, self)
            self.settings_dialog.settings_changed.connect(self.apply_settings)
        self.settings_dialog.open()

    def apply_settings(self, names: list) -> None:
        """React to settings changed elsewhere (the dialog): what can change live does."""
        names = {getattr(n, "name", n) for n in names}
        s = self.settings
        if keys.LATENCY.name in names:
            self.latency.set_value(s.get(keys.LATENCY))  # emits changed: applied live
        if keys.WINDOW_FONT_SIZE.name in names:
            self.view.set_font_size(s.get(keys.WINDOW_FONT_SIZE))
        if keys.PROFANITY_MASK.name in names:
            self.view.mask_profanity = s.get(keys.PROFANITY_MASK)
            self.view.rerender()
            self.feed_overlay()
        sources = {k.name for k in (keys.SOURCE_KIND, keys.INPUT_DEVICE, keys.MONITOR_DEVICE)}
        if names & sources and self.bridge.state == "idle":
            self.restore_source()
            self.check_source()
        if names & {keys.RECOGNIZER.name, keys.VOSK_MODEL.name}:
            self.bridge.forget_recognizers()
            if self.bridge.state == "idle":
                self.preload()
        overlay_changed = any(n.startswith("overlay/") for n in names)
        if overlay_changed and self.overlay is not None and hasattr(self.overlay, "reload_settings"):
            self.overlay.reload_settings()
        later = names & {
            k.name
            for k in (
                keys.CASING,
                keys.PAUSE_THRESHOLD,
                keys.RECOGNIZER,
                keys.VOSK_MODEL,
                keys.JOURNAL_DIR,
                keys.SOURCE_KIND,
                keys.INPUT_DEVICE,
                keys.MONITOR_DEVICE,
            )
        }
        if later and self.bridge.state != "idle":
            self.statusBar().showMessage("Some changes take effect when you next press Start.", 8000)

    # -- recognizer and model download ---------------------------------------------------------------------
    def _on_ready(self, info) -> None:
        if info.notice and info.name == "pocketsphinx":
            self.banners.show_banner(
                "model",
                "info",
                "Captions come from the built-in PocketSphinx recognizer, which makes many "
                "mistakes. The free English Vosk model (about 40 MB) is much more accurate.",
                [("Download it", self.download_model)],
            )
        elif info.notice:
            self.banners.show_banner("model", "info", info.notice)
        else:
            self.banners.hide_banner("model")
        if self.bridge.state == "idle":
            self.statusBar().showMessage(f"Ready ({info.name}): press Start or Ctrl+R")
        self.models_ready.emit()

    def download_model(self) -> None:
        from PySide6.QtCore import QThreadPool

        from app.workers.download import DownloadProgressDialog, ModelDownloadWorker

        if self.download is not None:
            return  # one at a time
        try:
            entry = default_entry()
        except Exception as exc:  # a broken catalogue is a packaging bug, but say so
            self.banners.show_banner("model", "error", f"Cannot read the model catalogue: {exc}")
            return
        # Connect before starting: an offline failure can be reported before start() returns.
        worker = ModelDownloadWorker(entry)
        dialog = DownloadProgressDialog(worker, self)
        worker.signals.finished.connect(self._on_model_installed)
        worker.signals.failed.connect(self._on_download_failed)
        worker.signals.cancelled.connect(
            lambda: self.statusBar().showMessage("Download cancelled; the next try resumes it.", 8000)
        )
        worker.signals.done.connect(self._on_download_done)
        self.download = (worker, dialog)
        dialog.show()
        QThreadPool.globalInstance().start(worker)

    def _on_model_installed(self, path: str) -> None:
        self.banners.hide_banner("model")
        self.statusBar().showMessage(
            f"Installed the speech model in {path}; the next session uses it.", 10000
        )
        self.bridge.forget_recognizers()
        if self.bridge.state == "idle":
            self.preload()

    def _on_download_failed(self, message: str) -> None:
        self.banners.show_banner(
            "model",
            "error",
            f"The speech model could not be downloaded: {message}",
            [("Try again", self.download_model)],
        )

    def _on_download_done(self) -> None:
        self.download = None

    # -- crash recovery -------------------------------------------------------------------------------------
    def offer_recovery(self) -> RecoveryDialog | None:
        """If a session crashed, offer its journaled transcript; returns the dialog (or None)."""
        try:
            found = unfinished_sessions(self.journal_folder())
        except OSError as exc:
            log.warning("cannot look for unfinished sessions: %s", exc)
            return None
        if not found:
            return None
        self.recovery_dialog = RecoveryDialog(found, self)
        self.recovery_dialog.restore_requested.connect(self.restore_session)
        self.recovery_dialog.open()
        return self.recovery_dialog

    def restore_session(self, contents) -> None:
        if self.bridge.state != "idle":
            return
        started = (contents.started or "").replace("T", " ")
        self.show_final(
            contents.transcript,
            f"Restored {len(contents.transcript.words)} words from the "
            f"session of {started}. Edit or export them.",
        )

    def show_shortcuts(self) -> None:
        from app.main_window.actions import shortcuts_text

        QMessageBox.information(self, "Keyboard shortcuts", shortcuts_text())
