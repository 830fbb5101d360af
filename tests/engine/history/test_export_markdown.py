"""``livecap history export`` writes a session as Markdown notes: by ``-o``'s extension, or by
``--format`` whatever the name, through the same writer and refusals as every other format."""

from __future__ import annotations

from engine.cli.main import main
from engine.history import HistoryIndex
from tests.engine.history.conftest import days_ago, write_session

MEETING = [
    ("me", "Good morning everyone. The budget is ready."),
    ("others", "Great, the budget looks fine to me."),
]


def test_history_export_writes_a_meeting_as_markdown_notes(capsys, journal_dir, tmp_path):
    session = write_session(journal_dir, MEETING, days_ago(1)).path.stem
    HistoryIndex.open().close()
    notes = tmp_path / "budget.md"
    assert main(["history", "export", session, "-o", str(notes)]) == 0
    assert notes.read_text(encoding="utf-8") == (
        "# Meeting notes\n\n"
        "## Me\n\n**[0:00]** Good morning everyone. The budget is ready.\n\n"
        "## Others\n\n**[0:03]** Great, the budget looks fine to me.\n"
    )
    named = tmp_path / "budget.notes"
    assert main(["history", "export", session, "-o", str(named), "--format", "md"]) == 0
    assert named.read_text(encoding="utf-8") == notes.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["history", "export", session, "-o", str(notes)]) == 2  # there already
    assert "already exists; pass --overwrite" in capsys.readouterr().err
