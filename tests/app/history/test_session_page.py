"""A session opened in the History window: copy, export through the captions window's exporters,
rename, pin and unpin, and delete only after the confirmation says so (real journals, a real
SQLite index)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from app.history import session_page

pytestmark = [pytest.mark.gui]


def open_session(qtbot, window, path):
    """Open the session journaled at ``path`` from the sessions list, as Enter on its row does."""
    listing = window.sessions_list
    row = next(r for r in range(listing.count()) if listing.row_data(r).path == path)
    listing.setCurrentRow(row)
    with qtbot.waitSignal(window.session_page.shown, timeout=30000):
        window.open_current()
    return window.session_page


def changed(qtbot, window, action):
    """Trigger ``action`` and wait until the sessions it changed are listed again."""
    with qtbot.waitSignal(window.sessions_shown, timeout=30000):
        action()


def test_a_session_opens_read_only_from_its_start(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["meeting"])
    assert window.pages.currentWidget() is page and page.view.isReadOnly()
    text = page.view.toPlainText()
    assert text.startswith("Me: We looked at the numbers for the quarter.")
    assert "\nOthers: The marketing budget was approved yesterday by finance." in text
    assert page.view.verticalScrollBar().value() == 0
    assert "words" in page.facts.text() and page.actions["delete"].isEnabled()


def test_copy_puts_the_session_with_its_speakers_on_the_clipboard(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["meeting"])
    page.actions["copy"].trigger()
    copied = QApplication.clipboard().text()
    assert copied.startswith("Me: We looked at the numbers")
    assert "Others: The marketing budget was approved yesterday by finance." in copied
    assert "Copied" in page.message.text()


@pytest.mark.parametrize(
    "name, check", [("notes.srt", "-->"), ("notes.json", '"format"'), ("notes.txt", "Me: ")]
)
def test_export_writes_the_file_in_the_chosen_format(window, qtbot, meetings, tmp_path, name, check):
    page = open_session(qtbot, window, meetings["meeting"])
    job = page.export_to(tmp_path / name)
    with qtbot.waitSignal(job.finished, timeout=30000):
        pass
    written = (tmp_path / name).read_text(encoding="utf-8")
    assert check in written and "budget" in written
    if name.endswith(".json"):
        assert json.loads(written)["speakers"] == {"me": "Me", "others:1": "Others"}
    assert f"Exported to {tmp_path / name}" in page.message.text()


def test_export_from_the_dialog_takes_the_chosen_filter(window, qtbot, meetings, tmp_path, monkeypatch):
    from app.exporting import FILTERS

    asked = []

    def choose(parent, suggested):
        asked.append(suggested.name)
        return str(tmp_path / "lecture"), FILTERS["vtt"]  # no extension typed: the filter's

    monkeypatch.setattr(session_page, "choose_export_path", choose)
    page = open_session(qtbot, window, meetings["lecture"])
    page.actions["export"].trigger()
    qtbot.waitUntil(lambda: (tmp_path / "lecture.vtt").exists(), timeout=30000)
    assert asked == [meetings["lecture"].stem + ".txt"]
    assert (tmp_path / "lecture.vtt").read_text(encoding="utf-8").startswith("WEBVTT")


def test_rename_shows_the_new_title_in_the_list_and_the_page(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["meeting"])
    page.actions["rename"].trigger()
    dialog = page.rename_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue("  Budget review  ")
    changed(qtbot, window, dialog.accept)
    assert page.summary.title == "Budget review" and "Budget review" in page.heading.text()
    row = next(
        r
        for r in range(window.sessions_list.count())
        if window.sessions_list.row_data(r).id == page.summary.id
    )
    assert window.sessions_list.item(row).text().endswith("Budget review")
    # The title is the session's name in results too.
    window.show_list()
    with qtbot.waitSignal(window.results_shown, timeout=30000, check_params_cb=lambda q: q == "approved"):
        window.search_box.setText("approved")
    assert "Budget review" in window.results_list.item(0).text()


def test_pin_and_unpin(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["lecture"])
    assert page.actions["pin"].text() == "&Pin"
    changed(qtbot, window, page.actions["pin"].trigger)
    assert page.summary.pinned and page.actions["pin"].text() == "Un&pin"
    assert "kept forever" in page.facts.text() and page.heading.text().startswith("★")
    pinned = [
        window.sessions_list.item(r).text() for r in range(3) if window.sessions_list.row_data(r).pinned
    ]
    assert len(pinned) == 1 and pinned[0].startswith("Pinned.")
    changed(qtbot, window, page.actions["pin"].trigger)
    assert not page.summary.pinned and page.actions["pin"].text() == "&Pin"


def test_delete_asks_first_and_cancel_keeps_the_session(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["standup"])
    page.actions["delete"].trigger()
    box = page.confirm_delete
    assert box is not None and box.isVisible() and "cannot be undone" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)  # Enter keeps it
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)
    window.client.wait(30000)
    assert meetings["standup"].exists() and window.sessions_list.count() == 3
    assert window.pages.currentWidget() is page


def test_delete_after_confirming_removes_the_session(window, qtbot, meetings):
    page = open_session(qtbot, window, meetings["standup"])
    page.actions["delete"].trigger()
    box = page.confirm_delete
    changed(qtbot, window, box.button(QMessageBox.StandardButton.Yes).click)
    assert not meetings["standup"].exists()
    assert window.sessions_list.count() == 2
    assert meetings["standup"] not in [window.sessions_list.row_data(r).path for r in range(2)]
    assert window.pages.currentWidget() is window.browse_page  # the page of a deleted session is gone


def test_a_session_still_being_recorded_is_read_only(make_window, qtbot, journal_folder, meetings):
    from engine.events import Appended, Settled
    from engine.transcript.journal import JournalWriter
    from engine.words import Word

    writer = JournalWriter.create(journal_folder, header={"source": "Built-in Microphone"})
    try:
        writer.apply([Appended(0, Word("recording", 0.0, 0.4)), Settled(0, "none", "lower", 1, "recording")])
        window = make_window()
        with qtbot.waitSignal(window.sessions_shown, timeout=30000):
            window.show()
        live = [r for r in range(window.sessions_list.count()) if window.sessions_list.row_data(r).live]
        assert len(live) == 1 and "recording now" in window.sessions_list.item(live[0]).text()
        page = open_session(qtbot, window, writer.path)
        assert page.view.toPlainText() == "recording"  # its words so far, read-only
        assert "recording now" in page.facts.text()
        assert not any(page.actions[name].isEnabled() for name in ("rename", "pin", "delete"))
    finally:
        writer.close()
