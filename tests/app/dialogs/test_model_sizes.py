"""A model's size reads the same in the settings dialog's model list and in ``livecap models
list``: megabytes of 10^6 bytes, from the engine's one ``format_bytes``."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engine.cli.main import main
from engine.files import paths
from engine.files.sizes import format_bytes

pytestmark = [pytest.mark.gui]

MODEL = "vosk-model-small-ar-0.3"  # 104,351,896 bytes: upstream lists it as "99.5MiB"


def test_the_window_and_the_command_line_give_a_models_size_alike(qtbot, tmp_path, monkeypatch, capsys):
    from app.dialogs.models_panel import ModelsPanel

    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))  # no model installed
    assert main(["models", "list", "--lang", "ar"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if MODEL in line]
    panel = ModelsPanel(models_dir=tmp_path / "models")
    qtbot.addWidget(panel)
    shown = panel.tree.findItems(MODEL, Qt.MatchFlag.MatchExactly, 0)
    assert [item.text(2) for item in shown] == ["104 MB"]
    assert " 104 MB " in row


@pytest.mark.parametrize(
    "size, text", [(0, "0.0 MB"), (309_248, "0.3 MB"), (8_456_000, "8.5 MB"), (1_933_000_000, "1,933 MB")]
)
def test_sizes_are_megabytes_of_a_million_bytes(size, text):
    assert format_bytes(size) == text
