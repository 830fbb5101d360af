"""The window's text part on its own: a real bridge (no session), a real caption view and the
tiny ONNX model. After a session the text is re-punctuated and shown editable; copy, export,
clear and the unsaved check work on what is shown."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from app.caption_feed import CaptionFeed
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
    view.set_feed(CaptionFeed(bridge.builder, parent=view))
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


# ---- settled marks are the user's: kept after Stop and in exports ----------------------------------
OTHER_MARK = {"none": "comma", "comma": "period", "period": "question", "question": "none"}


def settled_live(tiny_model_dir, settled_count=None):
    """A live session's text as the window's builder holds it: words whose settled marks and
    capitals differ, at every word, from what the offline decoder would choose (as Whisper's
    correct "start, can" once became "start. Can"); past ``settled_count`` provisional."""
    from engine.events import Appended, Provisional, Settled
    from engine.punctuation.model import PunctuationModel
    from engine.session.batch import repunctuate
    from engine.transcript.builder import TranscriptBuilder
    from engine.words import Word

    text = "so we start can you hear me at the back or shall i speak up a little".split()
    words = [Word(t, k * 0.4, k * 0.4 + 0.3) for k, t in enumerate(text)]
    decided = repunctuate(words, PunctuationModel(tiny_model_dir))
    count = len(words) if settled_count is None else settled_count
    builder = TranscriptBuilder()
    events = [Appended(p, w) for p, w in enumerate(words)]
    for p, d in enumerate(decided.words):
        case = "lower" if d.case != "lower" else "capitalized"
        form = d.text if case == "lower" else d.text.capitalize()
        mark = OTHER_MARK[d.mark]
        events.append(Settled(p, mark, case, 1, form) if p < count else Provisional(p, mark, case, 0.5, form))
    builder.apply(events)
    return builder, decided


def test_after_stop_every_settled_mark_and_capital_stays_as_shown(
    controller, qtbot, tmp_path, tiny_model_dir
):
    from engine.transcript.export import export

    builder, _ = settled_live(tiny_model_dir)
    live = builder.transcript
    shown = [(w.text, w.mark, w.case, w.form) for w in live.words]
    with qtbot.waitSignal(controller.final_shown, timeout=30000):
        controller.show_final(live)
    assert [(w.text, w.mark, w.case, w.form) for w in controller.final_transcript.words] == shown
    assert controller.view.toPlainText().split() == live.text().split()
    for fmt in ("txt", "json", "srt"):
        job = controller.export_to(tmp_path / f"out.{fmt}")
        qtbot.waitUntil(lambda job=job: not job.running, timeout=30000)
        expected = export(live, fmt, tmp_path / f"expected.{fmt}").read_bytes()
        assert (tmp_path / f"out.{fmt}").read_bytes() == expected, fmt


def test_an_export_while_captioning_keeps_the_settled_marks_and_fills_the_rest(
    controller, qtbot, tmp_path, tiny_model_dir
):
    builder, decided = settled_live(tiny_model_dir, settled_count=10)
    controller.bridge.builder = builder  # what the live captions show now
    shown = [(w.text, w.mark, w.case, w.form) for w in builder.words]
    job = controller.export_to(tmp_path / "live.json")
    qtbot.waitUntil(lambda: not job.running, timeout=30000)
    assert job.error is None, job.error
    import json

    exported = Transcript.from_dict(json.loads((tmp_path / "live.json").read_text()))
    assert [(w.text, w.mark, w.case, w.form) for w in exported.words[:10]] == shown[:10]
    assert [w.mark for w in exported.words[10:]] == [w.mark for w in decided.words[10:]]


def test_words_of_another_language_are_exported_without_an_english_period(controller, qtbot, tmp_path):
    """A Korean Vosk model's words pass through unmarked: neither the text after Stop nor a restored
    journal gets a period after its last word in an export; an English session's still does."""
    from dataclasses import replace

    from engine.session.resources import RecognizerInfo

    korean = Transcript(
        [
            TranscriptWord(text, k * 0.5, k * 0.5 + 0.4, settled=True)
            for k, text in enumerate(["안녕하세요", "여러분"])
        ]
    )
    info = RecognizerInfo("vosk", "", "/models/vosk-model-small-ko-0.22", marks="recognizer", language="ko")
    for name, session, english, ends in (
        ("after-stop", info, None, ""),  # the session's recognizer says
        ("restored", replace(info, language="en-us"), False, ""),  # the journal says
        ("english", replace(info, language="en-us"), None, "."),
    ):
        controller.bridge.recognizer_info = session
        with qtbot.waitSignal(controller.final_shown, timeout=30000):
            controller.show_final(korean, english=english)
        for fmt in ("txt", "srt"):
            job = controller.export_to(tmp_path / f"{name}.{fmt}")
            qtbot.waitUntil(lambda job=job: not job.running, timeout=30000)
            assert job.error is None, job.error
            text = (tmp_path / f"{name}.{fmt}").read_text(encoding="utf-8")
            assert f"여러분{ends}\n" in text and ("." in text) == bool(ends), (name, text)


def test_the_export_dialog_offers_every_engine_format_and_writes_the_one_chosen(
    controller, qtbot, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QFileDialog

    from engine import EXPORT_FORMATS

    with qtbot.waitSignal(controller.final_shown, timeout=30000):
        controller.show_final(live_words(4))
    offered = []

    def ask(parent, caption, suggested, filters):
        offered.append(filters.split(";;"))
        return str(tmp_path / "notes"), EXPORT_FORMATS["md"].dialog_filter  # no extension typed

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(ask))
    statuses = []
    controller.status.connect(lambda message, ms: statuses.append(message))
    controller.export_dialog()
    assert offered == [[f.dialog_filter for f in EXPORT_FORMATS.values()]]
    assert "Markdown meeting notes (*.md)" in offered[0]
    qtbot.waitUntil(lambda: f"Exported to {tmp_path / 'notes.md'}" in statuses, timeout=30000)
    notes = (tmp_path / "notes.md").read_text(encoding="utf-8")
    assert notes.startswith("# Transcript\n\n**[0:00]** ") and "word3" in notes.lower(), notes
