"""The captions window's commands: one QAction each, in the menus, on the buttons, with a shortcut.

One action per command means the menu item, the button and the shortcut can never
disagree about whether it is enabled or what it is called. Buttons are QPushButtons that
mirror an action (``app.action_button.ActionButton``): unlike toolbar buttons they are in the
Tab order, so the window works from the keyboard alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.overlay_options import CLICK_THROUGH_SHORTCUT

SHORTCUTS = {  # also listed in the README's App section and in Help → Keyboard shortcuts
    "start_stop": "Ctrl+R",
    "pause": "Ctrl+P",
    "export": "Ctrl+E",
    "history": "Ctrl+H",
    "copy_all": "Ctrl+Shift+C",
    "clear": "Ctrl+Shift+L",
    "play_file": "Ctrl+O",
    "overlay": "Ctrl+Shift+O",
    "type_into_apps": "Ctrl+Shift+D",
    "click_through": CLICK_THROUGH_SHORTCUT,  # bound by the overlay's own action, not here
    "settings": "Ctrl+,",
    "larger": "Ctrl++",
    "smaller": "Ctrl+-",
    "quit": "Ctrl+Q",
}


@dataclass
class Actions:
    start_stop: QAction
    pause: QAction
    export: QAction
    history: QAction
    copy_all: QAction
    clear: QAction
    play_file: QAction
    overlay: QAction
    type_into_apps: QAction
    share: QAction
    settings: QAction
    download_model: QAction
    larger: QAction
    smaller: QAction
    shortcuts_help: QAction
    about: QAction
    quit: QAction
    view_menu: object = None  # the overlay adds its click-through action here,
    view_separator: object = None  # before this separator


def build_actions(window) -> Actions:
    """Create the actions on ``window`` and fill its menu bar; the window connects them."""

    def make(name, text, checkable=False):
        action = QAction(text, window, checkable=checkable)
        if name in SHORTCUTS and name != "click_through":
            action.setShortcut(QKeySequence(SHORTCUTS[name]))
        if name == "larger":
            action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        window.addAction(action)  # shortcuts work even while the menu bar is hidden
        return action

    a = Actions(
        start_stop=make("start_stop", "&Start"),
        pause=make("pause", "&Pause"),
        export=make("export", "&Export…"),
        history=make("history", "&History…"),
        copy_all=make("copy_all", "&Copy all"),
        clear=make("clear", "C&lear"),
        play_file=make("play_file", "Play a &file…"),
        overlay=make("overlay", "Show caption &overlay", checkable=True),
        type_into_apps=make("type_into_apps", "&Type into other apps", checkable=True),
        share=make("share", "S&hare captions…"),
        settings=make("settings", "&Settings…"),
        download_model=make("download_model", "&Download the English speech model…"),
        larger=make("larger", "&Larger text"),
        smaller=make("smaller", "&Smaller text"),
        shortcuts_help=make("shortcuts_help", "&Keyboard shortcuts"),
        about=make("about", "&About livecap"),
        quit=make("quit", "&Quit"),
    )
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    for action in (a.play_file, a.export, a.copy_all):
        file_menu.addAction(action)
    file_menu.addSeparator()
    file_menu.addAction(a.history)
    file_menu.addSeparator()
    file_menu.addAction(a.quit)
    session = bar.addMenu("&Captions")
    for action in (a.start_stop, a.pause, a.clear):
        session.addAction(action)
    session.addSeparator()
    session.addAction(a.type_into_apps)
    session.addAction(a.share)
    view = bar.addMenu("&View")
    view.addAction(a.overlay)
    a.view_menu, a.view_separator = view, view.addSeparator()
    view.addAction(a.larger)
    view.addAction(a.smaller)
    tools = bar.addMenu("&Settings")
    tools.addAction(a.settings)
    tools.addAction(a.download_model)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(a.shortcuts_help)
    help_menu.addAction(a.about)
    return a


def shortcuts_text() -> str:
    rows = [
        ("Start or stop captions", "start_stop"),
        ("Pause or resume", "pause"),
        ("Export", "export"),
        ("History: find words in past sessions", "history"),
        ("Copy all text", "copy_all"),
        ("Clear", "clear"),
        ("Play a file", "play_file"),
        ("Show or hide the overlay", "overlay"),
        ("Overlay click-through", "click_through"),
        ("Type into other apps, or stop", "type_into_apps"),
        ("Settings", "settings"),
        ("Larger / smaller text", "larger"),
        ("Quit", "quit"),
    ]
    lines = []
    for label, key in rows:
        keys = SHORTCUTS[key] + (" / " + SHORTCUTS["smaller"] if key == "larger" else "")
        lines.append(
            f"{label}: {QKeySequence(keys).toString(QKeySequence.NativeText) if ' / ' not in keys else keys}"
        )
    lines.append("Follow the live captions again after scrolling up: Ctrl+End")
    return "\n".join(lines)
