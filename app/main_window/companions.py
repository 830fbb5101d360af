"""The captions window's companions: the tray icon, the History window, the settings dialog and
crash recovery, each made when first needed; and closing the window, which waits for a running
session to drain and then closes the companions with it.

Functions of the window (a ``CaptionWindow``), which keeps what they make in its attributes
(``tray``, ``history_window``, ``settings_dialog``, ``recovery_dialog``) and calls them from its
methods of the same names.
"""

from __future__ import annotations

import logging

from app.dialogs.recovery import RecoveryDialog, offer_recovery
from app.workers.session_bridge import IDLE, PAUSED, RUNNING

log = logging.getLogger(__name__)


def install_tray(window) -> bool:
    """Put the tray icon up, wired to ``window``'s commands; False where the desktop has no tray."""
    try:
        from app.tray import TrayIcon
    except Exception:
        log.exception("the tray icon is unavailable")
        return False
    if not TrayIcon.available():
        return False
    overlay = window.overlay_controller
    tray = window.tray = TrayIcon(window)
    tray.start_stop_requested.connect(window.toggle_start)
    tray.overlay_toggle_requested.connect(overlay.toggle)
    tray.click_through_toggle_requested.connect(overlay.toggle_click_through)
    tray.show_window_requested.connect(lambda: show_window(window))
    tray.history_requested.connect(window.open_history)
    tray.share_requested.connect(window.share.show)
    tray.quit_requested.connect(window.close)
    overlay.visibility_changed.connect(tray.set_overlay_visible)
    overlay.click_through_changed.connect(tray.set_click_through)
    tray.set_click_through(overlay.is_click_through())
    tray.set_overlay_visible(overlay.is_visible())
    tray.show()
    return True


def show_window(window) -> None:
    """The tray's "Show window": the window up front, restored if minimized."""
    window.showNormal()
    window.raise_()
    window.activateWindow()


def open_history(window) -> None:
    from app.history.window import show_history

    window.history_window = show_history(window.settings, window.history_window, window.journal_folder())


def open_settings(window) -> None:
    """The settings dialog, made on first use; its changes reach ``window.apply_settings``."""
    try:
        from app.dialogs.settings_dialog import SettingsDialog
    except Exception:
        log.exception("the settings dialog is unavailable")
        window.statusBar().showMessage("The settings dialog could not be loaded (see the log).", 8000)
        return
    if window.settings_dialog is None:
        window.settings_dialog = SettingsDialog(window.settings, window)
        window.settings_dialog.settings_changed.connect(window.apply_settings)
        window.settings_dialog.vocabulary_page.changed.connect(window.vocabulary.apply_to_session)
    info, running = window.bridge.recognizer_info, window.bridge.state in (RUNNING, PAUSED)
    window.settings_dialog.meeting_page.show_echo(info.echo if running and info else "")
    window.settings_dialog.open()


def offer_crash_recovery(window) -> RecoveryDialog | None:
    """If a session crashed, offer its journaled transcript; returns the dialog (or None)."""
    dialog = offer_recovery(window.journal_folder(), window)
    if dialog is not None:
        window.recovery_dialog = dialog
        dialog.restore_requested.connect(window.restore_session)
    return dialog


def restore_session(window, contents) -> None:
    """Show a crashed session's journaled transcript (``contents``) as the finished text."""
    if window.bridge.state != IDLE:
        return
    from app.dialogs.recovery import local_started

    started = local_started(contents.started)
    window.text.show_final(
        contents.transcript,
        f"Restored {len(contents.transcript.words)} words from the "
        f"session of {started}. Edit or export them.",
        english=contents.english,
        language=contents.language,
        translated=contents.translated,
    )


def close_window(window, event) -> None:
    """``window``'s close ``event``: a running session drains first (closing again once idle),
    unsaved text may keep it open, then the geometry is saved and the companions close."""
    if window.bridge.state != IDLE:
        # Let the session drain and close its journal cleanly first; close again once idle.
        window.close_when_idle = True
        window.bridge.stop()
        window.statusBar().showMessage("Saving the transcript before closing…")
        event.ignore()
        return
    if window.confirm_on_close and window.text.unsaved and not window.text.confirm_discard():
        event.ignore()
        return
    window.settings.set_raw("window/geometry", window.saveGeometry())
    window.settings.sync()
    window.jobs.cancel_all()  # the thread pool waits for its jobs at exit: a long re-punctuation must stop
    window.overlay_controller.close()
    if window.history_window is not None:
        window.history_window.close()
        window.history_window.shutdown(wait_ms=5000)
    window.dictation.close()
    if window.tray is not None:
        window.tray.hide()
    window.bridge.close_recognizers()  # idle now: nothing is feeding them
    event.accept()


def finish_background_work(window, wait_ms: int = 60000) -> bool:
    """After the event loop has returned: wait for ``window``'s jobs still running (a preload
    loading Whisper when the window closed a second after it opened), then close the recognizers
    such a job made after ``close_window`` closed the others. Its outcome is never shown, but it
    must post it while the process is whole, not while Python is tearing down the Qt objects it
    posts through. False if a job outlived ``wait_ms``."""
    finished = [window.bridge.wait(wait_ms), window.jobs.wait(wait_ms)]  # both, even if one times out
    window.bridge.close_recognizers()
    return all(finished)
