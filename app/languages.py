"""The spoken languages a user can choose, and choosing one: the choices (English with Whisper
tiny.en, Automatic, each language Whisper base knows), whether the language pack they need is
there, the settings a choice writes, and the menu of them that the captions window's override and
the overlay's Language submenu both show (the settings dialog lists the same choices,
``dialogs.language_choice``). A choice made in a menu is announced (``language_changes``), so the
window applies it as it does the settings dialog's.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from app import settings as keys
from app.settings import AppSettings
from engine import AUTO_LANGUAGE as AUTO
from engine import ENGLISH_LANGUAGE as ENGLISH

__all__ = [
    "AUTO",
    "ENGLISH",
    "INSTALL",
    "LanguageChanges",
    "choices",
    "choose_language",
    "choose_translate",
    "fill_menu",
    "language_changes",
    "language_name",
    "languages",
    "pack_note",
    "pack_problem",
]

INSTALL = "pip install 'livecap[languages]'"


def languages() -> dict[str, str]:
    """ISO code -> English name of every language Whisper base can caption (``engine.LANGUAGES``)."""
    from engine import LANGUAGES

    return dict(LANGUAGES)


def language_name(code: str | None) -> str:
    """A language's English name ("de" -> "German"); the code itself when it is not listed."""
    if not code:
        return ""
    base = code.split("-")[0].lower()
    return "English" if base == ENGLISH else languages().get(base, code)


def pack_problem() -> str:
    """One line when the language pack is missing (what the other languages need), else ""."""
    from engine import language_pack_status

    try:
        status = language_pack_status()
    except Exception as exc:  # a broken pack must not stop the settings from opening
        return f"The language pack cannot be read ({exc}). Install it again: {INSTALL}"
    if status.installed:
        return ""
    reason = f" ({status.reason})" if status.reason and INSTALL not in status.reason else ""
    return f"Other languages need the language pack{reason}. Install it with: {INSTALL}"


def pack_note() -> str:
    """One line when the pack is installed but not yet unpacked (the first Start in another
    language unpacks it, and takes longer), else ""."""
    from engine import language_pack_status

    try:
        status = language_pack_status()
    except Exception:  # pack_problem says it
        return ""
    if status.installed and not status.joined:
        return (
            "The language pack is unpacked the first time another language is used: that Start takes longer."
        )
    return ""


def choices(installed: bool = True) -> list[tuple[str, str]]:
    """(label, setting) for each choice: English, Automatic, then each language by name; without
    the pack each choice but English says it is not installed."""
    missing = "" if installed else " — needs the language pack"
    named = sorted((name, code) for code, name in languages().items() if code != ENGLISH)
    return [("English (Whisper tiny.en)", ENGLISH), (f"Automatic: detect the language{missing}", AUTO)] + [
        (f"{name}{missing}", code) for name, code in named
    ]


class LanguageChanges(QObject):
    """Says that a menu changed the language settings (``fill_menu``: the window's override, the
    overlay's Language submenu), so the window applies them as it does the settings dialog's."""

    changed = Signal(object)  # the AppSettings changed


language_changes = LanguageChanges()


def choose_language(settings: AppSettings, code: str) -> None:
    if code != (settings.get(keys.LANGUAGE) or ENGLISH):
        settings.set(keys.LANGUAGE, code)
        settings.sync()
        language_changes.changed.emit(settings)


def choose_translate(settings: AppSettings, on: bool) -> None:
    if bool(on) != bool(settings.get(keys.TRANSLATE)):
        settings.set(keys.TRANSLATE, bool(on))
        settings.sync()
        language_changes.changed.emit(settings)


def fill_menu(menu: QMenu, settings: AppSettings) -> None:
    """Add the language choices and the translate toggle to ``menu`` (the window's override, the
    overlay's Language submenu); actions have object names for tests ("language-de",
    "translate")."""
    problem = pack_problem()
    if problem:
        note = menu.addAction(problem)
        note.setObjectName("language-pack")
        note.setEnabled(False)
    current = settings.get(keys.LANGUAGE) or ENGLISH
    group = QActionGroup(menu)
    for label, code in choices(installed=not problem):
        action = QAction(label.replace("&", "&&"), menu)
        action.setObjectName(f"language-{code}")
        action.setCheckable(True)
        action.setChecked(code == current)
        action.setEnabled(code == ENGLISH or not problem)
        action.setActionGroup(group)
        action.triggered.connect(lambda _checked=False, c=code: choose_language(settings, c))
        menu.addAction(action)
    menu.addSeparator()
    translate = menu.addAction("Captions in &English (translate)")
    translate.setObjectName("translate")
    translate.setCheckable(True)
    translate.setChecked(bool(settings.get(keys.TRANSLATE)))
    translate.setEnabled(current != ENGLISH and not problem)
    translate.toggled.connect(lambda on: choose_translate(settings, on))
