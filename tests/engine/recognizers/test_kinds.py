"""The one list of recognizer kinds (engine/recognizers/kinds.py): what the real recognizers
declare agrees with their kind, a recognizer in its own process declares what the one inside it
does, the one factory honours each kind's options, and every front end offers exactly the list."""

import numpy as np
import pytest

from engine.recognizers import Recognizer, RecognizerError
from engine.recognizers.base import DECLARATIONS
from engine.recognizers.isolated import IsolatedRecognizer
from engine.recognizers.kinds import (
    CHOICES,
    KINDS,
    NAMES,
    POCKETSPHINX,
    VOSK,
    WHISPER,
    best_built_in,
    find_kind,
    open_vosk,
    recognizer_kind,
)
from engine.recognizers.select import open_recognizer
from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model


def assert_declares_its_kind(recognizer) -> None:
    kind = recognizer_kind(recognizer.name)
    assert isinstance(recognizer, Recognizer)
    assert (recognizer.writes_marks, recognizer.commits_words) == (kind.writes_marks, kind.commits_words)
    if kind.language is not None:
        assert recognizer.language == kind.language
    # Only a kind with a built-in model runs without a folder.
    assert recognizer.model_path is not None or kind.built_in_model
    assert not recognizer.closed
    recognizer.close()
    assert recognizer.closed


def test_the_list_names_each_kind_once_and_looks_them_up():
    assert NAMES == ("vosk", "whisper", "pocketsphinx") and CHOICES == ("auto", *NAMES)
    assert all(recognizer_kind(k.name) is k for k in KINDS)
    assert find_kind("kaldi") is None
    with pytest.raises(
        RecognizerError, match="Unknown recognizer 'kaldi'.*'vosk', 'whisper', 'pocketsphinx'"
    ):
        recognizer_kind("kaldi")
    assert best_built_in() is WHISPER  # built in, and no last resort
    assert VOSK.downloads_models and not VOSK.built_in_model
    assert WHISPER.built_in_model and WHISPER.takes_model and not POCKETSPHINX.takes_model


def test_pocketsphinx_declares_its_kind_in_this_process_and_in_its_own():
    here = open_recognizer("pocketsphinx").recognizer
    assert_declares_its_kind(here)
    with pytest.raises(RecognizerError, match="closed"):
        here.accept(np.zeros(1600, np.int16))
    isolated = open_recognizer("pocketsphinx", isolated=True).recognizer
    assert isinstance(isolated, IsolatedRecognizer)
    assert_declares_its_kind(isolated)


def test_vosk_declares_its_kind_and_its_models_language(tmp_path):
    folder = write_tiny_vosk_model(tmp_path / "vosk-model-small-ko-0.22")
    recognizer = open_recognizer("vosk", folder).recognizer
    assert recognizer.language == "ko" and recognizer.model_path == folder
    assert_declares_its_kind(recognizer)


def test_a_recognizer_in_its_own_process_declares_what_the_one_inside_declares(tmp_path):
    """Declarations that depend on the model, not the kind, come back from the child process."""
    folder = write_tiny_vosk_model(tmp_path / "vosk-model-small-ko-0.22")
    inside = open_recognizer("vosk", folder).recognizer
    child = IsolatedRecognizer(open_vosk, "vosk", folder=folder, live=True, verbose=False, options={})
    try:
        assert {name: getattr(child, name) for name in DECLARATIONS} == {
            name: getattr(inside, name) for name in DECLARATIONS
        }
        assert child.language == "ko" and child.model_path == folder
    finally:
        child.close()


def test_whisper_declares_its_kind_and_revises_its_writing_only_live():
    live = open_recognizer("whisper", models_dir=None).recognizer
    assert live.revises_writing and not live.multilingual and live.language == "en"
    assert_declares_its_kind(live)
    whole_file = open_recognizer("whisper", models_dir=None, live=False).recognizer
    assert not whole_file.revises_writing
    assert_declares_its_kind(whole_file)


def test_the_factory_hands_each_kind_its_own_options_and_refuses_the_others(tmp_path):
    batch = open_recognizer("pocketsphinx", options={"final_pass": True}).recognizer
    assert batch.final_pass  # a measuring tool's setting wins over live's one pass
    assert batch._decoder.config["fwdflat"] is True
    with pytest.raises(RecognizerError, match="Vosk takes no options"):
        open_recognizer("vosk", write_tiny_vosk_model(tmp_path / "tiny"), options={"final_pass": True})
    with pytest.raises(RecognizerError, match="Unknown Whisper option"):
        open_recognizer("whisper", models_dir=None, options={"final_pass": True})


def test_the_command_line_offers_exactly_the_list():
    from engine.cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("transcribe", "listen", "dictate"):
        option = next(a for a in commands[name]._actions if a.dest == "recognizer")
        assert tuple(option.choices) == CHOICES, name
