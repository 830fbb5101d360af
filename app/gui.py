"""Start the GUI: the QApplication, the theme, the captions window and what runs beside it.

Start-up order is chosen for time-to-window: the window is built and shown first (no model
is loaded in its constructor), then, from the event loop, the models load on the bridge's
worker while devices are scanned on another. "Ready" is when Start would begin captioning
at once; both times are logged (``--debug`` prints them).
"""

from __future__ import annotations

import logging
import signal
import sys
import time

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.settings import ACCURACY, MARKS, OVERLAY_VISIBLE, RECOGNIZER, AppSettings

log = logging.getLogger("livecap.app")


def run(args, started: float) -> int:
    from engine import disable_telemetry

    disable_telemetry()  # before the session loads the model (when run without the launcher)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="livecap: %(message)s" if args.debug else "livecap: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    app = QApplication.instance() or QApplication(["livecap"])
    from app.garbage_collection import collect_on_ui_thread

    collect_on_ui_thread(app)  # a widget freed by the collector on another thread crashes Qt
    app.setApplicationName("livecap")
    app.setOrganizationName("livecap")
    app.setDesktopFileName(
        "io.github.livecap"
    )  # the .desktop id (packaging/linux): Wayland matches windows to it
    try:
        from app.theme import app_icon, apply_system_palette

        apply_system_palette(app)
        app.setWindowIcon(app_icon())
    except Exception:  # a missing theme must not stop captions
        log.exception("the theme could not be applied")
    from app.main_window.window import CaptionWindow

    store = QSettings(str(args.settings), QSettings.IniFormat) if args.settings else None
    settings = AppSettings(store)
    for key, value in ((RECOGNIZER, args.recognizer), (MARKS, args.marks), (ACCURACY, args.accuracy)):
        if value is not None:  # asked for on the command line: from now on, as if chosen in Settings
            settings.set(key, value)
    window = CaptionWindow(settings, model_dir=args.model_dir)
    timings = {}

    def mark(name: str) -> None:
        if name not in timings:
            timings[name] = time.perf_counter() - started
            log.debug("start-up: %s after %.2f s", name, timings[name])

    driver = None
    if args.play is not None:
        from app.play_mode import PlayDriver

        window.confirm_on_close = False
        window.sources.picker.add_file(str(args.play))
        driver = PlayDriver(
            window,
            args.play,
            overlay=args.overlay,
            exit_when_done=args.exit_when_done,
            screenshot=args.screenshot,
        )
    window.models_ready.connect(lambda: mark("ready to caption"))
    try:
        # Loading ONNX Runtime and creating its session hold the GIL (docs/PERFORMANCE.md): on the worker,
        # after the window showed, that froze the window. Here it delays the window by as much.
        window.bridge.punctuation_model(window.model_dir)
    except Exception:  # the preload reports a broken model in the window, with what to do
        log.debug("the punctuation model did not load before the window", exc_info=True)
    window.show()
    close_on_terminate(window)

    monitor = None
    if args.ui_report is not None:
        from app.responsiveness import EventLoopMonitor

        monitor = EventLoopMonitor(window)

    def begin_captioning() -> None:
        if driver is not None:
            driver.start()
            return
        if args.overlay or settings.get(OVERLAY_VISIBLE):
            window.overlay_controller.set_visible(True)
        window.offer_recovery()
        window.dictation.listen()  # `livecap dictate --toggle` reaches this window from now on

    # Each step gets its own turn of the event loop, so the first paints and input are never
    # queued behind all of them at once (together they made a visible hitch).
    steps = [window.preload, window.sources.scan_devices, window.install_tray, begin_captioning]

    def after_show() -> None:
        if not steps:
            return
        if "window shown" not in timings:
            mark("window shown")
            if monitor is not None:
                monitor.start()
        steps.pop(0)()
        QTimer.singleShot(0, after_show)

    QTimer.singleShot(0, after_show)
    code = app.exec()
    if not window.finish_background_work():
        log.warning("a background job was still running when livecap quit")
    if driver is not None and driver.exit_code is not None:
        code = driver.exit_code
    if monitor is not None:
        monitor.stop()
        write_ui_report(args.ui_report, timings, monitor.report(), window)
    if args.debug and timings:
        print(
            "livecap: start-up timings: " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()),
            file=sys.stderr,
            flush=True,
        )
    return code


def close_on_terminate(window) -> None:
    """SIGTERM (logout, ``kill``) and SIGINT (Ctrl-C in the terminal that started it) close the
    window as its close button does, without asking: a running session is stopped, its marks
    settled and its journal closed before livecap quits, instead of dying mid-session."""

    def request(signum, frame) -> None:
        QTimer.singleShot(0, lambda: terminate(window))

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request)
    # Python runs a signal handler only when it next runs bytecode: while Qt waits for events it
    # does not, so a timer lets it in a few times a second (in a dialog's own event loop too).
    QTimer(window, interval=200, timeout=lambda: None).start()


def terminate(window) -> None:
    """Close ``window`` for good, nobody being there to answer: every open dialog is answered as
    "keep" first (the text is not discarded, a crashed session stays offered for the next start,
    a file dialog is cancelled). A dialog left open runs its own event loop, and the process
    would wait on it after the window had gone."""
    window.confirm_on_close = False
    answer_dialogs_as_keep()
    # Once the dialogs' own loops have returned: what they were asked for is answered by then.
    QTimer.singleShot(0, lambda: (answer_dialogs_as_keep(), window.close()))


def answer_dialogs_as_keep() -> int:
    """Answer every open dialog, the topmost first, with its "keep" answer: a question's No or
    Cancel, any other dialog's Cancel (``reject``). Returns how many were open."""
    answered, seen = 0, []
    for _ in range(32):  # dialogs opened from dialogs: each answer uncovers the one below
        dialog = QApplication.activeModalWidget()
        if dialog is None or not dialog.isVisible() or any(dialog is d for d in seen):
            break
        seen.append(dialog)
        _keep(dialog)
        answered += 1
    for widget in QApplication.topLevelWidgets():  # window-modal and modeless ones too
        if isinstance(widget, QDialog) and widget.isVisible():
            _keep(widget)
            answered += 1
    return answered


def _keep(dialog) -> None:
    if isinstance(dialog, QMessageBox):
        for kind in (QMessageBox.StandardButton.No, QMessageBox.StandardButton.Cancel):
            button = dialog.button(kind)
            if button is not None:
                button.click()
                return
    if isinstance(dialog, QDialog):
        dialog.reject()
    else:
        dialog.close()


def write_ui_report(path, timings: dict, stalls: dict, window) -> None:
    import json

    from engine import atomic_write_text

    info = window.bridge.recognizer_info
    report = {
        "start_up_s": {k: round(v, 3) for k, v in timings.items()},
        "ui_thread": stalls,
        "recognizer": None if info is None else info.name,
        "words": len(window.text.current_transcript().words),
    }
    try:
        atomic_write_text(path, json.dumps(report, indent=2) + "\n")
    except OSError as exc:
        print(f"livecap: cannot write the UI report {path}: {exc}", file=sys.stderr)
