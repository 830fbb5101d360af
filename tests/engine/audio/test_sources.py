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
