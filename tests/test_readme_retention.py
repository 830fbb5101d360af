"""The README's sentence on journal retention says what the code does, in the CLI and the window."""

import re
from pathlib import Path

import pytest

from app.settings import JOURNAL_KEEP_DAYS
from engine import SessionSpec
from engine.cli.main import build_parser
from engine.files import paths
from engine.transcript.journal_folder import DEFAULT_KEEP_DAYS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_the_readme_states_the_default_retention_of_every_front_end():
    days = int(re.search(r"Journals are kept (\d+) days", README)[1])
    assert days == DEFAULT_KEEP_DAYS == SessionSpec().journal_keep_days == JOURNAL_KEEP_DAYS.default
    assert "Settings → Journal → Keep sessions" in README and "`--keep-days N` (or `forever`)" in README
    for command in ("listen", "recover"):
        assert f"`{command}`" in README
        args = build_parser().parse_args([command, "--keep-days", "forever"])
        assert args.keep_days is None  # forever: never deleted
        assert build_parser().parse_args([command]).keep_days == days


@pytest.mark.gui
def test_the_settings_path_the_readme_names_leads_to_the_retention_box(qtbot, tmp_path, monkeypatch):
    # Settings → Journal → Keep sessions, on the real dialog (offscreen), showing the default
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QLabel

    import app.dialogs.settings_pages as pages
    from app.dialogs.settings_dialog import SettingsDialog
    from app.settings import AppSettings
    from app.workers.sources import DeviceScan

    monkeypatch.setattr(pages, "scan_devices", lambda: DeviceScan([], None, []))  # no PortAudio here
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))
    dialog = SettingsDialog(AppSettings(QSettings(str(tmp_path / "livecap.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(dialog)
    tabs = [dialog.tabs.tabText(i).replace("&", "") for i in range(dialog.tabs.count())]
    page = dialog.tabs.widget(tabs.index("Journal"))
    labels = [
        label for label in page.findChildren(QLabel) if label.text().replace("&", "") == "Keep sessions:"
    ]
    assert len(labels) == 1
    box = labels[0].buddy()
    assert box is page.keep_days and box.text() == f"{DEFAULT_KEEP_DAYS} days"
