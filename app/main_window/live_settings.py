"""Settings changed while the captions window is open (in the settings dialog): which ones
take effect at once, on which part of the window, and which wait for the next session."""

from __future__ import annotations

from app import settings as keys
from app.settings import speaker_names
from app.workers.session_bridge import IDLE

SOURCE = (
    keys.SOURCE_KIND,
    keys.INPUT_DEVICE,
    keys.MONITOR_DEVICE,
    keys.AUDIO_APPLICATION,
    keys.MEETING_OTHERS,
)
SPEAKER_NAMES = (keys.ME_NAME, keys.OTHERS_NAME, *keys.VOICE_NAMES)
RECOGNITION = (keys.RECOGNIZER, keys.RECOGNIZER_MODEL, keys.MARKS, keys.ACCURACY)
# What a running session cannot take up: it applies from the next Start.
NEXT_SESSION = (
    (keys.CASING, keys.PAUSE_THRESHOLD, keys.JOURNAL_DIR, keys.JOURNAL_KEEP_DAYS) + RECOGNITION + SOURCE
)


def apply_live(window, names) -> None:
    """Apply the settings named (``Key.name`` or ``Key``) to ``window``, a ``CaptionWindow``."""
    names = {getattr(n, "name", n) for n in names}
    s, idle = window.settings, window.bridge.state == IDLE
    if keys.LATENCY.name in names:
        window.latency.set_value(s.get(keys.LATENCY))  # emits changed: applied live
    if keys.WINDOW_FONT_SIZE.name in names:
        window.view.set_font_size(s.get(keys.WINDOW_FONT_SIZE))
    if keys.DICTATION_COMMANDS.name in names:
        window.dictation.reload_commands()
    if keys.PROFANITY_MASK.name in names:
        window.view.mask_profanity = s.get(keys.PROFANITY_MASK)
        window.view.rerender()
        window.overlay_controller.reload_names()
    if names & _names(SPEAKER_NAMES):  # the captions, the overlay and the status bar use them
        window.view.set_speaker_names(speaker_names(s))
        window.overlay_controller.reload_names()
        window.bridge.name_speakers(speaker_names(s))  # the journal, so recovery shows them too
    if names & _names(SOURCE) and idle:
        window.sources.restore()
        window.sources.check_source()
    if names & _names(RECOGNITION):
        window.bridge.forget_recognizers()
        if idle:
            window.preload()
    if any(n.startswith("overlay/") for n in names):
        window.overlay_controller.reload_settings()
    if names & _names(NEXT_SESSION) and not idle:
        window.statusBar().showMessage("Some changes take effect when you next press Start.", 8000)


def _names(settings) -> set[str]:
    return {key.name for key in settings}
