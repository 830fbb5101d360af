"""The settings dialog's Recognition page: which recognizer, which Vosk model, and the model
manager (``ModelsPanel``) to download and remove models.

Its own module because it is the one page built around another widget (the model manager)
and the one whose check reads what is installed on disk.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from app import settings as keys
from app.dialogs.language_choice import LanguageChoice
from app.dialogs.models_panel import ModelsPanel
from app.dialogs.page_base import Controls, Problem, SettingsPage, _combo, _select
from engine import MARK_CHOICES, MARK_LABELS, RECOGNIZER_KINDS, Accuracy


class RecognitionPage(SettingsPage):
    """The recognizer, the Vosk model to use, and the model manager (``ModelsPanel``)."""

    def __init__(self, models: ModelsPanel, parent: QWidget | None = None):
        super().__init__(parent)
        self.models = models
        self.recognizer = _combo(
            "Speech recognizer",
            [("Automatic: Vosk if a model is installed, else Whisper", "auto")]
            + [(kind.label, kind.name) for kind in RECOGNIZER_KINDS],
        )
        self.marks = _combo("Punctuation and capitals", [(MARK_LABELS[m], m) for m in MARK_CHOICES])
        self.accuracy = _combo("Speed or accuracy", [(a.label, a.value) for a in Accuracy])
        self.model_choice = _combo("Vosk model to use")
        self.languages = LanguageChoice()
        self.refresh_model_choice()
        form = QFormLayout()
        form.addRow("Recogni&zer:", self.recognizer)
        form.addRow("Model &to use:", self.model_choice)
        form.addRow("Speed or &accuracy:", self.accuracy)
        form.addRow("&Punctuation:", self.marks)
        self.languages.add_rows(form)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Vosk speech models (downloads and removals take effect at once):"))
        layout.addWidget(models)
        models.installed_changed.connect(self.refresh_model_choice)

    def controls(self) -> Controls:
        return {
            keys.RECOGNIZER: (self.recognizer.currentData, lambda v: _select(self.recognizer, v)),
            keys.MARKS: (self.marks.currentData, lambda v: _select(self.marks, v)),
            keys.ACCURACY: (self.accuracy.currentData, lambda v: _select(self.accuracy, v)),
            keys.RECOGNIZER_MODEL: (
                self.model_choice.currentData,
                lambda v: _select(self.model_choice, v, f"{v} (not installed)"),
            ),
            **self.languages.controls(),
        }

    def validate(self) -> Problem | None:
        problem = self.languages.validate()
        if problem is not None:
            return problem
        model, installed = self.model_choice.currentData(), self.models.installed_names()
        chosen = next((k for k in RECOGNIZER_KINDS if k.name == self.recognizer.currentData()), None)
        # The model choice lists the catalogue's models: it matters to the kinds that download them.
        if chosen is None or chosen.downloads_models:
            if model and model not in installed and not Path(model).expanduser().is_dir():
                return self.model_choice, (
                    f"The Vosk model {model} is not installed. Download it on the "
                    "Recognition page, or choose another model."
                )
            if chosen is not None and not chosen.built_in_model and not model and not installed:
                return self.recognizer, (
                    f"{chosen.title} needs a speech model and none is installed. Download one "
                    "below (the small English one is 40 MB), or choose Automatic."
                )
        return None

    def refresh_model_choice(self) -> None:
        """List the installed models (after a download or a removal), keeping the choice."""
        current = self.model_choice.currentData() if self.model_choice.count() else None
        installed = self.models.installed_names()
        self.model_choice.clear()
        self.model_choice.addItem("Automatic: the first installed model", "")
        for name in installed:
            self.model_choice.addItem(name, name)
        if current is not None:
            _select(
                self.model_choice, current, None if current in installed else f"{current} (not installed)"
            )
