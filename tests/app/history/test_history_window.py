"""The History window (offscreen Qt, real journals, a real SQLite index): the list of sessions,
searching as one types, the highlighted match (read from a screenshot), opening a result at its
moment, a query the index cannot understand, and the window driven from the keyboard alone."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextCursor
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QLineEdit, QListWidget, QTextEdit

from app.history.rows import HIGHLIGHT_BACKGROUND
from app.theme import speaker_color
from engine.transcript.journal import read_journal
from tests.app.pixels import pixels_near

pytestmark = [pytest.mark.gui]


def search(qtbot, window, text: str) -> None:
    """Type ``text`` into the search box as a user would, and wait for its answer on screen."""
    window.search_box.setFocus()
    with qtbot.waitSignal(window.results_shown, timeout=30000, check_params_cb=lambda q: q == text.strip()):
        qtbot.keyClicks(window.search_box, text)


def shown_ids(listing: QListWidget) -> list[str]:
    return [listing.row_data(row).id for row in range(listing.count())]


def test_the_list_shows_every_session_newest_first(window, meetings):
    listing = window.sessions_list
    assert window.shown_list() is listing and listing.count() == 3
    summaries = [listing.row_data(row) for row in range(3)]
    assert [s.started for s in summaries] == sorted((s.started for s in summaries), reverse=True)
    assert [s.path.name for s in summaries] == [meetings[k].name for k in ("standup", "lecture", "meeting")]
    lecture = listing.item(1).text()
    assert "Photosynthesis turns light into sugar" in lecture  # its first line, as it reads
    meeting = listing.item(2).text()
    assert "Me" in meeting and "Others" in meeting  # who spoke, by their names
    assert "3 sessions" in window.status_line.text()
    assert listing.currentRow() == 0


def test_typing_a_phrase_shows_a_result_with_its_match_highlighted(window, qtbot, meetings):
    search(qtbot, window, "budget")
    results = window.results_list
    assert window.shown_list() is results and results.count() >= 1
    hit = results.row_data(0)
    assert window.client.sessions and hit.session_id == next(
        s.id for s in window.client.sessions if s.path == meetings["meeting"]
    )
    text = results.item(0).text()  # what a screen reader reads: the snippet, the session, the moment
    assert "budget" in text.lower() and "at 0" in text
    rich = results.item(0).data(Qt.ItemDataRole.UserRole + 1)
    assert f'background-color:{HIGHLIGHT_BACKGROUND}; color:#000000;">budget</span>' in rich.lower()


def highlight_pixels(image, top: int, bottom: int, tolerance: int = 8) -> int:
    return pixels_near(
        image, QColor(HIGHLIGHT_BACKGROUND), tolerance, rows=slice(max(0, top), max(0, bottom))
    )


def test_a_screenshot_shows_the_highlight_in_the_row_of_the_hit(window, qtbot):
    search(qtbot, window, "photosynthesis")
    results = window.results_list
    assert results.count() == 1
    results.clearSelection()  # the highlight, not the selection's colour, is what is looked for
    results.setCurrentRow(-1)
    qtbot.waitExposed(window)
    image = results.viewport().grab().toImage()
    row = results.visualItemRect(results.item(0))
    assert row.height() > 0
    inside = highlight_pixels(image, row.top(), row.bottom() + 1)
    outside = highlight_pixels(image, row.bottom() + 1, image.height())
    assert inside > 40, "no highlighted word in the hit's row"
    assert outside == 0  # only the match is marked, nothing below it


def test_opening_a_result_shows_the_session_scrolled_to_the_hit(window, qtbot):
    search(qtbot, window, "approved")
    page = window.session_page
    with qtbot.waitSignal(page.shown, timeout=30000):
        qtbot.keyClick(window.search_box, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is page
    view = page.view
    assert view.isReadOnly()
    assert view.textCursor().selectedText().lower() == "approved"
    assert "Others: The marketing budget was approved yesterday by finance." in view.toPlainText()
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() > 0  # deep in the session: scrolled there
    spot = view.cursorRect(view.textCursor())
    assert view.viewport().rect().contains(spot.center())  # the hit is on screen
    assert [s.format.background().color().name() for s in view.extraSelections()] == [HIGHLIGHT_BACKGROUND]
    # Who spoke, as the captions window shows it: the name bold, in the speaker's colour.
    label = QTextCursor(view.document())
    label.setPosition(view.toPlainText().index("Others:") + 1)
    dark = view.palette().color(QPalette.ColorRole.Base).lightness() < 128
    assert label.charFormat().foreground().color().name() == speaker_color("others:1", dark).name()
    assert label.charFormat().fontWeight() > 500


def test_a_phrase_in_quotes_selects_all_its_words(window, qtbot):
    search(qtbot, window, '"marketing budget"')
    page = window.session_page
    with qtbot.waitSignal(page.shown, timeout=30000):
        window.open_current()
    assert page.view.textCursor().selectedText().lower() == "marketing budget"


def test_a_malformed_query_shows_one_line_under_the_box(window, qtbot):
    search(qtbot, window, '"budget')
    problem = window.query_problem
    assert problem.isVisible() and problem.text() and "\n" not in problem.text()
    assert QApplication.activeModalWidget() is None  # no dialog, no traceback
    assert window.results_list.count() == 0
    qtbot.keyClick(window.search_box, Qt.Key.Key_QuoteDbl)  # closed: a good query again
    qtbot.waitUntil(lambda: not problem.isVisible(), timeout=30000)
    qtbot.waitUntil(lambda: window.results_list.count() >= 1, timeout=30000)


def test_emptying_the_box_shows_the_sessions_again(window, qtbot):
    search(qtbot, window, "budget")
    window.search_box.clear()
    assert window.shown_list() is window.sessions_list and window.sessions_list.count() == 3


def test_the_period_limits_the_search_to_recent_sessions(window, qtbot):
    search(qtbot, window, "budget")
    assert window.results_list.count() >= 1
    with qtbot.waitSignal(window.results_shown, timeout=30000):
        window.period.setCurrentIndex(window.period.findText("Past day"))
    assert window.results_list.count() == 0  # last week's meeting is older than a day
    assert "No session" in window.status_line.text()


def test_the_keyboard_alone_finds_opens_and_closes(window, qtbot):
    window.activateWindow()
    window.sessions_list.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.search_box.hasFocus()
    with qtbot.waitSignal(
        window.results_shown, timeout=30000, check_params_cb=lambda q: q == "photosynthesis"
    ):
        qtbot.keyClicks(window.search_box, "photosynthesis")
    qtbot.keyClick(window.search_box, Qt.Key.Key_Down)
    assert window.results_list.hasFocus() and window.results_list.currentRow() == 0
    page = window.session_page
    with qtbot.waitSignal(page.shown, timeout=30000):
        qtbot.keyClick(window.results_list, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is page
    assert page.view.textCursor().selectedText().lower() == "photosynthesis"
    qtbot.keyClick(page.view, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.browse_page and window.results_list.hasFocus()
    # Back in the sessions list: arrows move, Enter opens the session from its start.
    window.search_box.clear()
    window.sessions_list.setFocus()
    qtbot.keyClick(window.sessions_list, Qt.Key.Key_Down)
    assert window.sessions_list.currentRow() == 1
    with qtbot.waitSignal(page.shown, timeout=30000):
        qtbot.keyClick(window.sessions_list, Qt.Key.Key_Return)
    assert page.summary.id == window.sessions_list.row_data(1).id
    assert page.view.toPlainText().startswith("Photosynthesis turns light into sugar.")
    qtbot.keyClick(page.view, Qt.Key.Key_Escape)
    qtbot.keyClick(window.sessions_list, Qt.Key.Key_Escape)
    assert not window.isVisible()


def test_every_control_has_an_accessible_name(window, qtbot):
    search(qtbot, window, "budget")
    with qtbot.waitSignal(window.session_page.shown, timeout=30000):
        window.open_current()
    for page in (window.browse_page, window.session_page):
        window.pages.setCurrentWidget(page)
        for kind in (QAbstractButton, QComboBox, QLineEdit, QListWidget, QTextEdit):
            for widget in page.findChildren(kind):
                # Qt's own parts of a control (a line edit's clear button) are named by the control.
                if widget.isVisibleTo(window) and not isinstance(widget.parent(), (QComboBox, QLineEdit)):
                    assert widget.accessibleName(), f"{type(widget).__name__} has no accessible name"


def test_a_row_says_when_how_long_and_who(window, meetings):
    from app.history.rows import duration_text, started_text

    meeting = window.sessions_list.row_data(2)
    assert meeting.started == datetime.fromisoformat(read_journal(meetings["meeting"]).started)
    text = window.sessions_list.item(2).text()
    assert started_text(meeting.started) in text and duration_text(meeting.duration_s) in text
    assert meeting.duration_s > 60 and duration_text(meeting.duration_s).endswith("min")


@pytest.fixture
def locale():
    """``set(name)`` makes ``name`` the locale Qt formats with; the one before comes back after."""
    from PySide6.QtCore import QLocale

    before = QLocale()
    yield lambda name: QLocale.setDefault(QLocale(name))
    QLocale.setDefault(before)


@pytest.mark.parametrize("name", ["C", "en_US"])
def test_a_row_dates_its_session_by_the_locale_and_iso_where_it_has_no_format(
    make_window, qtbot, meetings, locale, name
):
    locale(name)  # "C": what LANG=C.UTF-8 gives, whose date format Qt writes "7 12 2026 04:17"
    window = make_window()
    with qtbot.waitSignal(window.sessions_shown, timeout=30000):
        window.show()
    row = window.sessions_list.row_data(0)
    text = window.sessions_list.item(0).text().replace("\u202f", " ")
    t = row.started.astimezone()
    if name == "C":
        expected = f"{t:%Y-%m-%d %H:%M}"
    else:
        expected = f"{t.month}/{t.day}/{t:%y} {t.hour % 12 or 12}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"
    assert text.startswith(expected), text


def test_a_row_gives_the_length_of_the_audio_not_how_long_decoding_took(make_window, qtbot, journal_folder):
    """A file of 20 s decoded in 5 s is 20 s long, in the list and on its page."""
    from datetime import timedelta

    from tests.app.history.conftest import write_session

    words = " ".join(f"word{k}" for k in range(50))  # the last one ends at 49 × 0.4 + 0.3 s
    write_session(journal_folder, datetime.now().astimezone() - timedelta(seconds=5), [("", words)])
    window = make_window()
    with qtbot.waitSignal(window.sessions_shown, timeout=30000):
        window.show()
    assert window.sessions_list.row_data(0).duration_s == pytest.approx(19.9)
    assert " · 20 s · " in window.sessions_list.item(0).text()
