"""The settings dialog's model manager: the catalogue, what is installed, download and remove.

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
    installed_models,
    load_catalogue,
    remove_model,
    vosk_models_dir,
)

NAME_ROLE = Qt.ItemDataRole.UserRole


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
        self.models_dir = Path(models_dir) if models_dir is not None else vosk_models_dir()
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

    def refresh(self) -> None:
        """Rebuild the list: installed models first, then the catalogue, keeping the selection."""
        keep = self.selected_name()
        installed = {m.name: m for m in self.installed()}
        self.tree.clear()
        rows = [(name, self.entries.get(name)) for name in installed]
        rows += [(e.name, e) for e in self.entries.values() if e.name not in installed]
        for name, entry in rows:
            if entry is not None:
                item = QTreeWidgetItem([name, entry.lang_text, entry.size_text, ""])
            else:
                item = QTreeWidgetItem([name, "(added by hand)", "", ""])
            item.setText(3, "Installed" if name in installed else "")
            item.setData(0, NAME_ROLE, name)
            self.tree.addTopLevelItem(item)
        self._apply_filter(self.filter.text())
        if keep:
            self.select(keep)
        self._update_buttons()

    def select(self, name: str) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, NAME_ROLE) == name:
                item.setHidden(False)
                self.tree.setCurrentItem(item)
                return True
        return False

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
        installed = name is not None and self.tree.currentItem().text(3) == "Installed"
        self.download_button.setEnabled(not busy and name in self.entries and not installed)
        self.remove_button.setEnabled(not busy and installed)

    # -- download ---------------------------------------------------------------------------

    def download_selected(self) -> ModelDownload | None:
        """Start downloading the selected catalogue model; returns the download (None if nothing to do)."""
        entry = self.entries.get(self.selected_name() or "")
        if entry is None or self.download is not None:
            return None
        download = self.download = ModelDownload(entry, self.models_dir, self.cache_dir)
        # Connected before it starts: a quick failure is not missed.
        download.progress.connect(self.download_progress)
        download.done.connect(self._on_installed)
        download.failed.connect(self._on_failed)
        download.cancelled.connect(self._on_cancelled)
        download.note.connect(self._set_status)
        download.finished.connect(self._on_finished)
        self.progress_dialog = DownloadProgressDialog(download, self)
        self.progress_dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress_dialog.show()
        self._set_status(f"Downloading {entry.name}…")
        self._update_buttons()
        return download.start(self._pool)

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
        self._update_buttons()

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
        if name is None or name not in self.installed_names() or self.download is not None:
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
