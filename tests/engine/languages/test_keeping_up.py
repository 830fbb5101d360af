"""Whisper base live on a CPU too slow for it: the timed probe refuses in one line with the ways
out (English captions, or the recording transcribed afterwards) rather than captions that fall
further and further behind; and the cadence it streams at is its kind's declared one."""

import pytest

from engine.cli.main import main
from engine.recognizers import select
from engine.recognizers.base import RecognizerError
from engine.recognizers.kinds import WHISPER_BASE
from engine.recognizers.select import live_load, open_recognizer


@pytest.mark.real_probe
def test_base_streams_at_its_declared_cadence_and_says_what_its_probe_found(pack_data):
    try:
        recognizer = open_recognizer("whisper-base", options={"language": "de"}, models_dir=None).recognizer
    except RecognizerError as exc:  # a CPU too slow for it: the refusal is the other way this ends
        assert "cannot keep up with live speech on this computer" in str(exc)
        return
    try:
        assert recognizer.options.cadence == WHISPER_BASE.live_cadence
        # and hears its declared encoder window, the one its probe and limit were measured with
        assert recognizer.options.encoder_least == WHISPER_BASE.live_encoder_least
        # It opened, so its timed decode fitted the kind's limit of that cadence.
        assert 0 < live_load(recognizer) <= WHISPER_BASE.live_load_limit
    finally:
        recognizer.close()


@pytest.mark.real_probe
def test_a_cadence_no_cpu_can_decode_in_is_refused_with_the_ways_out(pack_data):
    # A decode every 0.1 s: one decode of base (its encoder hears 10 s at least) costs several
    # times that on any CPU, so the real probe, timed, finds it cannot keep up; the window's
    # fall-back to the built-in recognizer must not apply either (it hears English only).
    for fall_back in (False, True):
        with pytest.raises(RecognizerError) as caught:
            open_recognizer(
                "whisper-base",
                options={"language": "de", "task": "translate", "cadence": 0.1},
                models_dir=None,
                fall_back=fall_back,
            )
        message = str(caught.value)
        assert message.startswith("Whisper base cannot keep up with live speech on this computer (")
        assert "caption English instead (--language en)" in message
        assert "`livecap transcribe FILE --language de --translate`" in message
        assert "\n" not in message


def test_a_file_transcription_is_never_refused(pack_data, monkeypatch):
    monkeypatch.setattr(select, "live_load", lambda recognizer: 100.0)  # the slowest CPU there is
    recognizer = open_recognizer("whisper-base", live=False, options={"language": "de"}, models_dir=None)
    recognizer.recognizer.close()


@pytest.mark.needs_espeak
def test_listen_on_a_slow_cpu_says_so_in_one_line_and_exits(pack_data, german_wav, monkeypatch, capsys):
    # The CPU is the absent hardware here: its probe reports a decode four times the cadence.
    monkeypatch.setattr(select, "live_load", lambda recognizer: 4.0)
    code = main(["listen", "--source", str(german_wav), "--realtime", "--language", "de"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert any(
        "cannot keep up with live speech on this computer (one decode takes 400%" in line for line in err
    )
    assert any("`livecap transcribe FILE --language de`" in line for line in err)
