"""Settings → Vocabulary (offscreen Qt, a real vocabulary file and a real history index in the
test's folder): the table with how often each term was heard, adding, refusing a bad line with
the engine's own message, removing, and importing a text's proposals the user ticks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt

from app.dialogs.settings_dialog import SettingsDialog
from app.dialogs.vocabulary_page import COUNTING, VocabularyPage
from app.settings import AppSettings
from engine.events import Appended, Settled
from engine.transcript.journal import JournalWriter
from engine.words import Word

pytestmark = [pytest.mark.gui]

OWN_LINES = "# my terms\nPostgreSQL: post gres  # the database\n"


def journal(folder, sentence: str) -> None:
    """A closed session journal whose words settled as ``sentence`` says them."""
    writer = JournalWriter.create(folder, header={"recognizer": "test"})
    for k, text in enumerate(sentence.split()):
        word = Word(text, k * 0.5, k * 0.5 + 0.4)
        writer.apply([Appended(k, word), Settled(k, "none", "lower", 1, text)])
    writer.close()


@pytest.fixture
def page(qtbot, tmp_path):
    path = tmp_path / "config" / "vocabulary.txt"
    path.parent.mkdir()
    path.write_text(OWN_LINES, encoding="utf-8")
    journal(tmp_path / "journal", "we moved PostgreSQL to the new PostgreSQL cluster")
    page = VocabularyPage(path, tmp_path / "journal", tmp_path / "history.sqlite3")
    qtbot.addWidget(page)
    page.show()
    return page


def heard_when_counted(qtbot, page) -> list[str]:
    qtbot.waitUntil(lambda: COUNTING not in page.heard(), timeout=10000)
    return page.heard()


def test_the_table_shows_each_term_its_spoken_forms_and_how_often_it_was_heard(page, qtbot):
    assert page.terms() == ["PostgreSQL"]
    assert page.table.item(0, 1).text() == "post gres"
    assert heard_when_counted(qtbot, page) == ["2"]  # said twice in the one kept session


def test_add_refuses_a_bad_line_with_the_engines_message_then_adds_and_removes(page, qtbot):
    dialog = page.add_term()
    dialog.term.setText("!!!")
    assert not dialog.save()
    assert dialog.error.isVisible() and dialog.error.text() == "the term '!!!' has no letter or digit"
    assert page.path.read_text(encoding="utf-8") == OWN_LINES  # nothing written
    dialog.term.setText("kubectl")
    dialog.spoken.setText("cube control, cube cuttle")
    with qtbot.waitSignal(page.changed, timeout=1000):
        assert dialog.save() and not dialog.isVisible()
    assert page.terms() == ["PostgreSQL", "kubectl"]
    assert page.path.read_text(encoding="utf-8") == OWN_LINES + "kubectl: cube control, cube cuttle\n"
    assert heard_when_counted(qtbot, page) == ["2", "0"]
    again = page.add_term("postgresql")  # a term already there, any case: refused in one line
    assert not again.save() and "'PostgreSQL' is already in" in again.error.text()
    again.reject()

    page.table.selectionModel().select(
        page.table.model().index(0, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert page.remove_button.isEnabled()
    page.remove_button.click()
    assert page.terms() == ["kubectl"]
    # The comment stays; only the removed term's line (with its note) goes.
    assert page.path.read_text(encoding="utf-8") == "# my terms\nkubectl: cube control, cube cuttle\n"


def test_import_proposes_a_texts_names_and_adds_the_ticked_ones(page, tmp_path):
    agenda = tmp_path / "agenda.txt"
    agenda.write_text("Attendees:\nSiobhan Kelly\nMałgorzata Szczepańska\n\nWe review the nginx rollout.\n")
    dialog = page.import_file(agenda)
    proposed = [dialog.list.item(row).text() for row in range(dialog.list.count())]
    assert proposed == ["Siobhan Kelly", "Małgorzata Szczepańska", "nginx"]
    dialog.list.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert dialog.save()
    assert page.terms() == ["PostgreSQL", "Małgorzata Szczepańska", "nginx"]
    assert page.path.read_text(encoding="utf-8").endswith("Małgorzata Szczepańska\nnginx\n")
    assert page.import_file(agenda).list.count() == 1  # only what is not there yet: Siobhan Kelly


def test_a_bad_file_is_shown_in_one_line_and_never_written_over(qtbot, tmp_path):
    path = tmp_path / "vocabulary.txt"
    path.write_text("PostgreSQL\npostgresql: post gres\n", encoding="utf-8")
    page = VocabularyPage(path, tmp_path / "journal", tmp_path / "history.sqlite3")
    qtbot.addWidget(page)
    assert page.error.text().startswith(f"{path}, line 2: 'postgresql' is already on line 1")
    assert not page.add_button.isEnabled() and not page.import_button.isEnabled()


def test_the_settings_dialog_has_the_vocabulary_page(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the user's own file: none yet
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert "&Vocabulary" in tabs and dialog.tabs.widget(tabs.index("&Vocabulary")) is dialog.vocabulary_page
    assert dialog.vocabulary_page.path == tmp_path / "config" / "livecap" / "vocabulary.txt"
    assert dialog.vocabulary_page.terms() == []
