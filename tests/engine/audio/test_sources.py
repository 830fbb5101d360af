"""Source specs as a person writes them (``--source``): mic, system, app:NAME or a file."""

import pytest

from engine.audio.base import AudioError
from engine.audio.sources import SourceChoice, SourceSpecError, parse_source


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("mic", SourceChoice("mic")),
        ("System", SourceChoice("system")),
        (" system ", SourceChoice("system")),
        ("app:Zoom", SourceChoice("app", "Zoom")),
        ("app: Google Chrome ", SourceChoice("app", "Google Chrome")),
        ("APP:firefox", SourceChoice("app", "firefox")),
        ("talk.wav", SourceChoice("file", "talk.wav")),
        ("recordings/monday", SourceChoice("file", "recordings/monday")),
    ],
)
def test_good_specs(spec, expected):
    assert parse_source(spec) == expected


def test_an_existing_file_without_a_suffix_is_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "meeting").write_bytes(b"")
    assert parse_source("meeting") == SourceChoice("file", "meeting")


@pytest.mark.parametrize(
    "spec,says",
    [
        ("app:", "app: needs the application's name"),
        ("app:   ", "app: needs the application's name"),
        ("", "no audio source given"),
        ("sytem", "unknown audio source 'sytem'; use mic, system, app:NAME"),
        ("zoom:", "unknown audio source 'zoom:'"),
    ],
)
def test_bad_specs_are_one_line(spec, says):
    with pytest.raises(SourceSpecError) as info:
        parse_source(spec)
    assert says in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, AudioError) and isinstance(info.value, ValueError)


def test_a_session_is_described_by_its_sources_names_never_the_servers():
    from engine.audio.echo_cancel import SOURCE_NAME, EchoCancelledSource
    from engine.audio.sources import describe_sources

    # The meeting's microphone recorded through the echo canceller is still the microphone.
    cancelled = EchoCancelledSource(SOURCE_NAME)
    assert cancelled.name == "microphone" and SOURCE_NAME not in cancelled.name
    assert describe_sources(cancelled.name, "Zoom") == "microphone + Zoom"
    assert describe_sources("talk.wav") == "talk.wav" and describe_sources("talk.wav", None) == "talk.wav"
    # A journal written before the source had a name of its own says the server's.
    assert describe_sources(SOURCE_NAME, "Zoom") == "microphone + Zoom"


def test_recover_list_names_a_meetings_sources():
    from pathlib import Path

    from engine.cli.recover import describe
    from engine.transcript.journal import JournalContents

    header = {
        "started": "2026-12-07T10:00:00+00:00",
        "source": "livecap_echo_cancelled",
        "others_source": "Zoom",
    }
    line = describe(JournalContents(Path("session-20261207-100000.jsonl"), header=header))
    assert "from microphone + Zoom (" in line and "livecap_echo" not in line
