"""Work off the UI thread: a function on a thread pool, its outcome as Qt signals.

Exports, the offline re-punctuation after a session, model downloads, device scans and the
building and ending of live sessions can each take from a fraction of a second to minutes;
none may run on the UI thread. A ``Job`` runs one function on a pool thread and reports back
through signals, emitted on the thread the Job lives on (the UI thread), so their slots may
touch widgets:

* ``progress(done, total)`` as the function reports it (Python numbers: a Qt ``int`` would
  overflow past 2 GiB, and the large speech models are bigger than that);
* then exactly one of ``done(result)``, ``failed(message)`` or ``cancelled()``;
* then ``finished()``.

``cancel()`` sets an event the function polls (directly, or through ``cancellable``); the
function ends early by raising ``JobCancelled``.

**The lifetime rule.** A Job is never deleted while its function runs, and never from the pool
thread. A QObject emitted from one thread while another deletes it (a ``deleteLater``, a parent
window closing, or Python collecting it on the pool thread) is a use-after-free that crashes
the whole app. So:

* the pool thread sees only a ``_PoolWork``: the function, the cancel event and a weak
  reference to the Job. It never emits on the Job: what the function reports travels as a call
  posted to the UI thread through one relay object that lives as long as the process, and the
  weak reference is resolved there. It drops the function (which may be a bound method of the
  Job) before it posts the outcome, so it never holds the last reference;
* a Job has no Qt parent and nobody calls ``deleteLater`` on it: Python owns it. A started Job
  is held (``_started``) until its outcome has been delivered; then its connections are
  dropped (a slot that captured the Job would otherwise keep it alive through Qt), and the Job
  is freed on the UI thread when the last Python reference to it goes.

A ``JobRunner`` starts jobs and holds each one until it has finished, then lets it go. A
serial runner has a pool of its own with one thread, so its jobs run one at a time in the order
they were given: the session bridge needs that, so that a stop can never overtake the start it
ends.
"""

from __future__ import annotations

import logging
import threading
import warnings
import weakref
from collections.abc import Callable
from functools import partial

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QThreadPool, Signal

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


class _UiThreadRelay(QObject):
    """Carries calls from pool threads to the UI thread, in the order they were posted. One for
    the process, never deleted while it runs: pool threads emit on it, so it must outlive every
    one of them (the app waits for its jobs before it returns; only Python's teardown frees it)."""

    call = Signal(object)

    def __init__(self):
        super().__init__()
        self.call.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @staticmethod
    def _run(fn) -> None:
        fn()


_relay: _UiThreadRelay | None = None
_started: set[Job] = set()  # every Job whose outcome is not yet delivered (see the lifetime rule)


def _ui_relay() -> _UiThreadRelay:
    global _relay
    if _relay is None:
        _relay = _UiThreadRelay()
        app = QCoreApplication.instance()
        if app is not None and _relay.thread() is not app.thread():
            _relay.moveToThread(app.thread())
    return _relay


def _post(fn: Callable[[], None]) -> None:
    """Run ``fn`` on the UI thread, after everything posted before it (any thread). Dropped once
    the relay is gone: only Python's teardown at exit frees it, and nothing can run then."""
    relay = _ui_relay()
    if shiboken6.isValid(relay):
        relay.call.emit(fn)
    else:
        log.debug("dropped a call posted after the UI thread's relay was freed at exit")


def _alive(job_ref: weakref.ref) -> Job | None:
    job = job_ref()
    return job if job is not None and shiboken6.isValid(job) else None


def call_on_ui_thread(target: QObject, method: str, *args) -> None:
    """Call ``target.method(*args)`` on the UI thread, from any thread, after everything posted
    before it; dropped if ``target`` was deleted first. The calling thread never emits on
    ``target`` and never holds it past this call (the lifetime rule)."""
    _post(partial(_call_if_alive, weakref.ref(target), method, args))


def _call_if_alive(target_ref: weakref.ref, method: str, args: tuple) -> None:  # on the UI thread
    target = _alive(target_ref)
    if target is not None:
        getattr(target, method)(*args)


class _PoolWork:
    """All that the pool thread holds of a Job: never the Job itself once the function is done."""

    def __init__(self, fn: Callable, cancelled: threading.Event, job_ref: weakref.ref):
        self.fn: Callable | None = fn
        self.cancelled = cancelled
        self.job_ref = job_ref
        self.returned = threading.Event()

    def run(self) -> None:  # on a pool thread
        report = partial(_post_signal, self.job_ref, "progress")
        try:
            result = self.fn(report, self.cancelled)
        except JobCancelled:
            outcome = ("cancelled", None)
        except Exception as exc:
            log.info("background job failed: %s", exc, exc_info=not _expected(exc))
            outcome = ("failed", user_message(exc))
        else:
            outcome = ("done", result)
        finally:
            self.fn = None  # it may be a bound method of the Job: the UI thread lets the Job go
        self.returned.set()
        _post(partial(_deliver_outcome, self.job_ref, *outcome))


