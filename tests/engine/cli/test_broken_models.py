"""Broken and incomplete Vosk models, as the CLI user meets them: a real
``python -m engine.cli`` on a real tiny Vosk model that libvosk loads, then damaged."""

from __future__ import annotations

import os
import subprocess
import sys
import wave

import pytest

from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model

NAME = "vosk-model-small-en-us-0.15"  # a catalogue name, so "download again" has a real command


def livecap(*args, data_dir):
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LIVECAP_DATA_DIR": str(data_dir)},
    )


@pytest.fixture
def silence(tmp_path):
    path = tmp_path / "silence.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\0\0" * 8000)
    return path


def installed_model(data_dir):
    return write_tiny_vosk_model(data_dir / "vosk-models" / NAME)


def truncate_final_mdl(model):
    mdl = model / "am" / "final.mdl"
    mdl.write_bytes(mdl.read_bytes()[: mdl.stat().st_size // 2])


def add_unknown_option(model):
    # Kaldi answers an option it does not know with its whole usage text (about 70 lines).
    with open(model / "conf" / "model.conf", "a") as conf:
        conf.write("--no-such-option=3\n")


@pytest.mark.parametrize("damage", [truncate_final_mdl, add_unknown_option])
def test_a_broken_vosk_model_fails_in_one_line_with_real_commands(tmp_path, silence, damage):
    data = tmp_path / "data"
    model = installed_model(data)
    damage(model)
    r = livecap("transcribe", str(silence), "-o", str(tmp_path / "out.txt"), data_dir=data)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) < 5, r.stderr
    assert "VoskAPI" not in r.stderr and "Options:" not in r.stderr and "Traceback" not in r.stderr
    line = lines[-1]
    assert str(model) in line and "NAME" not in line
    assert "use the built-in recognizer: --recognizer whisper" in line
    assert f"download again: livecap models download {NAME} --replace" in line
    assert f"remove: livecap models remove {NAME}" in line


def test_verbose_shows_kaldis_log(tmp_path, silence):
    data = tmp_path / "data"
    model = installed_model(data)
    add_unknown_option(model)
    r = livecap("transcribe", "--verbose", str(silence), "-o", str(tmp_path / "out.txt"), data_dir=data)
    assert r.returncode == 2 and "no-such-option" in r.stderr and "VoskAPI" in r.stderr


def test_the_ways_out_work(tmp_path, silence):
    data = tmp_path / "data"
    truncate_final_mdl(installed_model(data))
    out = tmp_path / "out.txt"
    r = livecap("transcribe", "--recognizer", "pocketsphinx", str(silence), "-o", str(out), data_dir=data)
    assert "could not load" not in r.stderr and "Traceback" not in r.stderr
    r = livecap("models", "remove", NAME, data_dir=data)
    assert r.returncode == 0 and not (data / "vosk-models" / NAME).exists()


def test_models_list_shows_an_incomplete_folder_and_how_to_repair_it(tmp_path):
    data = tmp_path / "data"
    model = installed_model(data)
    (model / "graph" / "HCLG.fst").unlink()  # unpacked by hand, a file short
    r = livecap("models", "list", "--lang", "en-us", data_dir=data)
    assert r.returncode == 0, r.stderr
    assert f"! {NAME}" in r.stdout and "incomplete: missing graph/HCLG.fst" in r.stdout
    assert f"livecap models download {NAME}, or livecap models remove {NAME}" in r.stdout
    assert "1 installed, 1 incomplete" in r.stdout  # the built-in Whisper is English too
