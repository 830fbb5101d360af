"""Help → About: livecap's version, the licences of livecap and of its models, and where its
files are (``engine.about`` declares them; the settings file is the one this app's QSettings
writes). The paths can be selected and copied, to find them in a file manager."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from engine import __version__, about_folders, about_licences


def about_text(settings_file: str) -> str:
    """The About box's rich text: the version, the licences, the folders and the settings file."""
    licences = "".join(
        f"<li>{html.escape(part.what)}: <b>{html.escape(part.licence)}</b> ({html.escape(part.whose)})</li>"
        for part in about_licences()
    )
    places = [(folder.what, str(folder.path)) for folder in about_folders()]
    if settings_file:
        places.append(("Settings", settings_file))
    where = "".join(f"<li>{html.escape(what)}: <code>{html.escape(p)}</code></li>" for what, p in places)
    return (
        f"<h3>livecap {html.escape(__version__)}</h3>"
        "<p>Live captions and transcripts. Audio, words and transcripts stay on this computer.</p>"
        f"<p><b>Licences</b></p><ul>{licences}</ul>"
        f"<p><b>Where your files are</b></p><ul>{where}</ul>"
    )


def show_about(parent: QWidget, settings_file: str = "") -> QMessageBox:
    """Open the About box, window-modal (the event loop goes on); returns it."""
    ok = QMessageBox.StandardButton.Ok
    box = QMessageBox(QMessageBox.Icon.Information, "About livecap", "", ok, parent)
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_text(settings_file))
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAccessibleName("About livecap")
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    return box
