"""Exports: a Transcript rendered in one of the formats (``formats.FORMATS``) and written to a file.

Rendering ends the last sentence (``ended``) and hands the transcript, the ``SpeakerNames`` a
meeting's speakers are shown by and the language to the format's render function. Writing renders
first, then replaces the file atomically: a transcript that cannot be exported leaves an existing
file exactly as it was, and a file is replaced only where the caller says so (``write_export``).

The render functions and the cue layout live beside this module (``exporters``, ``markdown``,
``cues``); their names are here too, for the callers that know exports by this module.
"""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from pathlib import Path

from engine.files.atomic import atomic_write_text
from engine.speakers.labels import SpeakerNames
from engine.transcript.cues import MIN_CUE_DURATION, Cue, ExportError, balance_lines, make_cues, wrap_tokens
from engine.transcript.exporters import to_json, to_srt, to_txt, to_vtt
from engine.transcript.formats import FORMATS, export_format, format_from_path
from engine.transcript.markdown import to_markdown
from engine.transcript.transcript import Transcript

__all__ = [
    "FORMATS",
    "MIN_CUE_DURATION",
    "SENTENCE_END_TEXT",
    "Cue",
    "ExportError",
    "balance_lines",
    "ended",
    "export",
    "format_from_path",
    "make_cues",
    "render",
    "to_json",
    "to_markdown",
    "to_srt",
    "to_txt",
    "to_vtt",
    "wrap_tokens",
    "write_export",
]

SENTENCE_END_TEXT = (".", "!", "?", "…")


def ended(t: Transcript) -> Transcript:
    """``t`` with a sentence-final mark on its last word: the end of a session is the end of a
    sentence. ``repunctuate`` already picks period or question by the model; a transcript that
    did not go through it (a live one, a recovered journal) gets a period."""
    # A user's edit can end the text itself: "thanks!" keeps its "!" in the word's form.
    if not t.words or t.words[-1].ends_sentence or t.words[-1].word.endswith(SENTENCE_END_TEXT):
        return t
    words = list(t.words)
    words[-1] = replace(words[-1], mark="period")
    return replace(t, words=words)


def render(
    t: Transcript,
    fmt: str,
    end_sentence: bool = True,
    names: SpeakerNames | None = None,
    language: str | None = None,
    translated: bool = False,
) -> str:
    """The text of ``t`` in ``fmt`` (a name of FORMATS), its last sentence ended (``ended``) unless
    ``end_sentence`` is False: words of a language the punctuation model does not know pass
    through unmarked, and a period after the last one would be the one English mark among them.
    ``names``: the names a meeting's speakers are shown by (None: the defaults). ``language``
    (spoken) and ``translated`` (English captions of it): said by the formats that carry them."""
    chosen = export_format(fmt)
    return chosen.render(ended(t) if end_sentence else t, names, language=language, translated=translated)


def write_export(
    t: Transcript,
    fmt: str,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    end_sentence: bool = True,
    names: SpeakerNames | None = None,
    language: str | None = None,
    translated: bool = False,
) -> Path:
    """Write ``t`` to ``path`` in ``fmt``, atomically; returns the path. ``end_sentence``,
    ``names``, ``language`` and ``translated``: as for ``render``.

    The text is rendered before the file is touched (``ExportError`` leaves it as it was). A file
    already at ``path`` (a link too) is replaced only with ``overwrite``; else ``FileExistsError``:
    it may be the user's own notes of the same name."""
    text = render(t, fmt, end_sentence, names, language, translated)
    target = Path(path)
    if not overwrite and (target.exists() or target.is_symlink()):
        raise FileExistsError(errno.EEXIST, "the file already exists", str(target))
    atomic_write_text(target, text)
    return target


def export(
    t: Transcript,
    fmt: str | None,
    path: str | os.PathLike[str],
    end_sentence: bool = True,
    names: SpeakerNames | None = None,
    language: str | None = None,
    translated: bool = False,
) -> Path:
    """Write ``t`` to ``path`` in ``fmt`` (guessed from the extension when None), replacing a file
    already there (a file dialog asked first). Returns the path. ``end_sentence``, ``names``,
    ``language`` and ``translated``: as for ``render``."""
    if fmt is None:
        fmt = format_from_path(path)
        if fmt is None:
            raise ExportError(
                f"Cannot tell the export format from {Path(path).name!r}; "
                f"use one of the extensions: {', '.join(f.extension for f in FORMATS.values())}."
            )
    return write_export(
        t,
        fmt,
        path,
        overwrite=True,
        end_sentence=end_sentence,
        names=names,
        language=language,
        translated=translated,
    )
