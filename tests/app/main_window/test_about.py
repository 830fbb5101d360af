"""Help → About in the captions window (offscreen Qt): the version, the licences of livecap and of
the models it ships, and where its files are."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from engine.about import LICENCE
from engine.version import __version__

pytestmark = [pytest.mark.gui]

ROOT = Path(__file__).resolve().parents[3]


def test_help_about_gives_the_version_the_licences_and_the_data_folder(
    make_window, qtbot, data_dir, settings
):
    window = make_window()
    [help_menu] = [a.menu() for a in window.menuBar().actions() if a.text() == "&Help"]
    [about] = [a for a in help_menu.actions() if a.text() == "&About livecap"]
    about.trigger()
    [box] = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    text = box.text()
    assert f"livecap {__version__}" in text
    assert str(data_dir) in text  # where the sessions, the history and the models are
    assert settings.store.fileName() in text
    for licence in ("GPL-3.0-or-later", "Apache-2.0", "MIT", "BSD-2-Clause"):
        assert licence in text
    assert str(Path("speaker") / "LICENSE") in text  # the speaker encoder's licence file, shipped
    box.accept()


def test_the_licence_about_states_is_the_one_the_package_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    assert declared == {"text": LICENCE}