def _post_signal(job_ref: weakref.ref, name: str, *args) -> None:
    _post(partial(_call_if_alive, job_ref, "_emit", (name, *args)))


def _deliver_outcome(job_ref: weakref.ref, kind: str, value) -> None:  # on the UI thread
    job = job_ref()
    if job is None:
        return
    try:
        if shiboken6.isValid(job):
            job._end(kind, value)
    finally:
        _started.discard(job)


class Job(QObject):
    progress = Signal(object, object)  # done, total (numbers or None), as the function reports them
    done = Signal(object)  # the function's return value
    failed = Signal(str)  # a one-line message for the user
    cancelled = Signal()  # the function raised JobCancelled
    finished = Signal()  # after done, failed or cancelled (and after all their slots)

    def __init__(self, fn: Callable, pool: QThreadPool | None = None):
        """``fn(report, cancelled)``: ``report(done, total)`` emits progress; ``cancelled`` is a
        ``threading.Event`` set by ``cancel()``. No Qt parent: see the lifetime rule."""
        super().__init__()
        _ui_relay()  # made here, on the UI thread, before any pool thread needs it
        self.fn = fn
        self.cancel_requested = threading.Event()
        self.running = False
        self.result = None
        self.error: str | None = None
        self.was_cancelled = False
        self._pool = pool or QThreadPool.globalInstance()
        self._work: _PoolWork | None = None
        self._when_ended: list[Callable[[Job], None]] = []  # plain callbacks, after ``finished``

    def start(self, pool: QThreadPool | None = None) -> Job:
        """Run on ``pool`` (default: the one given at construction, else the global pool)."""
        self.running = True
        self._work = _PoolWork(self.fn, self.cancel_requested, weakref.ref(self))
        _started.add(self)
        (pool or self._pool).start(self._work.run)
        return self

    def cancel(self) -> None:
        """Ask the function to stop (returns at once; ``cancelled`` follows if it does)."""
        self.cancel_requested.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has returned (tests; the signals still arrive queued)."""
        return self._work is not None and self._work.returned.wait(timeout)

    def relay(self, signal_name: str) -> Callable:
        """A callable that emits this Job's signal ``signal_name`` on the UI thread, safe to call
        from the pool thread (as ``report`` is): for signals of a subclass's own."""
        return partial(_post_signal, weakref.ref(self), signal_name)

    def _emit(self, signal_name: str, *args) -> None:  # on the UI thread
        getattr(self, signal_name).emit(*args)

    def _end(self, kind: str, value) -> None:  # on the UI thread
        # The outcome is stored, and ``running`` cleared, before its signal is sent: its slots
        # (and anyone polling) see a Job that has ended.
        self.running = False
        if kind == "done":
            self.result = value
            self.done.emit(value)
        elif kind == "failed":
            self.error = value
            self.failed.emit(value)
        else:
            self.was_cancelled = True
            self.cancelled.emit()
        self.finished.emit()
        for callback in self._when_ended:
            callback(self)
        self._when_ended.clear()
        self._drop_connections()

    def _drop_connections(self) -> None:
        # A lambda connected to a signal of this Job and capturing it is held by Qt: the Job could
        # never be freed. Nothing is emitted after ``finished``, so let them all go.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "failed to disconnect": none connected
            for signal in (self.progress, self.done, self.failed, self.cancelled, self.finished):
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):
                    pass


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
        job = Job(fn, self.pool)
        for signal, slot in ((job.done, done), (job.failed, failed), (job.cancelled, cancelled)):
            if slot is not None:
                signal.connect(slot)
        return self.start(job)

    def start(self, job: Job) -> Job:
        """Start a Job made elsewhere (e.g. a ``ModelDownload``) on this runner's pool."""
        job._when_ended.append(self._forget)
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
            self.jobs.remove(job)  # freed when its last reference goes (the lifetime rule above)


def _expected(exc: Exception) -> bool:
    """Errors with a message meant for users: no traceback in the log for those."""
    from engine import AudioError, DownloadError, ExportError

    return isinstance(exc, (AudioError, DownloadError, ExportError, OSError))


def user_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and getattr(exc, "filename", None):
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc) or type(exc).__name__
    return text[:1].upper() + text[1:]
