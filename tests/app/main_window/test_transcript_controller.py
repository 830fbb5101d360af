"""The window's text part on its own: a real bridge (no session), a real caption view and the
tiny ONNX model. After a session the text is re-punctuated and shown editable; copy, export,
clear and the unsaved check work on what is shown."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from app.main_window.caption_view import CaptionView
from app.main_window.controls import BannerArea
from app.main_window.job_progress import JobProgress
from app.main_window.transcript_controller import TranscriptController
from app.settings import AppSettings
from app.workers.jobs import JobRunner
from app.workers.session_bridge import SessionBridge
from engine.transcript.transcript import Transcript, TranscriptWord


@pytest.fixture
def controller(qtbot, tmp_path, tiny_model_dir):
    window = QWidget()
    qtbot.addWidget(window)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    bridge = SessionBridge(window)
    view = CaptionView()
    view.set_builder(bridge.builder)
    text = TranscriptController(
        settings,
        bridge,
        view,
        BannerArea(window),
        JobProgress(window),
        JobRunner(window),
        tiny_model_dir,
        window,
    )
    text.confirm_discard = lambda: True
    return text


def live_words(n=30) -> Transcript:
    return Transcript(
        [TranscriptWord(f"word{i}", i * 0.3, i * 0.3 + 0.2, 1.0, "none", "lower", None) for i in range(n)]
    )


def test_the_finished_text_is_shown_editable_then_copied_exported_and_cleared(controller, qtbot, tmp_path):
    statuses = []
    controller.status.connect(lambda message, ms: statuses.append(message))
    assert controller.word_count() == 0 and not controller.unsaved
    with qtbot.waitSignal(controller.final_shown, timeout=30000):
        controller.show_final(live_words())
    view = controller.view
    assert not view.live and not view.isReadOnly() and controller.word_count() == 30
    assert [w.text for w in controller.final_transcript.words] == [f"word{i}" for i in range(30)]
    assert "Done." in statuses[-1] and controller.unsaved

    view.setPlainText(view.toPlainText() + " Extra.")  # an edit: copied and exported as shown
    controller.copy_all()
    assert QApplication.clipboard().text().endswith("Extra.") and not controller.unsaved
    job = controller.export_to(tmp_path / "out.txt")
    qtbot.waitUntil(lambda: not job.running, timeout=30000)
    assert (tmp_path / "out.txt").read_text().split()[-1] == "Extra."
    assert statuses[-1] == f"Exported to {tmp_path / 'out.txt'}"

    with qtbot.waitSignal(controller.cleared, timeout=1000):
        controller.clear()
    assert controller.final_transcript is None and view.toPlainText() == "" and controller.word_count() == 0


def test_nothing_to_export_says_so(controller, tmp_path):
    statuses = []
    controller.status.connect(lambda message, ms: statuses.append(message))
    assert controller.export_to(tmp_path / "empty.txt") is None
    assert statuses == ["Nothing to export yet."] and not (tmp_path / "empty.txt").exists()
