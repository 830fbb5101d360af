"""Work off the UI thread: a function on a thread pool, its outcome as Qt signals.

Exports, the offline re-punctuation after a session, model downloads, device scans and the
building and ending of live sessions can each take from a fraction of a second to minutes;
none may run on the UI thread. A ``Job`` runs one function on a pool thread and reports back
through signals, which Qt delivers queued to the thread the Job lives on (the UI thread), so
their slots may touch widgets:

* ``progress(done, total)`` as the function reports it (Python numbers: a Qt ``int`` would
  overflow past 2 GiB, and the large speech models are bigger than that);
* then exactly one of ``done(result)``, ``failed(message)`` or ``cancelled()``;
* then ``finished()``.

``cancel()`` sets an event the function polls (directly, or through ``cancellable``); the
function ends early by raising ``JobCancelled``.

A ``JobRunner`` starts jobs and keeps each one referenced until it has finished (a Job that
Python collected while running would take its signals with it). A serial runner has a pool
of its own with one thread, so its jobs run one at a time in the order they were given: the
session bridge needs that, so that a stop can never overtake the start it ends.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)

log = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised inside a job's function to end it early because it was cancelled."""


def cancellable(report, cancelled):
    """A progress callback for engine code: reports progress, and raises ``JobCancelled``
    once the job is cancelled, which stops the work at its next progress point."""

    def progress(done, total) -> None:
        if cancelled.is_set():
            raise JobCancelled()
        report(done, total)

    return progress


class Job(QObject):
    progress = Signal(object, object)  # done, total (numbers or None), as the function reports them
    done = Signal(object)  # the function's return value
    failed = Signal(str)  # a one-line message for the user
    cancelled = Signal()  # the function raised JobCancelled
    finished = Signal()  # after done, failed or cancelled (and after all their slots)
    _ended = Signal()  # pool thread → the Job's thread, queued behind the outcome

    def __init__(self, fn: Callable, parent=None, pool: QThreadPool | None = None):
        """``fn(report, cancelled)``: ``report(done, total)`` emits progress; ``cancelled`` is a
        ``threading.Event`` set by ``cancel()``."""
        super().__init__(parent)
        self.fn = fn
        self.cancel_requested = threading.Event()
        self.running = False
        self.result = None
        self.error: str | None = None
        self.was_cancelled = False
        self._pool = pool or QThreadPool.globalInstance()
        self._returned = threading.Event()
        self._ended.connect(self._end)

    def start(self, pool: QThreadPool | None = None) -> Job:
        """Run on ``pool`` (default: the one given at construction, else the global pool)."""
        self.running = True
        (pool or self._pool).start(self._run)
        return self

    def cancel(self) -> None:
        """Ask the function to stop (returns at once; ``cancelled`` follows if it does)."""
        self.cancel_requested.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has returned (tests; the signals still arrive queued)."""
        return self._returned.wait(timeout)

    def _run(self) -> None:  # on a pool thread
        # The outcome is stored, and ``running`` cleared, before its signal is sent: its slots
        # (and anyone polling) see a Job that has ended.
        try:
            result = self.fn(self._report, self.cancel_requested)
        except JobCancelled:
            self.was_cancelled, self.running = True, False
            _emit(self.cancelled)
        except Exception as exc:
            log.info("background job failed: %s", exc, exc_info=not _expected(exc))
            self.error, self.running = user_message(exc), False
            _emit(self.failed, self.error)
        else:
            self.result, self.running = result, False
            _emit(self.done, result)
        finally:
            self.running = False
            self._returned.set()
            _emit(self._ended)

    def _report(self, done, total) -> None:
        _emit(self.progress, done, total)

    def _end(self) -> None:
        self.finished.emit()


class JobRunner(QObject):
    """Starts jobs on a pool and holds them until they finish; ``serial``: one at a time, in order."""

    def __init__(self, parent=None, serial: bool = False):
        super().__init__(parent)
        if serial:
            self.pool = QThreadPool(self)
            self.pool.setMaxThreadCount(1)
        else:
            self.pool = QThreadPool.globalInstance()
        self.jobs: list[Job] = []  # running, oldest first

    def run(self, fn: Callable, done=None, failed=None, cancelled=None) -> Job:
        """Start ``fn(report, cancelled)`` as a Job; the slots given are connected before it starts,
        so a quick outcome is never missed."""
        job = Job(fn, self, self.pool)
        for signal, slot in ((job.done, done), (job.failed, failed), (job.cancelled, cancelled)):
            if slot is not None:
                signal.connect(slot)
        return self.start(job)

    def start(self, job: Job) -> Job:
        """Start a Job made elsewhere (e.g. a ``ModelDownload``) on this runner's pool."""
        job.finished.connect(lambda: self._forget(job))
        self.jobs.append(job)
        return job.start(self.pool)

    def cancel_all(self) -> None:
        for job in self.jobs:
            job.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool's jobs have returned (tests, quitting). For the shared pool this
        waits for everyone's jobs."""
        return self.pool.waitForDone(msecs)

    def _forget(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        job.deleteLater()  # its slots have run; what callers kept of it (result, error) stays readable


def _emit(signal, *args) -> None:
    """Emit from a pool thread; the Job may be gone already (its window closed)."""
    try:
        signal.emit(*args)
    except RuntimeError:  # "Signal source has been deleted": nobody is left to tell
        log.debug("job deleted; dropped a %s", signal)


def _expected(exc: Exception) -> bool:
    """Errors with a message meant for users: no traceback in the log for those."""
    from engine import AudioError, DownloadError, ExportError

    return isinstance(exc, (AudioError, DownloadError, ExportError, OSError))


def user_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and getattr(exc, "filename", None):
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc) or type(exc).__name__
    return text[:1].upper() + text[1:]
