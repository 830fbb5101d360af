"""Fixtures for the languages' tests: the captions window's (``tests/app/main_window``), and the
language pack said to be installed or missing."""

import pytest

import engine
from tests.app.main_window.conftest import data_dir, make_window, settings, window  # noqa: F401


@pytest.fixture
def pack(monkeypatch):
    """Say the language pack is installed (``pack(False)``: missing), whether it is here or not."""

    def say(installed: bool = True, reason: str = "") -> None:
        status = engine.LanguagePackStatus(installed, installed, None, reason)
        monkeypatch.setattr(engine, "language_pack_status", lambda: status)

    say(True)
    return say
