"""The settings dialog's Dictation page: the spoken commands obeyed while typing into other apps.

Each command is off by default: a user who says "new line" in a sentence should get those words
typed, unless they asked for the command.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QWidget

from app import settings as keys
from app.dialogs.settings_pages import Controls, SettingsPage, _hint
from engine import SPOKEN_COMMANDS

WHAT_THEY_DO = {
    "new line": "“new line” starts a new line",
    "new paragraph": "“new paragraph” leaves an empty line",
    "scratch that": "“scratch that” deletes the sentence typed last, while it is the last thing typed",
}


class DictationPage(SettingsPage):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.boxes = {name: QCheckBox(WHAT_THEY_DO[name]) for name in SPOKEN_COMMANDS}
        form = QFormLayout(self)
        form.addRow(
            "",
            _hint(
                "Captions → Type into other apps types your settled words, with their punctuation "
                "and capitals, where the cursor is. To switch it from any app, bind a key to "
                "the command: livecap dictate --toggle"
            ),
        )
        for i, (name, box) in enumerate(self.boxes.items()):
            box.setAccessibleName(f"Spoken command {name}")
            form.addRow("Spoken commands:" if i == 0 else "", box)

    def controls(self) -> Controls:
        return {keys.DICTATION_COMMANDS: (self._read, self._write)}

    def _read(self) -> str:
        return ",".join(name for name, box in self.boxes.items() if box.isChecked())

    def _write(self, value) -> None:
        chosen = {c.strip() for c in str(value or "").split(",")}
        for name, box in self.boxes.items():
            box.setChecked(name in chosen)
