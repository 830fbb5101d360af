"""Background jobs for the UI: a function on the global QThreadPool, its outcome as signals.

Exports, the offline re-punctuation after a session, model downloads and device scans
can each take from a fraction of a second to minutes; none may run on the UI thread.
A ``Job`` runs one function on a pool thread and reports back through queued signals
(progress, done, failed), so its slots run on the UI thread. ``cancel()`` sets an event
the function can poll; what it means is the function's business.

Keep a reference to a running Job (the caller's attribute): a Job that Python collects
while running would take its signals with it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)

log = logging.getLogger(__name__)


class Job(QObject):
    progress = Signal(object, object)  # done, total (numbers or None), as the function reports them
    done = Signal(object)  # the function's return value
    failed = Signal(str)  # a one-line message for the user
    finished = Signal()  # after done or failed

    def __init__(self, fn: Callable, parent=None, pool: QThreadPool | None = None):
        """``fn(report, cancelled)``: ``report(done, total)`` emits progress; ``cancelled`` is a
        ``threading.Event``."""
        super().__init__(parent)
        self.fn = fn
        self.cancelled = threading.Event()
        self.running = False
        self.result = None
        self.error: str | None = None
        self._pool = pool or QThreadPool.globalInstance()
        self._finished = threading.Event()
        self.done.connect(self._store_result)
        self.failed.connect(self._store_error)

    def start(self) -> Job:
        self.running = True
        self._pool.start(self._run)
        return self

    def cancel(self) -> None:
        self.cancelled.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has returned (tests; the signals still arrive queued)."""
        return self._finished.wait(timeout)

    def _run(self) -> None:
        try:
            result = self.fn(self.progress.emit, self.cancelled)
        except Exception as exc:
            log.info("background job failed: %s", exc, exc_info=not _expected(exc))
            self.failed.emit(user_message(exc))
        else:
            self.done.emit(result)
        finally:
            self._finished.set()

    def _store_result(self, result) -> None:
        self.result, self.running = result, False
        self.finished.emit()

    def _store_error(self, message: str) -> None:
        self.error, self.running = message, False
        self.finished.emit()


def _expected(exc: Exception) -> bool:
    """Errors with a message meant for users: no traceback in the log for those."""
    from engine.audio.base import AudioError
    from engine.transcript.export import ExportError
    from engine.vosk_models.errors import DownloadError

    return isinstance(exc, (AudioError, DownloadError, ExportError, OSError))


def user_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and getattr(exc, "filename", None):
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc) or type(exc).__name__
    return text[:1].upper() + text[1:]
