"""The window's "Type into other apps": dictation from the running session into whatever window has
the focus, its indicator, and the control socket that ``livecap dictate --toggle`` reaches.

The engine does the work (``DictationSwitch`` puts a ``DictationSink``, with its own thread, on the
session); this controller only switches it on and off on the UI thread. Finding the typing tool
runs a program, so it is a job: the UI thread never waits on it. The captions, the window's own
text and the journal are untouched by typing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QLabel

from app import settings as keys
from app.settings import AppSettings
from app.workers.jobs import JobRunner, user_message
from app.workers.session_bridge import RUNNING, SessionBridge
from engine import ControlServer, ControlUnavailable, DictationSwitch, choose_typist

log = logging.getLogger(__name__)


def spoken_commands(settings: AppSettings) -> list[str]:
    """The spoken commands switched on in Settings (stored comma-separated)."""
    from engine import SPOKEN_COMMANDS

    chosen = [c.strip() for c in str(settings.get(keys.DICTATION_COMMANDS)).split(",")]
    return [c for c in chosen if c in SPOKEN_COMMANDS]


class DictationController(QObject):
    problem = Signal(str)  # one line: dictation could not start, or stopped
    status = Signal(str)  # for the status bar
    _remote_toggle = Signal()  # from the control socket's thread
    _sink_stopped = Signal(str)  # from the typing thread: it failed and stopped

    def __init__(
        self,
        settings: AppSettings,
        bridge: SessionBridge,
        action: QAction,
        indicator: QLabel,
        jobs: JobRunner,
        own_windows: Callable[[], list[str]],
        parent=None,
    ):
        super().__init__(parent)
        self.settings, self.bridge, self.action, self.indicator = settings, bridge, action, indicator
        self.jobs, self.own_windows = jobs, own_windows
        self.on = False
        self.switch: DictationSwitch | None = None  # once the typing tool is found
        self.server: ControlServer | None = None
        self._finding = False
        # Whether one of livecap's windows is active, kept by the UI thread for the typing thread:
        # on Wayland that is the only way to keep typing out of them.
        self._own_active = threading.Event()
        self._app = QGuiApplication.instance()
        if self._app is not None:
            self._app.applicationStateChanged.connect(self._on_application_state)
            self._on_application_state(self._app.applicationState())
        indicator.setText("⌨ Typing into other apps")
        indicator.setAccessibleName("Dictation is typing into other applications")
        indicator.setVisible(False)
        action.toggled.connect(self.set_on)
        bridge.ready.connect(lambda _info: self._attach())
        bridge.finished.connect(lambda _transcript: self._session_ended())
        self._remote_toggle.connect(self.toggle, Qt.ConnectionType.QueuedConnection)
        self._sink_stopped.connect(self._failed, Qt.ConnectionType.QueuedConnection)

    def _on_application_state(self, state) -> None:
        if state == Qt.ApplicationState.ApplicationActive:
            self._own_active.set()
        else:
            self._own_active.clear()

    # -- the control socket -----------------------------------------------------------------------
    def listen(self) -> str | None:
        """Answer ``livecap dictate --toggle`` / ``--status``; a reason when that cannot be."""
        try:
            self.server = ControlServer({"toggle": self._toggle_from_socket, "status": self._status}).start()
        except (ControlUnavailable, OSError) as exc:
            log.info("dictation shortcut unavailable: %s", exc)
            return str(exc)
        return None

    def close(self) -> None:
        app, self._app = self._app, None
        if app is not None:  # the application outlives this window: leave it no slot of ours to call
            app.applicationStateChanged.disconnect(self._on_application_state)
        self._detach()
        if self.server is not None:
            self.server.stop()
            self.server = None

    def _toggle_from_socket(self) -> str:
        self._remote_toggle.emit()  # runs on the UI thread
        return "paused" if self.on else "dictating"  # what it is about to become

    def _status(self) -> str:
        return "dictating" if self.on else "paused"

    # -- on and off ---------------------------------------------------------------------------------
    def toggle(self) -> None:
        self.action.setChecked(not self.on)

    def set_on(self, on: bool) -> None:
        if on == self.on and not self._finding:
            return
        if not on:
            self.on = False
            self._detach()
            self._show()
            return
        if self.switch is not None:
            self.on = True
            self._attach()
            self._show()
            return
        if not self._finding:  # look for the typing tool once, off the UI thread
            self._finding = True
            self.jobs.run(lambda report, cancelled: choose_typist(), done=self._found, failed=self._not_found)

    def _found(self, typist) -> None:
        self._finding = False
        self.switch = DictationSwitch(
            typist,
            spoken_commands(self.settings),
            self.own_windows,
            on_error=self._sink_failed,
            own_window_active=self._own_active.is_set,
        )
        if self.action.isChecked():
            self.on = True
            self._attach()
            self.status.emit(f"Typing into other apps with {typist.name}")
        self._show()

    def _not_found(self, error) -> None:
        self._finding = False
        self.on = False
        self._show()
        self.problem.emit(user_message(error) if isinstance(error, BaseException) else str(error))

    def _show(self) -> None:
        self.action.blockSignals(True)
        self.action.setChecked(self.on)
        self.action.blockSignals(False)
        self.indicator.setVisible(self.on)

    def reload_commands(self) -> None:
        """Settings changed the spoken commands: the running dictation obeys the new set."""
        if self.switch is not None:
            self.switch.set_commands(spoken_commands(self.settings))

    # -- the sink on the session ------------------------------------------------------------------
    def _attach(self) -> None:
        session = self.bridge.session
        if self.on and self.switch is not None and session is not None and self.bridge.state == RUNNING:
            self.switch.attach(session)

    def _detach(self) -> None:
        if self.switch is not None:
            self.switch.detach()  # nothing more is typed

    def _session_ended(self) -> None:
        """The session stopped and published its last words: type them, then let the sink go."""
        sink = self.switch.release() if self.switch is not None else None
        if sink is not None:
            self.jobs.run(lambda report, cancelled: (sink.drain(), sink.stop()))

    def _sink_failed(self, message: str) -> None:  # on the typing thread
        self._sink_stopped.emit(message)

    def _failed(self, message: str) -> None:
        self.on = False
        self._detach()
        self._show()
        self.problem.emit(message)
