"""Where the History window is reached from, and what it is made of: the captions window's action
and shortcut, the tray menu, Settings → History, and the index client's rules (building with
progress, one line when the index cannot open, only the newest query's answer)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMainWindow

from app import settings as keys
from app.history.index_client import FAILED, OPEN, HistoryClient

pytestmark = [pytest.mark.gui]


# ---- the ways in ------------------------------------------------------------------------------
def test_the_captions_window_has_a_history_action_with_a_shortcut(qtbot):
    from app.main_window.actions import SHORTCUTS, build_actions, shortcuts_text

    window = QMainWindow()
    qtbot.addWidget(window)
    actions = build_actions(window)
    assert actions.history.shortcut() == QKeySequence(SHORTCUTS["history"]) == QKeySequence("Ctrl+H")
    file_menu = window.menuBar().actions()[0].menu()
    assert actions.history in file_menu.actions()
    assert "History" in shortcuts_text() and "Ctrl+H" in shortcuts_text()


def test_the_tray_menu_asks_for_the_history(qtbot):
    from app.tray import TrayIcon

    tray = TrayIcon()
    assert tray.history_action in tray.menu.actions()
    with qtbot.waitSignal(tray.history_requested, timeout=1000):
        tray.history_action.trigger()
    tray.hide()


def test_show_history_reuses_the_window_for_the_same_folder(
    qtbot, settings, journal_folder, meetings, tmp_path
):
    from app.history.window import show_history

    first = show_history(settings, None, journal_folder)
    qtbot.addWidget(first, before_close_func=lambda w: (w.shutdown(), w.client.wait(30000)))
    qtbot.waitUntil(lambda: first.client.state == OPEN, timeout=30000)
    assert first.isVisible() and first.search_box.hasFocus()
    first.close()
    assert show_history(settings, first, journal_folder) is first and first.isVisible()
    other = tmp_path / "elsewhere"
    other.mkdir()
    second = show_history(settings, first, other)
    qtbot.addWidget(second, before_close_func=lambda w: (w.shutdown(), w.client.wait(30000)))
    assert second is not first and not first.isVisible() and second.journal_folder == other
    QThreadPool.globalInstance().waitForDone(30000)


# ---- Settings → History -----------------------------------------------------------------------
def test_settings_history_page_keeps_the_retention_in_step_with_the_journal_page(qtbot, settings, data_dir):
    from app.dialogs.settings_dialog import SettingsDialog

    settings.set(keys.JOURNAL_KEEP_DAYS, 14)
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    page = dialog.history_page
    assert dialog.tabs.indexOf(page) >= 0 and dialog.tabs.tabText(dialog.tabs.indexOf(page)) == "&History"
    assert page.keep_days.value() == 14
    page.keep_days.setValue(90)
    assert dialog.journal_page.keep_days.value() == 90  # one setting, shown in two places
    dialog.journal_page.keep_days.setValue(0)
    assert page.keep_days.text() == "Forever"
    page.keep_days.setValue(60)
    with qtbot.waitSignal(dialog.settings_changed, timeout=1000) as changed:
        assert dialog.apply()
    assert changed.args == [[keys.JOURNAL_KEEP_DAYS.name]] and settings.get(keys.JOURNAL_KEEP_DAYS) == 60
    notes = " ".join(label.text() for label in page.findChildren(type(dialog.error)))
    assert "Pinned sessions are kept forever" in notes
    assert page.keep_days.accessibleName()


# ---- the index client -------------------------------------------------------------------------
@pytest.fixture
def client(qtbot, journal_folder, tmp_path, data_dir):
    made = HistoryClient(tmp_path / "history" / "index.sqlite", journal_folder)
    yield made
    made.close()
    made.wait(30000)
    QThreadPool.globalInstance().waitForDone(30000)


def test_opening_builds_the_index_with_progress(qtbot, client, meetings):
    reports = []
    client.progress.connect(lambda done, total: reports.append((done, total)))
    with qtbot.waitSignal(client.opened, timeout=30000) as opened:
        client.open()
    assert client.state == OPEN and len(opened.args[0]) == 3
    assert reports and reports[-1][1] == 3 and all(done <= total for done, total in reports)


def test_only_the_newest_querys_answer_arrives(qtbot, client, meetings):
    with qtbot.waitSignal(client.opened, timeout=30000):
        client.open()
    answered = []
    client.results.connect(lambda query, hits: answered.append(query))
    client.search("budget")
    client.search("photosynthesis")
    with qtbot.waitSignal(client.results, timeout=30000):
        client.search("marketing")
    client.wait(30000)
    qtbot.wait(50)  # let any answer already posted arrive: none may
    assert answered == ["marketing"]


def test_an_index_that_cannot_open_says_so_in_one_line(qtbot, tmp_path, journal_folder, meetings, settings):
    from app.history.window import HistoryWindow

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the index's folder should be")
    window = HistoryWindow(settings, journal_folder, index_path=blocker / "index.sqlite")
    qtbot.addWidget(window, before_close_func=lambda w: (w.shutdown(), w.client.wait(30000)))
    with qtbot.waitSignal(window.client.open_failed, timeout=30000):
        window.show()
    assert window.client.state == FAILED
    line = window.status_line.text()
    assert line and "\n" not in line and "Traceback" not in line
    assert window.retry_button.isVisible() and not window.progress.isVisible()
    window.search_box.setText("budget")
    assert window.query_problem.isVisible()  # a search says why it cannot run, under the box
