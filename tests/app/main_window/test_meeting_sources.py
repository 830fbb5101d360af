"""Choosing a meeting (app/main_window/source_picker.py, sources_controller.py): the picker
offers a meeting with the system audio and with each application playing sound, and one
application's sound alone; the applications are listed again while the popup is open; the
choice is remembered, an application that is not playing stays listed; the window builds the
meeting's SessionSpec and names both sides in the status bar. The device scan is the boundary:
the tests hand it lists (a real sound server is the engine's tests' business)."""

import pytest

from app import settings as keys
from app.main_window.source_picker import MEETING_WITH_SYSTEM, meeting_with
from app.workers import sources
from app.workers.sources import DeviceScan, MeetingChoice
from engine import Application, RecognizerInfo, SourceChoice, SpeakerNames

pytestmark = [pytest.mark.gui]

SCAN = DeviceScan(["Built-in Microphone"], "Built-in Microphone", [], applications=["Zoom", "Firefox"])


def app(name: str, index: int) -> Application:
    return Application(name, name.lower(), index, "desk", False)


@pytest.fixture
def controller(sources_controller):
    return sources_controller


def items(picker) -> list[str]:
    return [picker.itemText(i) for i in range(picker.count())]


def test_the_picker_offers_meetings_and_applications_from_a_scan(controller):
    picker = controller.picker
    picker.populate(SCAN, picker.choice)
    assert items(picker) == [
        "Default microphone (Built-in Microphone)",
        "Built-in Microphone",
        "System audio (what this computer plays)",
        "Meeting: microphone + system audio",
        "Meeting: microphone + Zoom",
        "Meeting: microphone + Firefox",
        "Zoom only",
        "Firefox only",
        "Play a file…",
    ]
    picker.activated.emit(picker.findText("Meeting: microphone + Zoom"))
    assert picker.choice == meeting_with("Zoom")
    assert controller.settings.get(keys.SOURCE_KIND) == "meeting"
    assert controller.settings.get(keys.MEETING_OTHERS) == "app"
    assert controller.settings.get(keys.AUDIO_APPLICATION) == "Zoom"


def test_applications_are_listed_again_while_the_popup_is_open(controller, qtbot, monkeypatch):
    playing = [app("Zoom", 3)]
    monkeypatch.setattr(sources, "_list_applications", lambda: list(playing))
    picker = controller.picker
    picker.populate(DeviceScan([], None, []), picker.choice)
    assert picker.findText("Zoom only") < 0
    picker.showPopup()
    qtbot.waitUntil(lambda: picker.findText("Zoom only") >= 0, timeout=10000)
    assert controller._applications_timer.isActive()
    picker.activated.emit(picker.findText("Zoom only"))
    assert picker.choice == SourceChoice("app", "Zoom")
    playing[:] = [app("Firefox", 7)]  # the call ended, a video plays
    qtbot.waitUntil(lambda: picker.findText("Firefox only") >= 0, timeout=10000)
    # The chosen application stays, marked; a session on it waits for its sound.
    assert picker.findText("Zoom only (not playing now)") >= 0
    assert (
        picker.choice == SourceChoice("app", "Zoom") and picker.currentText() == "Zoom only (not playing now)"
    )
    picker.hidePopup()
    assert not controller._applications_timer.isActive()


def test_a_remembered_application_shows_although_it_is_not_playing(controller, settings):
    settings.set(keys.SOURCE_KIND, "meeting")
    settings.set(keys.MEETING_OTHERS, "app")
    settings.set(keys.AUDIO_APPLICATION, "Zoom")
    controller.restore()
    assert controller.picker.choice == meeting_with("Zoom")
    assert controller.picker.currentText() == "Meeting: microphone + Zoom (not playing now)"
    controller.picker.populate(SCAN, controller.picker.choice)  # a scan: Zoom plays now
    assert controller.picker.currentText() == "Meeting: microphone + Zoom"
    settings.set(keys.MEETING_OTHERS, "system")
    controller.restore()
    assert controller.picker.choice == MEETING_WITH_SYSTEM


def test_a_meetings_microphone_is_the_one_chosen_last(controller, settings):
    controller.picker.populate(SCAN, controller.picker.choice)
    controller.choose_source(SourceChoice("mic", "Built-in Microphone"))
    controller.choose_source(meeting_with("Zoom"))
    assert controller.session_sources() == (
        SourceChoice("mic", "Built-in Microphone"),
        SourceChoice("app", "Zoom"),
    )
    info = RecognizerInfo("vosk", "", None, echo="The sound server's echo canceller cleans the microphone.")
    line = controller.captioning_line(info, SpeakerNames(me="Ana"))
    assert line == (
        "Captioning a meeting: Ana on Built-in Microphone, Others on Zoom with vosk. "
        "The sound server's echo canceller cleans the microphone."
    )
    controller.choose_source(SourceChoice("mic"))
    assert controller.session_sources() == (SourceChoice("mic"), None)


def test_the_window_builds_a_meeting_session_spec(make_window, settings):
    settings.set(keys.SOURCE_KIND, "meeting")
    settings.set(keys.MEETING_OTHERS, "system")
    settings.set(keys.INPUT_DEVICE, "USB Headset")
    window = make_window()
    spec = window.spec()
    assert spec.source == SourceChoice("mic", "USB Headset") and spec.others == SourceChoice("system")
    assert isinstance(window.sources.choice, MeetingChoice)
    window.sources.choose_source(SourceChoice("app", "Zoom"))
    spec = window.spec()
    assert spec.source == SourceChoice("app", "Zoom") and spec.others is None
