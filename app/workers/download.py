"""Download and install a Vosk model on the thread pool, reporting back through signals.

The engine's ``install_model`` does the real work (https only, resumable,
checked against the catalogue, installed atomically, one process at a time)
and blocks for minutes: it must never run on the UI thread. ``ModelDownloadWorker``
runs it in a ``QThreadPool``; its signals are queued to the thread that
created it, so slots update widgets safely.

Signals (on ``worker.signals``; a QRunnable cannot carry signals itself):

* ``progress(done, total)``: bytes; total is 0 when the server does not say.
  Python ints (``object``): a Qt ``int`` signal would overflow past 2 GiB, and
  the big Vosk models are larger than that.
* ``finished(path)``: the installed model's folder, as a string.
* ``failed(message)``: one sentence the user can act on (offline, disk full...).
* ``cancelled()``: after ``cancel()``; the partial download is kept, so the
  next attempt resumes where this one stopped.

Exactly one of finished/failed/cancelled is emitted, then ``done()``.
``start_download`` starts one; ``DownloadProgressDialog`` shows one with a
Cancel button.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from engine.cli.progress import format_bytes
from engine.vosk_models.catalogue import CatalogueEntry

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.1  # the engine reports every 64 KiB; the UI needs ten updates a second at most


class DownloadSignals(QObject):
    progress = Signal(object, object)
    finished = Signal(str)
    failed = Signal(str)
    cancelled = Signal()
    note = Signal(str)  # information for the user that is not an error (e.g. no published md5)
    done = Signal()


class ModelDownloadWorker(QRunnable):
    """Install ``entry``; ``models_dir``/``cache_dir`` default to the per-user folders."""

    def __init__(
        self, entry: CatalogueEntry, models_dir: str | Path | None = None, cache_dir: str | Path | None = None
    ):
        super().__init__()
        # The pool must not delete the runnable while Python code still holds it (and reads
        # ``running``); Python owns it and frees it when the last reference goes.
        self.setAutoDelete(False)
        self.entry = entry
        self.models_dir, self.cache_dir = models_dir, cache_dir
        self.signals = DownloadSignals()
        self._cancel = threading.Event()
        self._last_report = 0.0
        self.running = False

    def cancel(self) -> None:
        """Ask the download to stop at the next chunk (returns at once)."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:  # on a pool thread
        from engine.vosk_models.errors import DownloadCancelled, DownloadError
        from engine.vosk_models.install import install_model

        self.running = True
        try:
            path = install_model(
                self.entry,
                models_dir=self.models_dir,
                cache_dir=self.cache_dir,
                progress=self._progress,
                cancel=self._cancel,
                notify=self.signals.note.emit,
            )
        except DownloadCancelled:
            self.signals.cancelled.emit()
        except DownloadError as exc:  # the engine's messages already say what to do
            self.signals.failed.emit(str(exc))
        except Exception as exc:  # a bug must not kill the pool thread silently
            log.exception("installing %s failed", self.entry.name)
            self.signals.failed.emit(
                f"Installing {self.entry.name} failed unexpectedly: {exc}. Please report this as a bug."
            )
        else:
            self.signals.finished.emit(str(path))
        finally:
            self.running = False
            self.signals.done.emit()

    def _progress(self, done: int, total: int | None) -> None:
        now = time.monotonic()
        if done == total or now - self._last_report >= PROGRESS_INTERVAL_S:
            self._last_report = now
            self.signals.progress.emit(int(done), int(total or 0))


def start_download(
    entry: CatalogueEntry,
    *,
    models_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    pool: QThreadPool | None = None,
) -> ModelDownloadWorker:
    """Start installing ``entry`` on ``pool`` (default: the global pool). Keep the returned
    worker referenced until ``signals.done``: its signals live on it."""
    worker = ModelDownloadWorker(entry, models_dir, cache_dir)
    (pool or QThreadPool.globalInstance()).start(worker)
    return worker


class DownloadProgressDialog(QProgressDialog):
    """A progress dialog bound to a worker: shows bytes, Cancel cancels the download.

    It closes itself when the worker is done; connect to the worker's signals for
    the outcome.
    """

    def __init__(self, worker: ModelDownloadWorker, parent: QWidget | None = None):
        entry = worker.entry
        super().__init__(
            f"Downloading {entry.name} ({entry.size_text or format_bytes(entry.size)})…",
            "&Cancel",
            0,
            1000,
            parent,
        )
        self.setWindowTitle("Downloading a speech model")
        self.setAccessibleName("Speech model download progress")
        self.setMinimumDuration(0)
        self.setAutoClose(False)
        self.setAutoReset(False)
        self.setValue(0)
        self._worker = worker
        self.canceled.connect(self._cancel)
        worker.signals.progress.connect(self._progress)
        worker.signals.done.connect(self._finish)

    def _cancel(self) -> None:
        self._worker.cancel()
        self.setLabelText("Cancelling… the part already downloaded is kept for next time.")

    def _finish(self) -> None:
        self.canceled.disconnect(self._cancel)  # closing a QProgressDialog emits canceled()
        self.close()

    def _progress(self, done: int, total: int) -> None:
        if total:
            self.setValue(min(1000, int(1000 * done / total)))
            self.setLabelText(
                f"Downloading {self._worker.entry.name}: {format_bytes(done)} of {format_bytes(total)}"
            )
        else:
            self.setRange(0, 0)  # unknown size: a busy indicator
            self.setLabelText(f"Downloading {self._worker.entry.name}: {format_bytes(done)}")
