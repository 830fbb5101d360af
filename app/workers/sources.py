"""What the app can record: the device scan behind the source picker. Opening a source (and
pausing it) is the engine's (``from engine import SourceChoice, open_source``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DeviceScan", "scan_devices"]


# ---- what can be recorded ----------------------------------------------------------------------------
@dataclass
class DeviceScan:
    """The microphones and system-audio monitors found, and why a kind is missing (or "")."""

    microphones: list[str]
    default_microphone: str | None
    monitors: list[tuple[str, str]]  # (name for the source, description for people)
    microphone_problem: str = ""
    monitor_problem: str = ""


def _list_microphones():
    from engine import list_input_devices

    return list_input_devices()


def _list_monitors():
    from engine import list_monitor_sources

    return list_monitor_sources()


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
    return DeviceScan(mics, default, monitors, problem, monitor_problem)
