"""A progress dialog for a model download: bytes so far, and a Cancel button that cancels it."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressDialog, QWidget

from app.workers.download import ModelDownload
from engine import format_bytes


class DownloadProgressDialog(QProgressDialog):
    """Bound to one ``ModelDownload``; it closes itself when the download finishes. Connect to
    the download's signals for the outcome."""

    def __init__(self, download: ModelDownload, parent: QWidget | None = None):
        entry = download.entry
        super().__init__(
            f"Downloading {entry.name} ({format_bytes(entry.size)})…",
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
        self.download = download
        self.canceled.connect(self._cancel)
        download.progress.connect(self._progress)
        download.finished.connect(self._finish)

    def _cancel(self) -> None:
        self.download.cancel()
        self.setLabelText("Cancelling… the part already downloaded is kept for next time.")

    def _finish(self) -> None:
        self.canceled.disconnect(self._cancel)  # closing a QProgressDialog emits canceled()
        self.close()

    def _progress(self, done: int, total: int) -> None:
        name = self.download.entry.name
        if total:
            self.setValue(min(1000, int(1000 * done / total)))
            self.setLabelText(f"Downloading {name}: {format_bytes(done)} of {format_bytes(total)}")
        else:
            self.setRange(0, 0)  # unknown size: a busy indicator
            self.setLabelText(f"Downloading {name}: {format_bytes(done)}")
