"""SIGTERM (logout, ``kill``) ends the window even while a dialog waits for an answer: each open
dialog is answered as "keep" (the text is not discarded, a crashed session stays offered), then
the window closes. A real signal, the real handler (``close_on_terminate``), offscreen."""

import os
import signal

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.gui import close_on_terminate
from engine.events import Appended, Settled
from engine.transcript.journal import JournalWriter, read_journal, recover
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word

pytestmark = [pytest.mark.gui]


@pytest.fixture
def signals_restored():
    kept = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield
    for signum, handler in kept.items():
        signal.signal(signum, handler)


def crashed_journal(folder):
    journal = JournalWriter.create(folder, header={"source": "test microphone"})
    events = []
    for p, text in enumerate(["we", "lost", "power", "here"]):
        events += [Appended(p, Word(text, p * 0.5, p * 0.5 + 0.3)), Settled(p, "none", "lower", 1, text)]
    journal.apply(events)
    journal.close(clean=False)  # what a crash leaves behind
    return journal.path


def test_sigterm_answers_open_dialogs_as_keep_and_closes_the_window(
    make_window, qtbot, tmp_path, signals_restored
):
    path = crashed_journal(tmp_path / "journal")
    before = path.read_bytes()
    window = make_window()
    window.confirm_on_close = True  # as users run it: closing asks before dropping unsaved text
    with qtbot.waitSignal(window.session_done, timeout=30000):
        window.text.show_final(Transcript([TranscriptWord("notes", 0.0, 0.4)]))
    assert window.text.unsaved
    close_on_terminate(window)
    recovery = window.offer_recovery()  # window-modal, open at start-up after a crash
    assert recovery is not None and recovery.isVisible()

    answers, rescued = [], []

    def ask():  # the question Clear asks, in its own event loop, as a user leaves it unanswered
        answers.append(window.text.confirm_discard())

    def rescue():  # without the fix the question would wait for ever: answer it, and fail below
        box = QApplication.activeModalWidget()
        if box is not None and box is not recovery:
            rescued.append(box.windowTitle())
            box.reject()

    QTimer.singleShot(0, ask)
    QTimer.singleShot(500, lambda: os.kill(os.getpid(), signal.SIGTERM))
    QTimer.singleShot(20000, rescue)
    qtbot.waitUntil(lambda: bool(answers), timeout=30000)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=30000)
    assert rescued == [], "the question was still open after SIGTERM"
    assert answers == [False]  # "keep": the text was not discarded
    assert not recovery.isVisible()
    assert not [
        w for w in QApplication.topLevelWidgets() if w.isVisible() and (w is window or w.parent() is window)
    ]
    # "Later": the crashed session is offered again at the next start, its journal untouched.
    assert path.read_bytes() == before and not read_journal(path).recovered
    assert [c.path for c in recover(tmp_path / "journal")] == [path]
