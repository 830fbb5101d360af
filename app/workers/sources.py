"""What the app can record: the device scan behind the source picker, and the meeting choice
(the microphone beside the others' side). Opening a source (and pausing it) is the engine's
(``from engine import SourceChoice, open_source``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import SourceChoice

__all__ = ["DeviceScan", "MeetingChoice", "scan_applications", "scan_devices"]


# ---- what can be recorded ----------------------------------------------------------------------------
@dataclass
class DeviceScan:
    """The microphones, system-audio monitors and applications playing sound found, and why a
    kind is missing (or "")."""

    microphones: list[str]
    default_microphone: str | None
    monitors: list[tuple[str, str]]  # (name for the source, description for people)
    microphone_problem: str = ""
    monitor_problem: str = ""
    applications: list[str] = field(default_factory=list)  # names, each once, as the server lists them
    application_problem: str = ""


@dataclass(frozen=True)
class MeetingChoice:
    """A meeting: ``microphone`` (Me) captioned beside ``others`` (the system audio, or one
    application's: ``SourceChoice("app", NAME)``). Quacks like a ``SourceChoice`` where the window
    only asks what kind of source it has and what to call it."""

    others: SourceChoice
    microphone: SourceChoice = SourceChoice("mic")
    kind = "meeting"

    @property
    def others_label(self) -> str:
        return "system audio" if self.others.kind == "system" else self.others.label

    @property
    def label(self) -> str:
        return f"{self.microphone.label} and {self.others_label}"


def _list_microphones():
    from engine import list_input_devices

    return list_input_devices()


def _list_monitors():
    from engine import list_monitor_sources

    return list_monitor_sources()


def _list_applications():
    from engine import list_applications

    return list_applications()


def scan_applications() -> tuple[list[str], str]:
    """(names of the applications playing sound now, each once; why none can be listed, or "").
    Never raises; asks the sound server (pactl), so call it off the UI thread."""
    try:
        names = [app.name for app in _list_applications()]
    except Exception as exc:  # AudioError: no pactl, no sound server, not Linux
        return [], str(exc)
    return list(dict.fromkeys(names)), ""


def scan_devices() -> DeviceScan:
    """List what can be recorded; never raises (a machine with no sound at all is a valid answer).
    Slow-ish (PortAudio, pactl): call it off the UI thread."""
    mics, default, problem = [], None, ""
    try:
        for device in _list_microphones():
            if device.name not in mics:  # the same device through several host APIs
                mics.append(device.name)
            if device.is_default:
                default = device.name
    except Exception as exc:  # no PortAudio library (OSError), PortAudio failing to start
        problem = f"Microphones are unavailable: {exc}"
    if not mics and not problem:
        problem = (
            "No microphone was found. Plug one in and check that it is not muted or disabled "
            "in the system sound settings, or caption system audio or a file instead."
        )
    monitors, monitor_problem = [], ""
    try:
        monitors = [(m.name, m.description) for m in _list_monitors()]
    except Exception as exc:  # AudioError: no pactl, no sound server, not Linux
        monitor_problem = str(exc)
    applications, application_problem = scan_applications()
    return DeviceScan(mics, default, monitors, problem, monitor_problem, applications, application_problem)
