"""The settings dialog's Meeting page: the names a meeting's speakers are shown by, and how echo
is handled.

In a meeting (Source → "Meeting: microphone + …") every word is labelled with who spoke: you
(the microphone) or the others (the system audio, or one application's). The names given here
are what the captions, the overlay and exports show; a name left empty shows the default.

Echo: without a headset the microphone hears the others through the speakers. The page shows
the running meeting's own line (``RecognizerInfo.echo``, handed in by the window with
``show_echo``); with no meeting running it says what livecap will do. The echo guard can be
turned off here (a headset): the window's notice of words hidden as possible echo points here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit, QWidget

from app import settings as keys
from app.dialogs.settings_pages import Controls, SettingsPage, _hint
from engine import SpeakerNames, others_voice

ECHO_WITHOUT_MEETING = (
    "PulseAudio's echo canceller is used when the sound server has it; the echo guard, while on, "
    "hides the others' words that the microphone hears again. With a headset there is no echo."
)
MAX_NAME = 40  # letters: a name starts caption lines, it must not fill them


def _name_field(accessible: str, placeholder: str) -> QLineEdit:
    field = QLineEdit(placeholderText=placeholder, maxLength=MAX_NAME, clearButtonEnabled=True)
    field.setAccessibleName(accessible)
    return field


class MeetingPage(SettingsPage):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.me = _name_field("Your name in a meeting", keys.ME_NAME.default)
        self.others = _name_field("The others' name in a meeting", keys.OTHERS_NAME.default)
        default = SpeakerNames(others=keys.OTHERS_NAME.default)  # the first voice: "Others"
        self.voices = [
            _name_field(f"Name of others' voice {n}", default.name(others_voice(n)))
            for n in range(1, len(keys.VOICE_NAMES) + 1)
        ]
        self.echo_guard = QCheckBox("&Hide my words that may be the others heard again (echo guard)")
        self.echo_guard.setAccessibleName("Hide words that may be the others' echo")
        self.echo = QLabel(ECHO_WITHOUT_MEETING, wordWrap=True)
        self.echo.setAccessibleName("Echo handling")
        self.echo.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout(self)
        form.addRow(
            "",
            _hint(
                "Choose “Meeting: microphone + …” as the source to caption a call: your "
                "words and the others' are labelled with these names, in the captions, the "
                "overlay and exports. Empty: the default name."
            ),
        )
        form.addRow("&You:", self.me)
        form.addRow("&The others:", self.others)
        for n, field in enumerate(self.voices, 1):
            form.addRow(f"Others' voice &{n}:", field)
        form.addRow(
            "",
            _hint(
                "The first voice among the others is shown by their name; the voices heard after "
                "it are numbered from 2, in the order they speak."
            ),
        )
        form.addRow("Echo:", self.echo)
        form.addRow("", self.echo_guard)
        form.addRow(
            "",
            _hint(
                "Without a headset the microphone hears the others through the speakers. The guard "
                "hides what it takes for their echo, and may hide your words said over theirs: the "
                "window says how many, and the session's journal keeps them. With a headset there "
                "is no echo: turn it off."
            ),
        )

    def controls(self) -> Controls:
        fields = [(keys.ME_NAME, self.me), (keys.OTHERS_NAME, self.others)]
        fields += list(zip(keys.VOICE_NAMES, self.voices))
        controls = {key: (self._reader(field, key), self._writer(field, key)) for key, field in fields}
        controls[keys.ECHO_GUARD] = (self.echo_guard.isChecked, self.echo_guard.setChecked)
        return controls

    def show_echo(self, line: str) -> None:
        """The running meeting's echo handling (``RecognizerInfo.echo``); "" with none running."""
        self.echo.setText(f"This meeting: {line}" if line else ECHO_WITHOUT_MEETING)
        self.echo.setAccessibleDescription(self.echo.text())

    @staticmethod
    def _reader(field: QLineEdit, key: keys.Key):
        # An empty field is the default name: stored as the key's default, so it compares equal.
        return lambda: field.text().strip() or key.default

    @staticmethod
    def _writer(field: QLineEdit, key: keys.Key):
        return lambda value: field.setText("" if str(value).strip() == key.default else str(value))
