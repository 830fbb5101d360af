"""What livecap says about itself (the window's Help → About): its version, the licences of
livecap and of the models it ships or fetches, and the folders its files live in. Declared here
once, for any front end; the settings file is the front end's own (Qt's QSettings picks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.files import paths
from engine.version import __version__

__all__ = ["LICENCE", "Folder", "Licence", "__version__", "folders", "licences"]

LICENCE = "GPL-3.0-or-later"  # livecap's own, as pyproject.toml declares it


@dataclass(frozen=True)
class Licence:
    """The licence one part of livecap comes under."""

    what: str  # the part, as a user would name it
    licence: str  # an SPDX identifier, or words where there is none
    whose: str  # whose work it is, and where its licence text or card is


@dataclass(frozen=True)
class Folder:
    """A folder livecap keeps files in, and what it keeps there."""

    what: str
    path: Path


def licences() -> tuple[Licence, ...]:
    """livecap's licence, then each model's: the shipped ones (their files are in the installed
    ``livecap_models`` package), then the ones fetched on request."""
    import livecap_models

    shipped = Path(livecap_models.__file__).parent
    return (
        Licence("livecap", LICENCE, "this program"),
        Licence(
            "Punctuation and casing model",
            "Apache-2.0",
            f"trained from all-MiniLM-L6-v2; card: {shipped / 'punct' / 'MODEL_CARD.md'}",
        ),
        Licence(
            "Speaker encoder",
            "Apache-2.0",
            f"Resemblyzer, © 2019 Resemble.AI; {shipped / 'speaker' / 'LICENSE'}",
        ),
        Licence("Whisper tiny.en, the built-in speech model", "MIT", "OpenAI"),
        Licence("PocketSphinx and its English model", "BSD-2-Clause", "Carnegie Mellon University"),
        Licence("Whisper base, the language pack (optional)", "MIT", "OpenAI"),
        Licence("Vosk models (downloaded on request)", "each model's own, most Apache-2.0", "Alpha Cephei"),
    )


def folders() -> tuple[Folder, ...]:
    """Where livecap keeps its files (``engine.files.paths``): its data, and its cache."""
    return (
        Folder("Sessions, history and speech models", paths.data_dir()),
        Folder("Cache (partial downloads; safe to delete)", paths.cache_dir()),
    )
