"""What the windows export, and how (the captions window and the History window alike): the
offline decoder's punctuation, the user's edits, atomic files.

Live captions decide each mark with a few words of lookahead; an export can see the whole
recording, so it goes through the engine's offline decoder (``refine``, which is the engine's
``repunctuate``, the same as ``livecap transcribe``), which averages several views of every word
and is the more accurate. After a session the captions window shows that refined text and lets
the user edit it; ``app.main_window.edits`` carries the edits back onto the timed words. Files are
written by ``engine.transcript.export`` (rendered first, then replaced atomically: a failed export
never leaves half a file).
"""

from __future__ import annotations

from pathlib import Path

from engine import DEFAULT_EXPORT_FORMAT, Transcript, repunctuate
from engine import EXPORT_FORMATS as FORMATS
from engine import export_format_from_path as format_from_path
from engine import export_transcript as export

# The export dialog's list of file types, one for each format the engine writes, in its order.
FILTERS = {name: f.dialog_filter for name, f in FORMATS.items()}


def refine(
    transcript: Transcript,
    model,
    casing: bool = True,
    use_pauses: bool = True,
    progress=None,
    workers: int = 1,
    recognizer: str | None = None,
) -> Transcript:
    """``transcript``'s words, with marks and case from the offline decoder; times kept. The
    engine's ``repunctuate`` on the model's settings with the window's casing and pause choices,
    for the words of the recognizer kind ``recognizer`` (None: not known)."""
    settings = model.config.decoder.override(casing=casing, pause_threshold=None if use_pauses else 0)
    return repunctuate(transcript.words, model, settings, progress, workers, recognizer)


def resolve_format(path: str | Path, chosen_filter: str = "") -> tuple[Path, str]:
    """The format from the extension, else from the filter chosen in the dialog (adding its extension)."""
    path = Path(path)
    fmt = format_from_path(path)
    if fmt is None:
        fmt = next((f for f, text in FILTERS.items() if text == chosen_filter), DEFAULT_EXPORT_FORMAT.name)
        path = path.with_name(path.name + FORMATS[fmt].extension)
    return path, fmt


def write(
    transcript: Transcript,
    fmt: str,
    path: str | Path,
    end_sentence: bool = True,
    names=None,
    *,
    language: str | None = None,
    translated: bool = False,
) -> Path:
    """``end_sentence``: end the last sentence with a period where it has no mark; False for words
    of a language the punctuation model does not know, which pass through unmarked. ``names``: the
    ``SpeakerNames`` a meeting's words are labelled with (None: the default names). ``language``
    (the one spoken; None: unknown) and ``translated`` (the words are an English translation of
    it): kept in a JSON export, and a translated WebVTT says so."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    return export(transcript, fmt, path, end_sentence, names=names, language=language, translated=translated)
