"""The captions window's speech-model banner: which recognizer captions come from, and, when
it is the built-in PocketSphinx, an offer to download the free English Vosk model. When the
chosen Vosk model will not load, the banner says so (PocketSphinx captions meanwhile) and offers
the engine's ways out as buttons: use the built-in recognizer, download the model again, remove it.

The download is a ``ModelDownload`` job behind a progress dialog with a Cancel button; a
cancelled download keeps its part, so the next try resumes it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from app.dialogs.download_progress import DownloadProgressDialog
from app.main_window.controls import BannerArea
from app.workers.download import ModelDownload
from app.workers.jobs import Job, JobRunner

BANNER = "model"  # the banner topic this part owns


def default_entry():
    """The model the banner offers: the catalogue's small English one (about 40 MB)."""
    from engine import default_english

    return default_english()


def catalogue_entry(name: str):
    from engine import load_catalogue

    for entry in load_catalogue():
        if entry.name == name:
            return entry
    raise LookupError(f"{name} is not in the model catalogue")


class ModelOffer(QObject):
    installed = Signal(str)  # the new model's folder: the next session should use it
    removed = Signal(str)  # a model's name: the next session must not look for it
    use_builtin = Signal()  # the user chose the embedded Whisper over a Vosk model that will not load
    status = Signal(str, int)  # a message for the status bar, and for how many ms

    def __init__(self, banners: BannerArea, jobs: JobRunner, window: QWidget):
        """``window`` parents the progress dialog; ``jobs`` runs the download."""
        super().__init__(window)
        self.banners, self.jobs, self.window = banners, jobs, window
        self.download: ModelDownload | None = None  # while one runs (one at a time)
        self.progress_dialog: DownloadProgressDialog | None = None

    def show_recognizer(self, info) -> None:
        """Say what the loaded recognizer (a ``RecognizerInfo``) means for the captions."""
        if info.ways_out:  # a Vosk model that will not load; PocketSphinx runs meanwhile
            self.banners.show_banner(
                BANNER, "warning", info.notice, [(way.label, self._action(way)) for way in info.ways_out]
            )
        elif info.notice and info.kind.last_resort:
            # Why the last resort (Whisper too slow here, or missing), then what would do better.
            why = info.notice.split(": using the built-in", 1)[0].split(". ", 1)[0].rstrip(".")
            self.banners.show_banner(
                BANNER,
                "info",
                f"{why}. Captions come from the built-in {info.kind.title} recognizer, which makes many "
                "mistakes. The free English Vosk model (about 40 MB) is light and much more accurate.",
                [("Download it", lambda: self.start_download())],
            )
        elif info.notice:
            self.banners.show_banner(BANNER, "info", info.notice)
        else:
            self.banners.hide_banner(BANNER)

    def _action(self, way):
        if way.action == "use_builtin":
            return self._use_builtin
        if way.action == "download":
            return lambda: self.start_download(way.model, replace=True)
        if way.action == "remove":
            return lambda: self.remove(way.model)
        raise ValueError(f"unknown way out {way.action!r}")

    def _use_builtin(self) -> None:
        self.banners.hide_banner(BANNER)
        self.use_builtin.emit()

    def remove(self, name: str) -> Job:
        """Delete the installed model ``name`` off the UI thread; the next session does without it."""
        from engine import remove_model

        job = Job(lambda report, cancelled: remove_model(name))
        job.done.connect(lambda _gone: self._on_removed(name))
        job.failed.connect(
            lambda message: self.banners.show_banner(BANNER, "error", f"Could not remove {name}: {message}")
        )
        return self.jobs.start(job)

    def _on_removed(self, name: str) -> None:
        self.banners.hide_banner(BANNER)
        self.status.emit(f"Removed the speech model {name}.", 8000)
        self.removed.emit(name)

    def start_download(self, name: str | None = None, replace: bool = False) -> ModelDownload | None:
        """Download ``name`` (default: the small English model); ``replace`` installs it afresh over
        an installed copy that will not load."""
        if self.download is not None:
            return None  # one at a time
        try:
            entry = default_entry() if name is None else catalogue_entry(name)
        except Exception as exc:  # a broken catalogue is a packaging bug, but say so
            self.banners.show_banner(BANNER, "error", f"Cannot read the model catalogue: {exc}")
            return None
        # Connected before it starts: an offline failure can be reported at once.
        download = self.download = ModelDownload(entry, replace=replace)
        self.progress_dialog = DownloadProgressDialog(download, self.window)
        download.done.connect(self._on_installed)
        download.failed.connect(self._on_failed)
        download.cancelled.connect(
            lambda: self.status.emit("Download cancelled; the next try resumes it.", 8000)
        )
        download.finished.connect(self._on_finished)
        self.progress_dialog.show()
        return self.jobs.start(download)

    def _on_installed(self, path: str) -> None:
        self.banners.hide_banner(BANNER)
        self.status.emit(f"Installed the speech model in {path}; the next session uses it.", 10000)
        self.installed.emit(path)

    def _on_failed(self, message: str) -> None:
        self.banners.show_banner(
            BANNER,
            "error",
            f"The speech model could not be downloaded: {message}",
            [("Try again", lambda: self.start_download())],
        )

    def _on_finished(self) -> None:
        self.download = None
        self.progress_dialog = None
