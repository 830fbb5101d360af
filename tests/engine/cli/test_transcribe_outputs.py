"""``livecap transcribe`` checks what it can before any work: the output format, that each output
folder exists and takes a file, and every input, going on with the good inputs when some are bad.
Real subprocesses, real PocketSphinx on espeak-ng speech, a real unwritable folder (/sys)."""

import io
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.engine.cli.conftest import livecap
from tests.engine.cli.test_listen import one_line_error
from tests.speech import write_speech_wav


@pytest.fixture
def silent_wav(tmp_path):
    path = tmp_path / "talk.wav"
    sf.write(path, np.zeros(16000 * 2, np.int16), 16000, subtype="PCM_16")
    return path


def transcribe(env, *args):
    return livecap(env, "transcribe", "--recognizer", "pocketsphinx", *args, timeout=120)


def test_a_missing_output_folder_is_refused_not_created(silent_wav, tmp_path, env, tiny_model_dir):
    folder = tmp_path / "no-such-folder"
    r = transcribe(env, silent_wav, "--model-dir", tiny_model_dir, "-o", folder / "x.srt")
    one_line_error(r, str(folder), "does not exist", "mkdir -p", "-o")
    assert r.returncode == 2 and not folder.exists()


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs Linux's /sys, where no file can be created")
def test_an_unwritable_output_is_refused_before_any_recognizing(silent_wav, env, tiny_model_dir):
    # /sys takes no new file, even from root (for whom permission bits prove nothing).
    r = transcribe(env, silent_wav, "--model-dir", tiny_model_dir, "-o", "/sys/livecap-test.txt")
    one_line_error(r, "/sys", "-o")  # one line: no progress bar was ever drawn
    assert r.returncode == 2 and "recognizing" not in r.stderr


@pytest.mark.parametrize("name", ["out.xyz", "out.docx", "out.TXT.bak"])
def test_an_unknown_output_extension_is_refused_naming_the_known_ones(silent_wav, tmp_path, env, name):
    r = transcribe(env, silent_wav, "-o", tmp_path / name)
    one_line_error(r, Path(name).suffix, ".txt", ".srt", ".vtt", ".json", ".md", "--format")
    assert r.returncode == 2 and not (tmp_path / name).exists()


def test_an_explicit_format_may_go_to_any_name(silent_wav, tmp_path, env, tiny_model_dir):
    r = transcribe(
        env, silent_wav, "--model-dir", tiny_model_dir, "--format", "srt", "-o", tmp_path / "o.sub"
    )
    assert r.returncode == 0, r.stderr  # silence: nothing written, but nothing refused either
    assert "no speech was recognized" in r.stderr


@pytest.mark.needs_espeak
def test_bad_inputs_are_each_named_and_the_good_ones_transcribed(tmp_path, env, tiny_model_dir):
    good = write_speech_wav(tmp_path / "good.wav", repeats=1)
    notes = tmp_path / "notes.wav"
    notes.write_text("my notes, not audio\n")
    missing = tmp_path / "missing.wav"
    r = transcribe(env, notes, good, missing, "--model-dir", tiny_model_dir)
    assert r.returncode == 2, r.stderr  # not all went well
    lines = [line for line in r.stderr.splitlines() if line.startswith("livecap:")]
    assert lines[0].startswith(f"livecap: {notes}") and "not a WAV" in lines[0]
    assert lines[1] == f"livecap: {missing}: no such file"
    assert lines[-1] == "livecap: 1 of 3 files transcribed; the others are named above"
    assert "Traceback" not in r.stderr
    assert "park" in good.with_suffix(".txt").read_text().lower()
    assert not notes.with_suffix(".txt").exists()


def test_an_existing_output_among_several_inputs_is_named_and_the_others_go_on(tmp_path, env, tiny_model_dir):
    first, second = tmp_path / "a.wav", tmp_path / "b.wav"
    for path in (first, second):
        sf.write(path, np.zeros(16000, np.int16), 16000, subtype="PCM_16")
    first.with_suffix(".txt").write_text("my notes\n")
    r = transcribe(env, first, second, "--model-dir", tiny_model_dir)
    assert r.returncode == 2, r.stderr
    assert f"livecap: {first.with_suffix('.txt')} already exists; pass --overwrite" in r.stderr
    assert f"livecap: {second}: no speech was recognized" in r.stderr  # the other one was done
    assert first.with_suffix(".txt").read_text() == "my notes\n"


def test_every_input_bad_stops_before_loading_anything(tmp_path, env):
    r = transcribe(env, tmp_path / "one.wav", tmp_path / "two.wav")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"livecap: {tmp_path / 'one.wav'}: no such file",
        f"livecap: {tmp_path / 'two.wav'}: no such file",
    ]


def test_auto_is_a_recognizer_choice(silent_wav, env, tiny_model_dir):
    r = livecap(env, "transcribe", "--recognizer", "auto", silent_wav, "--model-dir", tiny_model_dir)
    assert r.returncode == 0, r.stderr
    assert "no speech was recognized" in r.stderr


class _CtrlCOnPunctuating(io.StringIO):
    """A terminal for the progress bar that presses Ctrl-C when the bar says "punctuating"."""

    def isatty(self):
        return True

    def write(self, text):
        if "punctuating" in text and not getattr(self, "pressed", False):
            self.pressed = True
            signal.raise_signal(signal.SIGINT)
        return super().write(text)


@pytest.mark.needs_espeak
def test_ctrl_c_while_punctuating_keeps_the_whole_file(tmp_path, tiny_model_dir, monkeypatch):
    """Punctuating is quick beside recognizing: Ctrl-C there lets it finish, so the file's words
    are written whole, and the batch stops with 130. (In-process, so that the Ctrl-C lands in
    that short stage for sure.)"""
    from engine.cli.main import main
    from engine.files import paths

    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))
    speech = write_speech_wav(tmp_path / "talk.wav", repeats=1)
    later = tmp_path / "later.wav"
    sf.write(later, np.zeros(16000, np.int16), 16000, subtype="PCM_16")
    terminal = _CtrlCOnPunctuating()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(
        [
            "transcribe",
            "--recognizer",
            "pocketsphinx",
            "--model-dir",
            str(tiny_model_dir),
            str(speech),
            str(later),
        ]
    )
    assert terminal.pressed and code == 130, terminal.getvalue()
    assert "interrupted while punctuating" in terminal.getvalue()
    words = speech.with_suffix(".txt").read_text().lower().split()
    assert "park" in " ".join(words) and len(words) >= 8
    assert "later.wav" not in terminal.getvalue()  # the batch stopped there
