"""``livecap listen`` says when the input is the problem: one quiet line on stderr when the hint
changes, between caption lines, never inside one."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile as sf

from engine.cli.terminal_captions import TerminalCaptions
from engine.events import Appended, InputHint, Provisional, Settled
from engine.words import Word
from tests.engine.cli.conftest import livecap
from tests.speech import write_speech_wav

QUIET = "The microphone is very quiet: move closer or raise its level"


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_listening_to_a_quiet_recording_prints_the_hint_once_on_stderr(tmp_path, env, tiny_model_dir):
    wav = write_speech_wav(tmp_path / "talk.wav", repeats=3, gap=1.0)
    speech, rate = sf.read(wav, dtype="float32")
    speech *= 10 ** (-50 / 20) / np.sqrt(np.mean(speech[np.abs(speech) > 1e-3] ** 2))  # at -50 dBFS
    sf.write(wav, speech, rate, subtype="PCM_16")
    r = livecap(env, "listen", "--source", wav, "--model-dir", tiny_model_dir, "--recognizer", "pocketsphinx")
    assert r.returncode == 0, r.stderr
    hints = [line for line in r.stderr.splitlines() if "hint:" in line]
    assert hints == [f"livecap: hint: {QUIET}"], r.stderr
    assert "hint" not in r.stdout  # the captions stay clean for a pipe


def test_on_a_terminal_the_hint_takes_a_line_of_its_own_and_is_said_once_per_change():
    screen = io.StringIO()  # stdout and stderr on one terminal
    captions = TerminalCaptions(screen, screen, interactive=True, width=80)
    captions([Appended(0, Word("we")), Settled(0, "none", "capitalized", 1, "We")])
    captions([Appended(1, Word("are")), Provisional(1, "none", "lower", 0.6, "are")])
    captions([InputHint("quiet", QUIET)])
    captions([InputHint("quiet", QUIET)])  # the same hint again: nothing new to say
    captions([Appended(2, Word("here")), Settled(1, "none", "lower", 1, "are")])
    captions([Settled(2, "period", "lower", 0, "here")])
    captions([InputHint(None, "")])
    captions.finish()
    lines = [line.rsplit("\r\x1b[K", 1)[-1] for line in screen.getvalue().split("\n")]
    lines = [line for line in lines if line]
    assert lines == [
        f"livecap: hint: {QUIET}",
        "livecap: hint: the input sounds fine now",
        "We are here.",
    ]
    # the caption line was cleared before each hint, and drawn again after it
    assert screen.getvalue().count(f"\r\x1b[Klivecap: hint: {QUIET}\n") == 1


def test_a_clear_without_a_hint_before_it_says_nothing():
    out, err = io.StringIO(), io.StringIO()
    captions = TerminalCaptions(out, err, interactive=False)
    captions([InputHint(None, "")])
    captions([InputHint("noisy", "Noisy or echoey input: move closer to the microphone, or use a headset")])
    assert err.getvalue().splitlines() == [
        "livecap: hint: Noisy or echoey input: move closer to the microphone, or use a headset"
    ]
    assert out.getvalue() == ""
