"""``livecap transcribe`` never destroys a file: existing outputs, same-stem inputs, silent audio.
Real subprocesses, real PocketSphinx on espeak-ng speech."""

import os
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

from tests.engine.cli.conftest import ROOT, livecap_process, read_terminal
from tests.engine.cli.test_listen import livecap, one_line_error
from tests.speech import write_speech_wav

NOTES = "my notes about the talk, typed by hand\n"


@pytest.fixture
def silent_wav(tmp_path):
    path = tmp_path / "talk.wav"
    sf.write(path, np.zeros(16000 * 2, np.int16), 16000, subtype="PCM_16")
    return path


def transcribe(env, *args):
    return livecap(env, "transcribe", "--recognizer", "pocketsphinx", *args, timeout=120)


def test_an_existing_transcript_is_kept_and_the_flag_is_named(silent_wav, env, tiny_model_dir):
    notes = silent_wav.with_suffix(".txt")
    notes.write_text(NOTES)
    one_line_error(transcribe(env, silent_wav, "--model-dir", tiny_model_dir), str(notes), "--overwrite")
    assert notes.read_text() == NOTES


def test_no_file_is_written_when_no_words_were_recognized(silent_wav, env, tiny_model_dir):
    notes = silent_wav.with_suffix(".txt")
    notes.write_text(NOTES)
    r = transcribe(env, silent_wav, "--model-dir", tiny_model_dir, "--overwrite")
    assert r.returncode == 0, r.stderr
    assert "no speech was recognized" in r.stderr and f"{notes} was not written" in r.stderr
    assert notes.read_text() == NOTES  # even --overwrite does not replace notes with nothing
    notes.unlink()
    r = transcribe(env, silent_wav, "--model-dir", tiny_model_dir)
    assert r.returncode == 0 and not notes.exists()


@pytest.mark.needs_espeak
def test_same_stem_inputs_do_not_overwrite_each_other(tmp_path, env, tiny_model_dir):
    speech, rate = sf.read(write_speech_wav(tmp_path / "speech.wav", repeats=1), dtype="int16")
    flac, ogg = tmp_path / "s.flac", tmp_path / "s.ogg"
    sf.write(flac, speech, rate)
    sf.write(ogg, speech, rate)
    # Both in one run: refused before any work, naming both inputs and the shared output.
    one_line_error(transcribe(env, flac, ogg, "--model-dir", tiny_model_dir), "s.ogg", "s.txt", "s.flac")
    assert not (tmp_path / "s.txt").exists()
    # One after the other: the second stops and the first's transcript stays.
    r = transcribe(env, flac, "--model-dir", tiny_model_dir)
    assert r.returncode == 0, r.stderr
    first = (tmp_path / "s.txt").read_text()
    assert "park" in first.lower()
    one_line_error(transcribe(env, ogg, "--model-dir", tiny_model_dir), "s.txt", "--overwrite")
    assert (tmp_path / "s.txt").read_text() == first
    r = transcribe(env, ogg, "--model-dir", tiny_model_dir, "--overwrite")
    assert r.returncode == 0, r.stderr


@pytest.mark.needs_espeak
def test_a_partly_written_wav_is_transcribed_with_one_warning(tmp_path, env, tiny_model_dir):
    data = write_speech_wav(tmp_path / "whole.wav", repeats=2).read_bytes()
    at = data.index(b"data") + 8
    cut = tmp_path / "crashed.wav"
    cut.write_bytes(data[: at + (len(data) - at) * 3 // 5 // 2 * 2])  # the recorder died at 60 %
    seconds = sf.info(cut).frames / sf.info(cut).samplerate
    r = transcribe(env, cut, "--model-dir", tiny_model_dir)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "truncated" in line]
    assert warnings == [f"livecap: {cut}: truncated: transcribing the {seconds:.1f} s that are present"]
    assert "park" in cut.with_suffix(".txt").read_text().lower()  # the first sentence is all there


@pytest.mark.needs_espeak
def test_ctrl_c_during_transcribe_keeps_what_was_heard(tmp_path, env, tiny_model_dir):
    import signal

    long = write_speech_wav(tmp_path / "long.wav", repeats=30)  # minutes of recognizing
    out = tmp_path / "long.txt"
    proc = livecap_process(
        env, "transcribe", "--recognizer", "pocketsphinx", "--model-dir", tiny_model_dir, long, "-o", out
    )
    try:
        # The bar (lines, as stderr is a pipe) says when a tenth is recognized: some sentences.
        seen = ""
        while not ("recognizing" in seen and "  10%" in seen):
            line = proc.stderr.readline()
            assert line, f"ended before it could be interrupted: {seen}"
            seen += line
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        err = seen + err
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if "interrupted" in line]
    assert f"{long}: interrupted: keeping the" in line and str(out) in line
    kept = out.read_text().split()
    assert 3 <= len(kept) < 30 * 10  # what was heard, not the whole file
    assert int(line.split("keeping the ")[1].split()[0]) == len(kept)


@pytest.mark.needs_espeak
def test_transcribe_draws_a_progress_bar_on_a_terminal(tmp_path, env, tiny_model_dir):
    speech = write_speech_wav(tmp_path / "talk.wav", repeats=2)
    master, slave = os.openpty()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "engine.cli", "transcribe", "--recognizer", "pocketsphinx"]
            + [str(speech), "--model-dir", str(tiny_model_dir)],
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(slave)
    seen = read_terminal(master)
    assert r.returncode == 0
    # one line redrawn in place, ending full, naming the file; then the transcript is written
    assert b"\r\x1b[K" in seen and b"100%" in seen and b"talk.wav" in seen, seen
    assert seen.count(b"\r\x1b[K") > 1 and "park" in (tmp_path / "talk.txt").read_text().lower()
