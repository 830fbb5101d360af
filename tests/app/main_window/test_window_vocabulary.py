"""A caption word's "Add to vocabulary…" in the captions window (offscreen Qt, the real window,
the user's vocabulary file in the test's folder): the action on a word and on a selection, the
dialog pre-filled with what was recognized, the entry saved, and learned from then on: by the
running session (a term added in Settings → Vocabulary too), by the next one, and by a file
transcribed again by PocketSphinx."""

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtGui import QTextCursor

from app.main_window.vocabulary_controller import ADD_TO_VOCABULARY
from app.workers.session_bridge import IDLE, RUNNING
from engine import session_vocabulary, user_vocabulary_path
from engine.audio.file_source import FileSource
from engine.events import Appended, Settled
from engine.punctuation.streaming import StreamingDecoder
from engine.session.live import LiveSession
from engine.words import Word
from tests.scripted import ScriptedRecognizer
from tests.speech import SENTENCE

pytestmark = [pytest.mark.gui]


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the user's vocabulary here
    return tmp_path / "config"


def show_captions(window, sentence: str) -> None:
    """``sentence``'s words as settled captions, as the bridge hands a session's events over."""
    events = []
    for k, text in enumerate(sentence.split()):
        events += [Appended(k, Word(text, k * 0.4, k * 0.4 + 0.3)), Settled(k, "none", "lower", 1, text)]
    window.bridge.builder.apply(events)
    window.bridge.captions_changed.emit(events, ())


def point_at(window, text: str, select: bool = False):
    """The viewport point on ``text`` in the captions (selected when ``select``)."""
    view = window.view
    at = view.toPlainText().index(text)
    cursor = QTextCursor(view.document())
    cursor.setPosition(at)
    if select:
        cursor.setPosition(at + len(text), QTextCursor.MoveMode.KeepAnchor)
        view.setTextCursor(cursor)
    cursor.setPosition(at + 1)
    return view.cursorRect(cursor).center()


def add_action(menu):
    return next((a for a in menu.actions() if a.text() == ADD_TO_VOCABULARY), None)


def test_a_caption_words_menu_adds_it_and_the_running_and_next_sessions_learn_it(
    window, config, qtbot, tmp_path, tiny_model
):
    show_captions(window, "we ran the cubicle command")
    menu = window.vocabulary.context_menu(point_at(window, "cubicle"))
    assert [a.text() for a in menu.actions() if a.text()][-1] == ADD_TO_VOCABULARY
    assert "Copy" in " ".join(a.text() for a in menu.actions())  # the view's own items stay

    # A session is running (built, not started: its sides take the new matcher at their next batch).
    wav = tmp_path / "silence.wav"
    sf.write(wav, np.zeros(1600, np.int16), 16_000, subtype="PCM_16")
    session = LiveSession(
        FileSource(wav, realtime=False), ScriptedRecognizer([]), StreamingDecoder.from_model(tiny_model)
    )
    window.bridge.session, window.bridge.state = session, RUNNING
    try:
        add_action(menu).trigger()
        dialog = window.vocabulary.dialog
        assert dialog.isVisible()
        assert (dialog.spoken.text(), dialog.term.text()) == ("cubicle", "cubicle")  # as recognized
        assert dialog.term.selectedText() == "cubicle"  # typing corrects it
        dialog.term.setText("kubectl")
        assert dialog.save()
        qtbot.waitUntil(lambda: session.sides[0].terms.wanted.vocabulary.find("kubectl") is not None)
        window.open_settings()  # a term added in Settings → Vocabulary reaches the session too
        page = window.settings_dialog.vocabulary_page
        assert page.terms() == ["kubectl"]
        added = page.add_term("PostgreSQL", "post gres")
        assert added.save()
        qtbot.waitUntil(lambda: session.sides[0].terms.wanted.vocabulary.find("PostgreSQL") is not None)
        window.settings_dialog.reject()
    finally:
        window.bridge.session, window.bridge.state = None, IDLE
    assert user_vocabulary_path().read_text(encoding="utf-8").splitlines()[-2:] == [
        "kubectl: cubicle",
        "PostgreSQL: post gres",
    ]
    assert session.engine.decoder.casing.render("kubectl", "capitalized", None)[1] == "kubectl"
    assert window.spec().vocabulary.find("kubectl").spoken == ("cubicle",)  # the next session's


def test_no_word_under_the_pointer_offers_no_action(window, config):
    show_captions(window, "hello there")
    assert add_action(window.vocabulary.context_menu(window.view.viewport().rect().bottomRight())) is None


def test_a_bad_vocabulary_file_is_said_and_the_session_runs_without_it(window, config):
    user_vocabulary_path().parent.mkdir(parents=True)
    user_vocabulary_path().write_text("kubectl\nKubectl: cube control\n", encoding="utf-8")
    assert not window.spec().vocabulary
    said = window.banners.text("vocabulary")
    assert "line 2: 'Kubectl' is already on line 1" in said and "Settings → Vocabulary" in said


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_term_learned_from_a_right_click_is_written_in_a_file_transcribed_again(
    window, config, qtbot, tiny_model, speech_wav
):
    """The user selects "going to" in the captions and teaches "GoTo"; a file of the project's
    own speech (espeak-ng's, which says "going to") is then transcribed by PocketSphinx with the
    user's vocabulary, as ``livecap transcribe`` reads it: the transcript writes "GoTo"."""
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
    from engine.session.batch import transcribe_file

    show_captions(window, SENTENCE)
    add_action(window.vocabulary.context_menu(point_at(window, "going to", select=True))).trigger()
    dialog = window.vocabulary.dialog
    assert dialog.spoken.text() == "going to"
    dialog.term.setText("GoTo")
    assert dialog.save()
    transcript = transcribe_file(
        speech_wav, PocketSphinxRecognizer(final_pass=True), tiny_model, vocabulary=session_vocabulary()
    )
    written = [w.text for w in transcript.words]
    assert "GoTo" in written and "going" not in written, written
    assert transcript.words[written.index("GoTo")].word == "GoTo"  # its form, not "Goto"
