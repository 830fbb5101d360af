"""The settings dialog's model manager: the catalogue, what is installed, download and remove.

Each row's Status says what the models folder holds of it: Installed (loadable), Not installed
(only in the catalogue), Broken (a folder there that will not load: download it again or remove
it) or Downloading with its progress.

Downloads and removals act at once on the models folder; they are file
operations, not settings, so the dialog's Cancel does not undo them. A download
runs as a ``ModelDownload`` job behind a progress dialog with a Cancel button; its
outcome lands in the status line under the list, in the engine's own words, which say
what to do (offline, disk full, ...).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.dialogs.download_progress import DownloadProgressDialog
from app.theme import is_dark
from app.workers.download import ModelDownload
from engine import (
    CatalogueEntry,
    CatalogueError,
    InstalledModel,
    format_bytes,
    installed_models,
    load_catalogue,
    recognizer_models_dir,
    remove_model,
)

NAME_ROLE = Qt.ItemDataRole.UserRole
STATE_ROLE = Qt.ItemDataRole.UserRole + 1
# What the Status column says of a model, and what can be done with it.
INSTALLED, NOT_INSTALLED, BROKEN, DOWNLOADING = "Installed", "Not installed", "Broken", "Downloading"
STATUS_TIPS = {
    INSTALLED: "In the models folder and loadable: choose it as the model to use above.",
    NOT_INSTALLED: "In the catalogue: Download installs it.",
    BROKEN: "In the models folder, but it will not load: files are missing or damaged, or it was "
    "unpacked a folder too deep. Download it again (the broken copy is replaced) or remove it.",
    DOWNLOADING: "Being downloaded and installed now.",
}


class ModelsPanel(QWidget):
    installed_changed = Signal()  # a model was installed or removed
    download_progress = Signal(object, object)  # the running download's (done, total) bytes

    def __init__(
        self,
        entries: tuple[CatalogueEntry, ...] | None = None,
        models_dir: str | Path | None = None,
        cache_dir: str | Path | None = None,
        pool: QThreadPool | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.models_dir = Path(models_dir) if models_dir is not None else recognizer_models_dir()
        self.cache_dir, self._pool = cache_dir, pool
        self.download: ModelDownload | None = None
        self.progress_dialog: DownloadProgressDialog | None = None
        self._problem = ""
        if entries is None:
            try:
                entries = load_catalogue()
            except CatalogueError as exc:  # a packaging bug: say so, keep installed models usable
                entries, self._problem = (), f"The model catalogue is unreadable ({exc}); reinstall livecap."
        self.entries = {e.name: e for e in entries}

        self.filter = QLineEdit(placeholderText="Filter by name or language, e.g. “en-us” or “German”")
        self.filter.setAccessibleName("Filter speech models")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        filter_label = QLabel("&Find:")
        filter_label.setBuddy(self.filter)
        self.tree = QTreeWidget()
        self.tree.setAccessibleName("Speech models")
        self.tree.setHeaderLabels(["Model", "Language", "Size", "Status"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.currentItemChanged.connect(self._update_buttons)
        self.download_button = QPushButton("&Download")
        self.download_button.setAccessibleName("Download the selected speech model")
        self.download_button.clicked.connect(self.download_selected)
        self.remove_button = QPushButton("Re&move")
        self.remove_button.setAccessibleName("Remove the selected speech model")
        self.remove_button.clicked.connect(self.remove_selected)
        self.status = QLabel(self._problem, wordWrap=True)
        self.status.setAccessibleName("Speech model status")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        top = QHBoxLayout()
        top.addWidget(filter_label)
        top.addWidget(self.filter)
        buttons = QHBoxLayout()
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.tree)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.refresh()

    # -- listing ----------------------------------------------------------------------------

    def installed(self) -> list[InstalledModel]:
        return installed_models(self.models_dir)

    def installed_names(self) -> list[str]:
        return [m.name for m in self.installed()]

    def broken_names(self, installed: list[str] | None = None) -> list[str]:
        """Folders in the models folder that are not loadable models (what ``installed`` leaves
        out of them; hidden ones are the installer's own), sorted by name."""
        installed = set(self.installed_names() if installed is None else installed)
        try:
            children = sorted(self.models_dir.iterdir())
        except OSError:  # no models folder yet
            return []
        return [
            c.name for c in children if not c.name.startswith(".") and c.is_dir() and c.name not in installed
        ]

    def refresh(self) -> None:
        """Rebuild the list: installed models first, then broken ones, then the catalogue, keeping
        the selection; each row's Status says which."""
        keep = self.selected_name()
        installed = [m.name for m in self.installed()]
        states = dict.fromkeys(installed, INSTALLED)
        states.update(dict.fromkeys(self.broken_names(installed), BROKEN))
        states.update({name: NOT_INSTALLED for name in self.entries if name not in states})
        if self.download is not None and states.get(self.download.entry.name) != INSTALLED:
            states[self.download.entry.name] = DOWNLOADING
        self.tree.clear()
        for name, state in states.items():
            entry = self.entries.get(name)
            if entry is not None:
                item = QTreeWidgetItem([name, entry.lang_text, format_bytes(entry.size), ""])
            else:
                item = QTreeWidgetItem([name, "(added by hand)", "", ""])
            item.setData(0, NAME_ROLE, name)
            self._set_state(item, state)
            self.tree.addTopLevelItem(item)
        self._apply_filter(self.filter.text())
        if keep:
            self.select(keep)
        self._update_buttons()

    def _set_state(self, item: QTreeWidgetItem, state: str, text: str | None = None) -> None:
        item.setData(0, STATE_ROLE, state)
        item.setText(3, text or state)
        item.setToolTip(3, STATUS_TIPS[state])

    def _item(self, name: str) -> QTreeWidgetItem | None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, NAME_ROLE) == name:
                return item
        return None

    def select(self, name: str) -> bool:
        item = self._item(name)
        if item is None:
            return False
        item.setHidden(False)
        self.tree.setCurrentItem(item)
        return True

    def state(self, name: str) -> str | None:
        """The Status of ``name`` (``INSTALLED``, ``NOT_INSTALLED``, ``BROKEN``, ``DOWNLOADING``)."""
        item = self._item(name)
        return None if item is None else item.data(0, STATE_ROLE)

    def selected_name(self) -> str | None:
        item = self.tree.currentItem()
        return item.data(0, NAME_ROLE) if item is not None else None

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            entry = self.entries.get(item.data(0, NAME_ROLE))
            haystack = " ".join([item.text(0), item.text(1), entry.lang if entry else ""]).lower()
            item.setHidden(bool(needle) and needle not in haystack)

    def _update_buttons(self, *_) -> None:
        name = self.selected_name()
        busy = self.download is not None
        state = self.state(name) if name is not None else None
        # A broken copy can be downloaded over (the installer puts it aside) or removed.
        self.download_button.setEnabled(not busy and name in self.entries and state != INSTALLED)
        self.remove_button.setEnabled(not busy and state in (INSTALLED, BROKEN))

    # -- download ---------------------------------------------------------------------------

    def download_selected(self) -> ModelDownload | None:
        """Start downloading the selected catalogue model; returns the download (None if nothing to do)."""
        entry = self.entries.get(self.selected_name() or "")
        if entry is None or self.download is not None:
            return None
        replace = self.state(entry.name) == BROKEN
        download = self.download = ModelDownload(entry, self.models_dir, self.cache_dir, replace=replace)
        # Connected before it starts: a quick failure is not missed.
        download.progress.connect(self.download_progress)
        download.progress.connect(self._show_progress)
        download.done.connect(self._on_installed)
        download.failed.connect(self._on_failed)
        download.cancelled.connect(self._on_cancelled)
        download.note.connect(self._set_status)
        download.finished.connect(self._on_finished)
        self.progress_dialog = DownloadProgressDialog(download, self)
        self.progress_dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress_dialog.show()
        self._set_status(f"Downloading {entry.name}…")
        item = self._item(entry.name)
        if item is not None:
            self._set_state(item, DOWNLOADING, "Downloading…")
        self._update_buttons()
        return download.start(self._pool)

    def _show_progress(self, done: int, total: int) -> None:
        item = self._item(self.download.entry.name) if self.download is not None else None
        if item is not None:
            share = f" {100 * done // total} %" if total else ""
            self._set_state(item, DOWNLOADING, f"Downloading…{share}")

    def cancel_download(self) -> None:
        if self.download is not None:
            self.download.cancel()

    def _on_installed(self, path: str) -> None:
        name = Path(path).name
        self.refresh()
        self.select(name)
        self._set_status(f"Installed {name}. Choose it as the model above to use it.")
        self.installed_changed.emit()

    def _on_failed(self, message: str) -> None:
        self._set_status(f"Download failed: {message}", error=True)

    def _on_cancelled(self) -> None:
        self._set_status(
            "Download cancelled. The part already downloaded is kept: downloading again resumes it."
        )

    def _on_finished(self) -> None:
        self.download = None
        self.progress_dialog = None
        self.refresh()  # failed or cancelled: the row says what is there again

    # -- remove -----------------------------------------------------------------------------

    def confirm(self, title: str, text: str) -> bool:
        """Ask yes/no (a method so tests can answer without a modal dialog)."""
        answer = QMessageBox.question(
            self,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def remove_selected(self) -> bool:
        name = self.selected_name()
        if name is None or self.state(name) not in (INSTALLED, BROKEN) or self.download is not None:
            return False
        if not self.confirm(
            "Remove speech model",
            f"Delete {name} from {self.models_dir}?\n\nYou can download it again later.",
        ):
            return False
        try:
            removed = remove_model(name, self.models_dir)
        except (OSError, ValueError) as exc:
            self._set_status(f"Could not remove {name}: {getattr(exc, 'strerror', None) or exc}.", error=True)
            return False
        self.refresh()
        self._set_status(f"Removed {name}." if removed else f"{name} was already gone.")
        self.installed_changed.emit()
        return removed

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        # Colour is a hint only; the words say "failed" too, for people who cannot see red.
        red = "#ff8a80" if is_dark(self.palette()) else "#b3261e"  # readable on either scheme
        self.status.setStyleSheet(f"color: {red};" if error else "")
