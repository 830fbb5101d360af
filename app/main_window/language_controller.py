"""The captions window's languages: what language a session hears, whether its captions are an
English translation, and saying so.

Settings → Recognition → Language (``keys.LANGUAGE``) is "en" (Whisper tiny.en, English only, as
livecap always did), a language's ISO code ("de": Whisper base hears German) or "auto" (Whisper
base, the language detected on the first seconds of speech); ``keys.TRANSLATE`` makes Whisper base
write English captions of speech in another language. The other languages need the language pack
(``pip install 'livecap[languages]'``): without it the choices say so, and Start is not where the
user finds out.

While a session runs the status bar holds the language line ("Whisper base · German (detected) →
English captions"); once the language is detected (``LanguageDetected``, forwarded by the bridge as
``language_detected``) a "Not German? Choose…" button offers the other languages, and choosing one
restarts the session in it (the first seconds, in the wrong language, stay in the journal and the
History). A translation is labelled as one in the status bar and the window title.

In a meeting each side's stream tells its own language, and the line names each side's ("Whisper
base · Others: German (detected), Me: English (detected)"), the others' first: theirs is the
meeting's language, the one the override, the translation label and the exports go by.

The choices, the language pack's line and the menu of them are ``app.languages``', shared with the
overlay and the settings dialog.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QMenu, QPushButton, QWidget

from app import settings as keys
from app.languages import AUTO, ENGLISH, fill_menu, language_changes, language_name, pack_problem
from app.settings import AppSettings
from engine import RecognitionChoice

TITLE = "livecap — live captions"


def model_label(language: str) -> str:
    """The Whisper model the engine's plan runs for ``language`` (``RecognitionChoice``)."""
    return "Whisper base" if RecognitionChoice(language=language).uses_language_pack else "Whisper tiny.en"


def status_line(language: str, translate: bool, detected: str | None = None, sides=None) -> str:
    """The status bar's language line: the model and the language ("Whisper base · German"), the
    detected one marked so, and "→ English captions" when Whisper translates. ``sides``: in a
    meeting, the language each side's stream detected so far, by speaker id ({"others": "de"}),
    named instead of ``detected``, the others' side first."""
    if language == ENGLISH:
        return f"{model_label(ENGLISH)} · English"
    if language == AUTO and sides:
        from engine import SPEAKER_OTHERS, SpeakerNames

        names = SpeakerNames()
        first = sorted(sides, key=lambda side: side != SPEAKER_OTHERS)  # the meeting's language first
        spoken = ", ".join(f"{names.name(side)}: {language_name(sides[side])} (detected)" for side in first)
    elif language == AUTO:
        spoken = f"{language_name(detected)} (detected)" if detected else "detecting the language…"
    else:
        spoken = language_name(language)
    return f"{model_label(language)} · {spoken}" + (" → English captions" if translate else "")


def translation_label(language: str, translate: bool, detected: str | None = None) -> str:
    """ "Translated to English from German" while the captions are a translation, else ""."""
    if not translate or language == ENGLISH:
        return ""
    spoken = detected if language == AUTO else language
    if spoken and spoken.split("-")[0].lower() == ENGLISH:
        return ""  # English heard: nothing to translate
    return f"Translated to English from {language_name(spoken)}" if spoken else "Translated to English"


