"""The recognition plan (``engine.session.plan``): the choices checked once, English with
translate decided once, and the plan resolved on a real recognizer and punctuation model."""

from __future__ import annotations

import pytest

from engine.recognizers.accuracy import ACCURACY_OPTION
from engine.session.build import SessionSpec
from engine.session.plan import RecognitionChoice, resolve_plan
from engine.session.resources import SessionResources


def test_a_choice_is_checked_once_and_put_in_its_normal_form():
    choice = RecognitionChoice(language=" DE ", translate=True, accuracy="best")
    assert (choice.language, choice.translate, choice.accuracy) == ("de", True, "best")
    with pytest.raises(ValueError, match="livecap models list --languages"):
        RecognitionChoice(language="klingon")
    with pytest.raises(ValueError, match="accuracy must be one of"):
        RecognitionChoice(accuracy="perfect")
    # The spec takes its language fields from the choice: one check, one normal form.
    spec = SessionSpec(language="DE", translate=True)
    assert spec.recognition == choice.__class__(language="de", translate=True)
    assert (spec.language, spec.translate) == ("de", True)


def test_english_with_translate_is_english_transcription():
    choice = RecognitionChoice(language="en", translate=True)
    assert not choice.translate and not choice.uses_language_pack
    assert choice == RecognitionChoice()
    assert choice.request(live=True) == ("auto", {})
    assert choice.request(live=False) == (
        "auto",
        {ACCURACY_OPTION: "auto"},
    )  # base for a file, where installed
    assert RecognitionChoice(language="auto", translate=True).request() == (
        "whisper-base",
        {"language": None, "task": "translate"},
    )


@pytest.fixture(scope="module")
def pocketsphinx():
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    recognizer = PocketSphinxRecognizer()
    yield recognizer
    recognizer.close()


def test_the_plan_says_whose_marks_and_why(pocketsphinx, tiny_model):
    plan = resolve_plan(RecognitionChoice(marks="recognizer"), pocketsphinx, tiny_model)
    assert plan.recognizer == "pocketsphinx" and plan.english and not plan.translating
    # PocketSphinx writes no marks: the punctuation model's, live and after Stop, and said so.
    assert (plan.marks, plan.final_marks) == ("engine", "engine")
    assert plan.notices == ("pocketsphinx writes no marks: livecap's punctuation model adds them.",)
    assert resolve_plan(RecognitionChoice(), pocketsphinx, tiny_model).notices == ()
    with pytest.raises(ValueError, match="marks must be one of"):
        resolve_plan(RecognitionChoice(marks="nobody"), pocketsphinx, tiny_model)


def test_the_preload_and_the_session_read_one_plan(pocketsphinx, tiny_model, tmp_path):
    """What the app's preload says before Start is the plan the session is built on."""
    import wave

    from engine.audio.pausable import SourceChoice
    from engine.session.build import build_live_session

    silence = tmp_path / "silence.wav"
    with wave.open(str(silence), "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(16000)
        out.writeframes(bytes(16000))
    resources = SessionResources(lambda kind, model: (pocketsphinx, ""), lambda folder: tiny_model)
    spec = SessionSpec(source=SourceChoice("file", str(silence)), marks="recognizer", journal=False)
    _, plan, said_before = resources.plan(spec)
    session, info = build_live_session(spec, resources)  # built, never started
    assert (
        (info.marks, info.final_marks) == (said_before.marks, said_before.final_marks) == ("engine", "engine")
    )
    assert plan.notices[0] in info.punctuation_notice
    assert session.engine.decoder.marks_by == plan.marks
