"""The export formats livecap writes: one list, each format with what it declares about itself.

The command line's ``--format`` choices (``transcribe``, ``recover``, ``history export``), the format
an output file's extension names, the window's export dialog and what an untimed transcript can be
written as all read this list; nothing else spells a format's name or extension. A new format is
one entry here and its render function.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from engine.speakers.labels import SpeakerNames
from engine.transcript.cues import ExportError
from engine.transcript.exporters import to_json, to_srt, to_txt, to_vtt
from engine.transcript.markdown import to_markdown
from engine.transcript.transcript import Transcript

__all__ = [
    "DEFAULT",
    "FORMATS",
    "NAMES",
    "ExportFormat",
    "export_format",
    "format_from_path",
    "or_list",
]

# (transcript, names, *, language, translated) -> the file's text; every format's render function.
Renderer = Callable[..., str]


@dataclass(frozen=True)
class ExportFormat:
    """One export format and what it declares."""

    name: str  # what `--format` says: "srt"
    extension: str  # what its files end in, with the dot: ".srt"
    title: str  # how messages name it: "SRT"
    label: str  # its file type in the export dialog: "SubRip subtitles"
    # Every word needs its start and end (subtitles show each cue for its time).
    needs_times: bool
    # It says the language spoken and whether the words are an English translation of it.
    carries_language: bool
    renderer: Renderer = field(repr=False, compare=False)

    @property
    def dialog_filter(self) -> str:
        """Its line in a file dialog's list of types: "SubRip subtitles (*.srt)"."""
        return f"{self.label} (*{self.extension})"

    def render(
        self,
        t: Transcript,
        names: SpeakerNames | None = None,
        *,
        language: str | None = None,
        translated: bool = False,
    ) -> str:
        """``t`` as this format's text; ``ExportError`` saying what to do where it needs times the
        words lack."""
        if self.needs_times and not t.has_times:
            untimed = [f.title for f in FORMATS.values() if not f.needs_times]
            timed = [f.title for f in FORMATS.values() if f.needs_times]
            raise ExportError(
                f"This transcript has no word timings, which {self.title} needs; export as "
                f"{or_list(untimed)}, or transcribe from audio to get {or_list(timed)}."
            )
        return self.renderer(t, names, language=language, translated=translated)


def or_list(items: list[str]) -> str:
    """ "a", "a or b", "a, b or c"."""
    return " or ".join(filter(None, [", ".join(items[:-1]), items[-1]])) if items else ""


TXT = ExportFormat(
    name="txt",
    extension=".txt",
    title="TXT",
    label="Plain text",
    needs_times=False,
    carries_language=False,
    renderer=to_txt,
)
SRT = ExportFormat(
    name="srt",
    extension=".srt",
    title="SRT",
    label="SubRip subtitles",
    needs_times=True,
    carries_language=False,
    renderer=to_srt,
)
VTT = ExportFormat(
    name="vtt",
    extension=".vtt",
    title="WebVTT",
    label="WebVTT subtitles",
    needs_times=True,
    carries_language=True,  # a NOTE says the captions are a translation
    renderer=to_vtt,
)
JSON = ExportFormat(
    name="json",
    extension=".json",
    title="JSON",
    label="livecap transcript JSON",
    needs_times=False,
    carries_language=True,
    renderer=to_json,
)
MARKDOWN = ExportFormat(
    name="md",
    extension=".md",
    title="Markdown",
    label="Markdown meeting notes",
    needs_times=False,  # each paragraph shows its start time where the words have one
    carries_language=True,  # a line under the title says the words are a translation
    renderer=to_markdown,
)

# By name, in the order the command line and the dialog offer them.
FORMATS: Mapping[str, ExportFormat] = MappingProxyType({f.name: f for f in (TXT, SRT, VTT, JSON, MARKDOWN)})
NAMES: tuple[str, ...] = tuple(FORMATS)  # what `--format` accepts
# Where nothing names a format (no `--format`, no extension), and what `recover` writes instead of
# a format whose times the words lack.
DEFAULT = TXT


def export_format(name: str) -> ExportFormat:
    """The format called ``name`` ("SRT" and ".srt" too); ``ExportError`` naming the choices."""
    key = name.lower().lstrip(".")
    if key not in FORMATS:
        raise ExportError(f"Unknown export format {name!r}; choose one of: {', '.join(NAMES)}.")
    return FORMATS[key]


def format_from_path(path: str | os.PathLike[str]) -> str | None:
    """The format named by the file's extension ("talk.SRT" -> "srt"), or None if unknown."""
    suffix = Path(path).suffix.lower()
    return next((f.name for f in FORMATS.values() if f.extension == suffix), None)