class LanguageController(QObject):
    """The window's language line and override button, and the choices as a menu."""

    # The language settings changed: the window restarts a running session in the new language
    # (or, idle, loads its recognizer so that Start is instant).
    restart_requested = Signal()

    def __init__(self, settings: AppSettings, window: QWidget):
        super().__init__(window)
        self.settings, self.window = settings, window
        # The language detected in the running session: in a meeting, the others' side's.
        self.detected: str | None = None
        self.sides: dict[str, str] = {}  # a meeting's: each side's detected language, by speaker id
        self.running = False
        self.label = QLabel()
        self.label.setAccessibleName("Language")
        self.override = QPushButton()
        self.override.setAccessibleName("Choose the spoken language")
        self.override.setFlat(True)
        self.override.clicked.connect(self.show_choices)
        self.override.hide()
        self.menu: QMenu | None = None
        language_changes.changed.connect(self._on_menu_change)
        self.refresh()

    # -- what a session is built with ------------------------------------------------------------
    @property
    def choice(self) -> RecognitionChoice:
        """The language settings as the engine takes them (English speech has nothing to
        translate); English for a language it does not know (a hand-edited setting)."""
        translate = bool(self.settings.get(keys.TRANSLATE))
        try:
            return RecognitionChoice(
                language=self.settings.get(keys.LANGUAGE) or ENGLISH, translate=translate
            )
        except ValueError:
            return RecognitionChoice(translate=translate)

    @property
    def language(self) -> str:
        return self.choice.language

    @property
    def translate(self) -> bool:
        return self.choice.translate

    def spec_fields(self) -> dict:
        """``SessionSpec``'s language fields, from the settings."""
        choice = self.choice
        return {"language": choice.language, "translate": choice.translate}

    def pack_missing(self, banners) -> bool:
        """Whether the language chosen needs the language pack and it is missing: then the banner
        says the way out (``banners``: the window's ``BannerArea``), and Start waits for it."""
        problem = pack_problem() if self.choice.uses_language_pack else ""
        if problem:
            banners.show_banner("error", "error", problem)
        return bool(problem)

    # -- what the window shows --------------------------------------------------------------------
    def line(self) -> str:
        return status_line(self.language, self.translate, self.detected, self.sides)

    def translation(self) -> str:
        return translation_label(self.language, self.translate, self.detected)

    def refresh(self) -> None:
        """The language line, the translation label in the title, the override button."""
        translation = self.translation()
        line = self.line()
        self.label.setText(f"{line}. {translation}" if translation and self.running else line)
        self.label.setToolTip("Settings → Recognition → Language chooses the language")
        self.window.setWindowTitle(f"{TITLE} · {translation}" if translation and self.running else TITLE)
        if self.detected and self.running:
            self.override.setText(f"Not {language_name(self.detected)}? Choose…")
            self.override.show()
        else:
            self.override.hide()

    def on_state(self, running: bool) -> None:
        if running != self.running:
            self.running = running
            if not running:
                self.detected, self.sides = None, {}
        self.refresh()

    def on_ready(self, info) -> None:
        """A session's ``RecognizerInfo``: the language it hears, once known."""
        language = getattr(info, "language", None)
        if self.running and self.language == AUTO and language:
            self.detected = language
        self.refresh()

    def on_detected(self, language: str, probability: float = 1.0, speaker: str | None = None) -> None:
        """``LanguageDetected``: show it, and offer to choose another. ``speaker``: the meeting's
        side it was heard on (None: a one-source session); the others' is the meeting's language."""
        from engine import SPEAKER_OTHERS, SpeakerNames

        if speaker is not None:
            self.sides[speaker] = language
        if speaker is None or speaker == SPEAKER_OTHERS:
            self.detected = language
        self.running = True
        self.refresh()
        sure = f" ({probability:.0%} sure)" if probability else ""
        told = f"{language_name(language)}{sure}"
        side = SpeakerNames().name(speaker) if speaker else ""
        self.label.setAccessibleDescription(f"{side}: detected {told}" if side else f"Detected {told}")

    # -- choosing ---------------------------------------------------------------------------------
    def build_menu(self, parent: QWidget | None = None, title: str = "&Language") -> QMenu:
        """The choices (ticked: the current one), and the translate toggle."""
        menu = QMenu(title, parent)
        fill_menu(menu, self.settings)
        return menu

    def show_choices(self) -> QMenu:
        """The override: the language choices under the button."""
        self.menu = self.build_menu(self.window)
        self.menu.popup(self.override.mapToGlobal(self.override.rect().bottomLeft()))
        return self.menu

    def settings_changed(self, names) -> None:
        """Settings changed elsewhere (the dialog, a menu): a running session restarts in the
        language chosen, an idle window shows what the next Start uses."""
        names = {getattr(n, "name", n) for n in names}
        if names & {keys.LANGUAGE.name, keys.TRANSLATE.name}:
            self._on_menu_change(self.settings)

    def _on_menu_change(self, settings) -> None:
        if settings is not self.settings:
            return
        self.detected, self.sides = None, {}
        self.refresh()
        self.restart_requested.emit()


def restart_in_language(window) -> None:
    """Run ``window``'s session (a ``CaptionWindow``) again in the language now chosen: a running
    one stops and starts again once its text is shown (the seconds heard in the wrong language stay
    in the journal and the History); an idle window loads the recognizer, so Start is instant."""
    from app.workers.session_bridge import IDLE, PAUSED, RUNNING

    state = window.bridge.state
    if state == IDLE:
        window.preload()
        return
    if state not in (RUNNING, PAUSED):
        return

    def again() -> None:
        window.session_done.disconnect(again)
        window.text.mark_saved()  # kept in the journal: starting again must not ask to discard it
        window.start()

    window.session_done.connect(again)
    window.bridge.stop()
    window.statusBar().showMessage("Starting again in the language chosen…")
