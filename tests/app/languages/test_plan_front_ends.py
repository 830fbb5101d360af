"""The command line and the window, on the same choices, resolve the same recognition plan
(``engine.session.plan``): English with translate is English transcription on both, with nothing
to translate, and any other choice asks for the same recognizer and decides the same marks."""

import pytest

from app import settings as keys
from engine.cli.listen import session_spec
from engine.cli.main import build_parser
from engine.session.plan import resolve_plan

pytestmark = [pytest.mark.gui]

# (the window's settings, the same choices as `livecap listen` flags)
SAME_CHOICES = [
    ({keys.LANGUAGE: "en", keys.TRANSLATE: True}, ["--translate"]),
    ({keys.LANGUAGE: "de", keys.TRANSLATE: True}, ["--language", "de", "--translate"]),
    (
        {keys.LANGUAGE: "auto", keys.TRANSLATE: False, keys.MARKS: "engine"},
        ["--language", "auto", "--marks", "engine"],
    ),
    (
        {keys.LANGUAGE: "en", keys.ACCURACY: "best", keys.MARKS: "recognizer"},
        ["--accuracy", "best", "--marks", "recognizer"],
    ),
]


@pytest.fixture(scope="module")
def pocketsphinx():
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

    recognizer = PocketSphinxRecognizer()
    yield recognizer
    recognizer.close()


def test_the_command_line_and_the_window_resolve_the_same_plan(
    window, settings, pack, pocketsphinx, tiny_model
):
    for chosen, flags in SAME_CHOICES:
        for key, value in chosen.items():
            settings.set(key, value)
        in_window = window.spec().recognition
        on_command_line = session_spec(build_parser().parse_args(["listen", *flags])).recognition
        assert in_window == on_command_line, flags
        for live in (True, False):
            window_plan = resolve_plan(in_window, pocketsphinx, tiny_model, live)
            assert window_plan == resolve_plan(on_command_line, pocketsphinx, tiny_model, live), flags
        for key in chosen:
            settings.set(key, key.default)
    # English with translate: tiny.en (the recognizer asked for), transcribing, on both.
    settings.set(keys.LANGUAGE, "en")
    settings.set(keys.TRANSLATE, True)
    plan = resolve_plan(window.spec().recognition, pocketsphinx, tiny_model)
    assert (plan.kind, plan.options, plan.choice.translate) == ("auto", {}, False)
    assert window.language.line() == "Whisper tiny.en · English"
