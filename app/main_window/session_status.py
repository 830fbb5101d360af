"""What the captions window shows of its session: the state (Start/Stop, Pause, the clock, the
level meter, the status line, the tray), the empty caption area's hint, and what the session
bridge reports (notices, errors, a recognizer loaded).

Functions of the window (a ``CaptionWindow``), not a part that keeps a reference to it: the
window connects the bridge's signals to them. The window keeps the state they read:
``heard_nothing`` (the last session heard no words) and ``close_when_idle`` (closing waits for
the session to drain).
"""

from __future__ import annotations

from app.main_window.controls import punctuation_by
from app.workers.session_bridge import IDLE, PAUSED, RUNNING, STARTING, STOPPING
from engine import hidden_as_echo_notice as hidden_notice


def show_state(window, state: str) -> None:
    """The window as the session's ``state`` leaves it (the bridge's ``state_changed``)."""
    a, running = window.commands, state in (RUNNING, PAUSED)
    a.start_stop.setText({IDLE: "&Start", STARTING: "Starting…", STOPPING: "Stopping…"}.get(state, "&Stop"))
    a.start_stop.setEnabled(state in (IDLE, RUNNING, PAUSED))
    a.pause.setText("&Resume" if state == PAUSED else "&Pause")
    a.pause.setEnabled(running)
    window.sources.picker.setEnabled(state == IDLE)
    window.language.on_state(running)
    status = window.statusBar()
    if state == STARTING:
        window.heard_nothing = False  # a new session: what the last one heard no longer applies
    if state == RUNNING:
        window.elapsed_label.run()
        window.sources.hide_problem()  # the source works after all
        line = window.sources.captioning_line(window.bridge.recognizer_info, window.view.speaker_names)
        status.showMessage(line)
    else:
        window.elapsed_label.halt()
    if state == PAUSED:
        status.showMessage("Paused: audio is ignored until you resume (Ctrl+P)")
    elif state == STOPPING:
        status.showMessage("Stopping: settling the last marks…")
    if state != RUNNING:
        window.meter.setValue(0)  # paused or stopped: no level to show
    if window.tray is not None:
        window.tray.set_running(running)
    window._update_text_actions()
    show_placeholder(window)
    if state == IDLE and window.close_when_idle:
        window.close()


def show_placeholder(window) -> None:
    """What the empty caption area tells the user to do now: "Press Start" only when it would work."""
    state, choice, scan = window.bridge.state, window.sources.choice, window.sources.last_scan
    if state == STARTING:
        text = "Starting…"
    elif state != IDLE:
        text = "Listening… captions appear here as words are heard."
    elif window.heard_nothing:
        text = "No speech heard. Check the source's volume, or choose another source and press Start."
    elif choice.kind in ("mic", "meeting") and scan is not None and scan.microphone_problem:
        text = "No microphone found. Plug one in, or choose system audio or a file in the source list."
    else:
        text = "Captions appear here. Press Start (Ctrl+R) to begin."
    window.view.setPlaceholderText(text)


def show_notice(window, kind: str, message: str) -> None:
    """A notice of the running session (the bridge's ``notice``): a device lost or back, an error
    it works around, overruns, the end of a file."""
    if kind == "device_lost":
        window.sources.device_lost(message)
    elif kind == "error":
        window.banners.show_banner("error", "error", message)
    elif kind == "device_back":
        window.sources.hide_problem()
        window.statusBar().showMessage(message, 5000)
    else:  # overruns, the end of a file
        window.statusBar().showMessage(message, 8000)


ECHO_BANNER = "echo"
ECHO_SETTINGS = "Settings → Meeting"  # where the echo guard is turned off


def show_words_hidden(window, total: int, first: bool) -> None:
    """Words the echo guard hid (the bridge's ``words_hidden``): said once a session, in a banner
    that keeps its count current while it is shown, with the way to the Meeting page, where the
    guard is turned off; dismissed, it stays away until the next session."""
    text = hidden_notice(total, ECHO_SETTINGS)
    banner = window.banners.banners.get(ECHO_BANNER)
    if banner is not None:
        banner.label.setText(text)
        banner.label.setAccessibleName(text)
    elif first:
        window.banners.show_banner(
            ECHO_BANNER, "info", text, [("Open Settings → Meeting", lambda: open_meeting_settings(window))]
        )


def open_meeting_settings(window) -> None:
    """The settings dialog on its Meeting page (the echo guard, the speakers' names)."""
    window.open_settings()
    dialog = window.settings_dialog
    if dialog is not None:
        dialog.tabs.setCurrentWidget(dialog.meeting_page)


def show_error(window, message: str) -> None:
    """A session that could not run (the bridge's ``error``), with the ways out."""
    offers = []
    if window.bridge.state == IDLE and window.sources.choice.kind != "file":
        offers = [("Play a file…", window.sources.choose_file), ("Try again", window.start)]
        window.sources.hide_problem()  # this error says it again, and more precisely
    if window.bridge.state == IDLE and window.language.spec_fields() != {
        "language": "en",
        "translate": False,
    }:
        # Another language could not start (no pack, or too slow a CPU for Whisper base live):
        # English captions always can.
        offers.insert(0, ("Caption English instead", lambda: caption_english(window)))
    window.banners.show_banner("error", "error", message, offers)
    window.statusBar().showMessage("Not captioning.")


def caption_english(window) -> None:
    """Settings → Recognition back to English (Whisper tiny.en), and the session started in it."""
    from app.languages import choose_language, choose_translate

    window.banners.hide_banner("error")
    choose_translate(window.settings, False)
    choose_language(window.settings, "en")
    window.start()


def show_ready(window, info) -> None:
    """A recognizer and the punctuation loaded (the bridge's ``ready``): who writes the marks, the
    problems the session works around, and "Ready" when idle."""
    window.model_offer.show_recognizer(info)
    latency, banners = window.latency, window.banners
    if info.marks != "recognizer":
        latency.show_marks_by_recognizer(None)
    elif info.kind.writes_marks:
        title = info.kind.title
        latency.show_marks_by_recognizer(
            punctuation_by(title),
            f"{title} writes its own punctuation; it comes with the words. "
            "Settings → Recognition → Punctuation chooses livecap's instead, which weighs "
            f"{title}'s as evidence.",
        )
    else:  # a language livecap's punctuation model does not know (the banner says so)
        latency.show_marks_by_recognizer("no marks", info.punctuation_notice)
    # Problems the session works around: say them once, captions run regardless.
    for topic, notice in (("punctuation", info.punctuation_notice), ("journal", info.journal_notice)):
        if notice:
            banners.show_banner(topic, "warning", notice)
        else:
            banners.hide_banner(topic)
    if window.bridge.state == IDLE:  # preloaded; when a session starts, only its notices are news
        window.statusBar().showMessage(f"Ready ({info.name}): press Start or Ctrl+R")
    window.models_ready.emit()  # loaded either way (play mode starts before the preload reports)
