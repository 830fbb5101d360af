"""``livecap app --play FILE``: drive the real pipeline from a file, paced in real time, into the
real windows; optionally screenshot them and quit when done. For demos, and for tests that
check what a person would see (under Xvfb).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)

log = logging.getLogger("livecap.app")
WATCHDOG_SLACK_S = 120  # beyond the file's length: something hangs; fail instead of waiting forever


class PlayDriver(QObject):
    def __init__(
        self,
        window,
        path: Path,
        overlay: bool = False,
        exit_when_done: bool = False,
        screenshot: Path | None = None,
    ):
        super().__init__(window)
        self.window, self.path = window, Path(path)
        self.overlay, self.exit_when_done, self.screenshot = overlay, exit_when_done, screenshot
        self.exit_code: int | None = None
        self.shots: list[Path] = []
        self._watchdog = QTimer(self, singleShot=True)
        self._watchdog.timeout.connect(lambda: self._failed(f"not done after {self._watchdog_limit:.0f} s"))
        self._watchdog_limit = 0.0
        self._watchdog_from_length = False
        window.session_done.connect(self._done)
        window.bridge.error.connect(self._failed)

    def start(self) -> None:
        if self.overlay:
            self.window.overlay_controller.set_visible(True)
        if not self.window.start():
            self._failed("the session could not start")
            return
        if self.exit_when_done:
            # A first watchdog for a start that hangs; once captioning runs, the file has been
            # opened on the bridge's worker and its length is cheap to read, so the watchdog
            # is re-armed from it. (Reading it here imported soundfile on the UI thread: a
            # visible hitch just after the window showed.)
            self._arm_watchdog(WATCHDOG_SLACK_S)
            self.window.bridge.state_changed.connect(self._on_state)

    def _on_state(self, state: str) -> None:
        from app.workers.session_bridge import RUNNING

        if state != RUNNING or self._watchdog_from_length:
            return
        self._watchdog_from_length = True
        try:
            from engine import audio_duration

            self._arm_watchdog(audio_duration(self.path) + WATCHDOG_SLACK_S)
        except Exception:  # the session reports an unreadable file itself; keep the first watchdog
            log.debug("cannot read the length of %s", self.path, exc_info=True)

    def _arm_watchdog(self, limit: float) -> None:
        self._watchdog.start(int(limit * 1000))
        self._watchdog_limit = limit

    def _done(self) -> None:
        # One more turn of the event loop: the final text must be laid out and painted before the grab.
        QTimer.singleShot(100, self._finish)

    def _finish(self) -> None:
        if self.exit_code is not None:
            return
        if self.screenshot is not None:
            self._save(self.window, self.screenshot)
            overlay = self.window.overlay_controller.overlay
            if self.overlay and overlay is not None and overlay.isVisible():
                self._save(
                    overlay,
                    self.screenshot.with_name(
                        f"{self.screenshot.stem}-overlay{self.screenshot.suffix or '.png'}"
                    ),
                )
        words = len(self.window.text.current_transcript().words)
        log.info("played %s: %d words", self.path.name, words)
        if self.exit_when_done:
            self._exit(0 if words else 1, None if words else "no words were recognized")

    def _save(self, widget, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not widget.grab().save(str(path), "PNG"):
            self._exit(1, f"cannot write the screenshot {path}")
            return
        self.shots.append(path)

    def _failed(self, message: str) -> None:
        if self.exit_when_done and self.exit_code is None:
            self._exit(1, message)

    def _exit(self, code: int, message: str | None) -> None:
        if self.exit_code is not None:
            return
        self.exit_code = code
        if message:
            print(f"livecap: {message}", file=sys.stderr, flush=True)
        self.window.text.mark_saved()  # a demo's text needs no confirmation to close
        self.window.overlay_controller.close()
        self.window.close()
        QApplication.instance().exit(code)
