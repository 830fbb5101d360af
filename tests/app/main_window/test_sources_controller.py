"""The sources part of the captions window on its own: real picker and banners, a real device
scan on the job runner (PortAudio and pactl replaced by lists), the choice kept in the settings."""

import pytest

from app import settings as keys
from app.workers import sources
from engine import SourceChoice
from engine.audio.microphone import InputDevice
from engine.audio.system_audio import MonitorSource


@pytest.fixture
def controller(sources_controller):
    return sources_controller


def test_no_microphone_offers_system_audio_and_choosing_it_is_remembered(
    controller, qtbot, monkeypatch, settings
):
    monkeypatch.setattr(sources, "_list_microphones", list)
    monkeypatch.setattr(
        sources,
        "_list_monitors",
        lambda: [MonitorSource("desk.monitor", "Desk speakers", None, "s16le 2ch 48000Hz", "IDLE")],
    )
    with qtbot.waitSignal(controller.scanned, timeout=10000) as scanned:
        controller.scan_devices()
    assert scanned.args[0].microphones == [] and controller.last_scan is scanned.args[0]
    banner = controller.banners.banners["audio"]
    assert "No microphone was found" in controller.banners.text("audio")
    assert list(banner.buttons) == ["Play a file…", "Use system audio"]
    banner.buttons["Use system audio"].click()
    assert controller.choice == SourceChoice("system") and controller.banners.text("audio") is None
    assert settings.get(keys.SOURCE_KIND) == "system"


def test_a_named_microphone_that_is_unplugged_is_said_and_restored_from_the_settings(
    controller, qtbot, monkeypatch, settings
):
    builtin = InputDevice("Built-in Microphone", 0, 48000.0, 2, "ALSA", True)
    monkeypatch.setattr(sources, "_list_microphones", lambda: [builtin])
    monkeypatch.setattr(sources, "_list_monitors", list)
    settings.set(keys.SOURCE_KIND, "mic")
    settings.set(keys.INPUT_DEVICE, "USB Headset")
    controller.restore()
    assert controller.choice == SourceChoice("mic", "USB Headset")
    with qtbot.waitSignal(controller.scanned, timeout=10000):
        controller.scan_devices()
    assert "“USB Headset” is not connected" in controller.banners.text("audio")
    controller.banners.banners["audio"].buttons["Use the default microphone"].click()
    assert controller.choice == SourceChoice("mic") and settings.get(keys.INPUT_DEVICE) == ""
    # A device lost mid-session, then back.
    controller.device_lost("The microphone was unplugged.")
    assert controller.banners.text("audio") == "The microphone was unplugged."
    controller.hide_problem()
    assert controller.banners.text("audio") is None


def test_a_file_is_not_remembered(controller, settings, tmp_path):
    settings.set(keys.SOURCE_KIND, "system")
    controller.picker.add_file(str(tmp_path / "talk.wav"))
    assert controller.choice.kind == "file"
    assert settings.get(keys.SOURCE_KIND) == "system"
    settings.set(keys.SOURCE_KIND, "file")  # as an older version could leave it
    controller.restore()
    assert controller.choice.kind == "mic"
