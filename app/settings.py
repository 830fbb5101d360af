"""The app's persistent settings: one typed view over QSettings.

Every window reads and writes settings through ``AppSettings`` so that a key
is spelled once, has one default, and one type. QSettings stores strings on
some platforms; the typed getters convert back and fall back to the default
when a stored value is unusable (a hand-edited or older config must never
stop the app from starting).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSettings

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)

ORGANISATION = "livecap"
APPLICATION = "livecap"


@dataclass(frozen=True)
class Key:
    name: str
    default: Any


# Recognition
RECOGNIZER = Key("recognition/recognizer", "auto")  # one of the engine's RECOGNIZER_CHOICES
# Whose marks and capitals: "auto" (the better for the recognizer), "engine", "recognizer" (Whisper's)
MARKS = Key("recognition/marks", "auto")
# The recognizer's model (Vosk's or a Whisper folder): catalogue name or folder path; "" = the default
RECOGNIZER_MODEL = Key("recognition/model", "")
# The spoken language: "en" (Whisper tiny.en, English only), an ISO code ("de": Whisper base in that
# language) or "auto" (Whisper base, the language detected on the first seconds of speech)
LANGUAGE = Key("recognition/language", "en")
# Speed or accuracy: which Whisper captions English, one of the engine's ``Accuracy`` values
ACCURACY = Key("recognition/accuracy", "auto")
TRANSLATE = Key("recognition/translate", False)  # Whisper base writes English captions of another language
# "mic" | "system" | "app" (one application's sound) | "meeting" (the microphone beside the
# others' side, MEETING_OTHERS); "file" is never stored, but an older version could leave it
SOURCE_KIND = Key("audio/source_kind", "mic")
INPUT_DEVICE = Key("audio/input_device", "")  # device name; "" = the system default
MONITOR_DEVICE = Key("audio/monitor_device", "")  # PulseAudio monitor source name; "" = default sink's
AUDIO_APPLICATION = Key("audio/application", "")  # the application recorded ("app", a meeting's "app" side)
MEETING_OTHERS = Key("audio/meeting_others", "system")  # a meeting's others: "system" | "app"

# Speakers in a meeting: the names shown for each side ("" = the default name)
ME_NAME = Key("speakers/me", "Me")
OTHERS_NAME = Key("speakers/others", "Others")
# The voices told apart among the others ("others:1"...): a rename each, "" = the default
# ("Others" for the first voice, "Others N" after it)
VOICE_NAMES = tuple(Key(f"speakers/others_{n}", "") for n in (1, 2, 3))
# A meeting's echo guard: hide the Me words that may be the others heard again (off: a headset)
ECHO_GUARD = Key("speakers/echo_guard", True)

# Punctuation
LATENCY = Key("punctuation/latency", 50)  # slider 0 (fastest) .. 100 (most accurate)
# Seconds; 0 disables [PAUSE]. Until the user sets it, sessions use the model's own (its config.json):
# the default here is only what the settings page shows then.
PAUSE_THRESHOLD = Key("punctuation/pause_threshold", 0.28)
CASING = Key("punctuation/casing", True)
PROFANITY_MASK = Key("display/profanity_mask", False)

# Journal
JOURNAL_DIR = Key("journal/folder", "")  # "" = the per-user data directory
JOURNAL_KEEP_DAYS = Key("journal/keep_days", 30)  # closed sessions kept this many days; 0 = forever

# Overlay
OVERLAY_VISIBLE = Key("overlay/visible", False)
OVERLAY_LINES = Key("overlay/lines", 2)  # 1..4
OVERLAY_FONT_SIZE = Key("overlay/font_size", 28)  # points
OVERLAY_OPACITY = Key("overlay/background_opacity", 0.65)  # 0..1
OVERLAY_CLICK_THROUGH = Key("overlay/click_through", False)

# Captions window
WINDOW_FONT_SIZE = Key("window/font_size", 20)

# Dictation: the spoken commands obeyed while typing into other apps, comma-separated
# ("new line", "new paragraph", "scratch that"); none by default.
DICTATION_COMMANDS = Key("dictation/commands", "")

ALL_KEYS = [v for v in list(globals().values()) if isinstance(v, Key)] + list(VOICE_NAMES)

# Keys stored under another name by an earlier version: the old name -> the key now. The first time
# the settings are opened the stored value moves to the new name and the old name goes, so a choice
# the user made survives the rename (a value already under the new name wins).
RENAMED = {"recognition/vosk_model": RECOGNIZER_MODEL}


class AppSettings:
    """Typed access to the app's QSettings. Pass a QSettings (e.g. an INI file in a
    temporary folder) in tests; the default is the per-user native store."""

    def __init__(self, store: QSettings | None = None):
        self.store = store if store is not None else QSettings(ORGANISATION, APPLICATION)
        self._move_renamed_keys()

    def _move_renamed_keys(self) -> None:
        for old, key in RENAMED.items():
            if self.store.contains(old):
                if not self.store.contains(key.name):
                    self.store.setValue(key.name, self.store.value(old))
                self.store.remove(old)

    def get(self, key: Key) -> Any:
        raw = self.store.value(key.name, key.default)
        return _coerce(raw, key.default)

    def set(self, key: Key, value: Any) -> None:
        self.store.setValue(key.name, _coerce(value, key.default))

    def is_set(self, key: Key) -> bool:
        """Whether the user ever set ``key`` (else ``get`` gives its default)."""
        return self.store.contains(key.name)

    def reset(self, key: Key) -> None:
        self.store.remove(key.name)

    def sync(self) -> None:
        self.store.sync()

    # Values keyed by something more than a constant (e.g. the overlay's geometry per screen).
    def get_raw(self, name: str, default: Any = None) -> Any:
        return self.store.value(name, default)

    def set_raw(self, name: str, value: Any) -> None:
        self.store.setValue(name, value)


def speaker_names(settings: AppSettings):
    """The names shown for a meeting's speakers (``engine.SpeakerNames``), as the user set them."""
    from engine import SpeakerNames, others_voice

    renamed = {others_voice(n): settings.get(key) for n, key in enumerate(VOICE_NAMES, 1)}
    return SpeakerNames(
        me=settings.get(ME_NAME).strip() or ME_NAME.default,
        others=settings.get(OTHERS_NAME).strip() or OTHERS_NAME.default,
        renamed={speaker: name for speaker, name in renamed.items() if name.strip()},
    )


def _coerce(value: Any, default: Any) -> Any:
    """Convert a stored value to the default's type; the default when that fails."""
    if value is None:
        return default
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if isinstance(default, int):
            return int(float(value))
        if isinstance(default, float):
            return float(value)
        if isinstance(default, str):
            return str(value)
    except (TypeError, ValueError):
        return default
    return value
