"""Dictation into a real X11 text field in its own process, under Xvfb, typed by xdotool.

The target is ``text_target.py`` (a Tk text widget); what it holds at the end must equal what
livecap settled, exactly.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from engine.audio.file_source import FileSource
from engine.dictation.sink import DictationSink
from engine.dictation.typed_text import PressKey, TypeText
from engine.dictation.typists import XdotoolTypist, choose_typist
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session.live import LiveSession
from tests.speech import write_speech_wav


def dictate_through(session):
    """Run ``session`` to its end with typing on; (the sink, the settled transcript)."""
    sink = DictationSink(choose_typist())
    session.subscribe(sink)
    sink.start()
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    assert sink.drain(60)
    sink.stop()
    return sink, transcript


def test_xdotool_types_any_unicode_intact_and_presses_keys(target):
    typist = choose_typist()
    assert isinstance(typist, XdotoolTypist) and typist.focused_window() is not None
    text = "Zoë’s café, naïve Ünal and Ørsted — «Ω» Straße. Ça va?"
    typist.send([TypeText(text), PressKey("Return"), TypeText("next line x"), PressKey("BackSpace", 2)])
    assert target.finish() == text + "\nnext line"


@pytest.mark.needs_espeak
@pytest.mark.slow
def test_a_spoken_file_is_typed_exactly_as_the_session_settled_it(target, tmp_path, tiny_model):
    speech = write_speech_wav(tmp_path / "speech.wav", repeats=2)
    session = LiveSession(
        FileSource(speech), PocketSphinxRecognizer(), StreamingDecoder.from_model(tiny_model)
    )
    sink, transcript = dictate_through(session)
    typed = target.finish()
    settled = " ".join(w.display for w in transcript.words)
    assert len(transcript.words) >= 6, "PocketSphinx heard too little to test with"
    assert typed == settled
    assert sink.words_typed == len(transcript.words) and sink.error is None
    # it appeared as the words became final, not in one piece at the end
    assert len({c["text"] for c in target.changes()}) >= 3


def test_stopping_dictation_types_nothing_more(target):
    from engine.dictation.typed_text import DictationText
    from engine.events import Appended, Finalized, Settled
    from engine.words import Word

    sink = DictationSink(choose_typist()).start()
    sink([Appended(0, Word("hello")), Settled(0, "period", "capitalized", 1, "Hello"), Finalized(1)])
    assert sink.drain(20)
    sink.stop()
    sink([Appended(1, Word("more")), Settled(1, "period", "capitalized", 1, "More"), Finalized(2)])
    assert not sink.running and target.finish() == "Hello."
    assert isinstance(sink.text, DictationText)


def test_words_a_recognizer_replaced_never_reach_the_typed_text(target, tmp_path, tiny_model):
    import numpy as np
    import soundfile as sf

    from tests.scripted import ScriptedRecognizer

    wrong = ["we", "wreck", "a", "nice", "beach"]
    right = ["we", "recognize", "speech", "today"]
    script = [(wrong[: i + 1], None) for i in range(len(wrong))] + [(wrong, None)] * 3
    script += [(right, None)] * 6 + [([], right)]  # it changes its mind, then ends the utterance
    script += [(["it", "works"], None)] * 3 + [([], ["it", "works"])]
    silence = tmp_path / "silence.wav"
    sf.write(silence, np.zeros(16000 * 3, np.int16), 16000, subtype="PCM_16")  # 30 chunks of 0.1 s
    recognizer = ScriptedRecognizer(script)
    session = LiveSession(FileSource(silence), recognizer, StreamingDecoder.from_model(tiny_model))
    retracted = []
    session.subscribe(lambda events: retracted.extend(e for e in events if type(e).__name__ == "Retracted"))
    _, transcript = dictate_through(session)
    typed = target.finish()
    assert retracted, "the script must make the stabiliser retract words"
    assert [w.text for w in transcript.words] == right + ["it", "works"]
    assert typed == " ".join(w.display for w in transcript.words)
    assert not {"wreck", "nice", "beach"} & set(typed.lower().replace(",", " ").replace(".", " ").split())


def sentence(sink, first: int, words: str, end: bool = True) -> int:
    """Feed one utterance as settled, final words (the decoder's forms), and wait for the typing."""
    from engine.events import Appended, Finalized, Settled
    from engine.words import Word

    texts = words.split()
    events = []
    for i, text in enumerate(texts):
        mark = "period" if end and i == len(texts) - 1 else "none"
        form = text.capitalize() if i == 0 and first >= 0 else text
        events += [Appended(first + i, Word(text)), Settled(first + i, mark, "lower", 1, form)]
    sink(events + [Finalized(first + len(texts))])
    assert sink.drain(20)
    return first + len(texts)


def test_a_focus_change_mid_sentence_skips_its_rest_and_the_next_sentence_goes_to_the_new_window(
    target, tmp_path
):
    from engine.evaluation.text_field import TextField

    sink = DictationSink(choose_typist()).start()
    p = sentence(sink, 0, "first one here")
    p = sentence(sink, p, "second starts", end=False)
    other = TextField(target.display, tmp_path / "other.json")  # takes the focus, as a click would
    try:
        p = sentence(sink, p, "and ends elsewhere")
        p = sentence(sink, p, "third goes there")
        sink.stop()
        assert target.finish() == "First one here. Second starts"
        assert other.finish() == "Third goes there."
    finally:
        other.process.kill()


def test_a_window_of_this_process_is_never_typed_into(target):
    if shutil.which("xprop") is None:
        pytest.skip("xprop is not installed (apt-get install x11-utils): it marks the window as ours")
    typist = choose_typist()
    window = typist.focused_window()
    # The field now says it belongs to this process, as livecap's own Qt windows do.
    subprocess.run(
        ["xprop", "-id", window, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID", str(os.getpid())],
        check=True,
    )
    assert typist.window_pid(window) == os.getpid()
    sink = DictationSink(typist).start()
    sentence(sink, 0, "not in here")
    sink.stop()
    assert target.finish() == ""
