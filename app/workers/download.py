"""Download and install a Vosk model as a ``Job``: progress, cancellation and the outcome as signals.

The engine's ``install_model`` does the real work (https only, resumable, checked against the
catalogue, installed atomically, one process at a time) and blocks for minutes: it must never
run on the UI thread. A ``ModelDownload`` is a ``Job`` that runs it; its signals are those of
every Job:

* ``progress(done, total)``: bytes, at most ten reports a second; total is 0 when the server
  does not say.
* ``done(path)``: the installed model's folder, as a string.
* ``failed(message)``: one sentence the user can act on (offline, disk full...).
* ``cancelled()``: after ``cancel()``; the partial download is kept, so the next attempt
  resumes where this one stopped.
* ``finished()``: after any of the three.

and one of its own, ``note(message)``: information that is not an error (e.g. no published
md5). ``app.dialogs.download_progress`` shows one with a Cancel button.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QThreadPool, Signal

from app.workers.jobs import Job, JobCancelled
from engine import CatalogueEntry

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.1  # the engine reports every 64 KiB; the UI needs ten updates a second at most


class ModelDownload(Job):
    """Install ``entry``; ``models_dir``/``cache_dir`` default to the per-user folders."""

    note = Signal(str)

    def __init__(
        self,
        entry: CatalogueEntry,
        models_dir: str | Path | None = None,
        cache_dir: str | Path | None = None,
        replace: bool = False,
    ):
        """``replace``: install afresh over an installed copy that will not load."""
        super().__init__(self._install)
        self.entry = entry
        self.models_dir, self.cache_dir = models_dir, cache_dir
        self.replace = replace
        self._last_report = 0.0
        self._send_note = self.relay("note")  # the pool thread must not emit on the Job itself

    def _install(self, report, cancelled) -> str:  # on a pool thread
        from engine import DownloadCancelled, DownloadError, install_model

        def progress(done: int, total: int | None) -> None:
            now = time.monotonic()
            if done == total or now - self._last_report >= PROGRESS_INTERVAL_S:
                self._last_report = now
                report(int(done), int(total or 0))

        try:
            path = install_model(
                self.entry,
                models_dir=self.models_dir,
                cache_dir=self.cache_dir,
                progress=progress,
                cancel=cancelled,
                notify=self._send_note,
                replace=self.replace,
            )
        except DownloadCancelled:
            raise JobCancelled() from None
        except DownloadError:  # the engine's messages already say what to do
            raise
        except Exception as exc:  # a bug: say so, in words the user can pass on
            log.exception("installing %s failed", self.entry.name)
            raise RuntimeError(
                f"Installing {self.entry.name} failed unexpectedly: {exc}. Please report this as a bug."
            ) from exc
        return str(path)


def start_download(
    entry: CatalogueEntry,
    *,
    models_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    pool: QThreadPool | None = None,
) -> ModelDownload:
    """Start installing ``entry`` on ``pool`` (default: the global pool). Keep the returned
    download referenced until ``finished``: its signals live on it."""
    return ModelDownload(entry, models_dir, cache_dir).start(pool)
