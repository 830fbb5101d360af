"""The catalogue of downloadable Vosk models, and the models installed on this machine.

The catalogue ships as ``models/vosk_catalogue.json`` (package ``livecap_models``),
a snapshot of Vosk's published ``model-list.json``: livecap works offline, so it
cannot fetch the list at start-up, and pinning it means a size or md5 we verify
downloads against cannot change under us. Its ``source`` field says where the
data came from.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.files import paths
from engine.vosk_models.layout import incomplete_model_folders, installed_model_folders

DEFAULT_ENGLISH = "vosk-model-small-en-us-0.15"


class CatalogueError(Exception):
    """The catalogue file is missing or malformed (a packaging bug, not a user error)."""


class UnknownModelError(LookupError):
    """No catalogue entry has that name. The message suggests close names."""


@dataclass(frozen=True)
class CatalogueEntry:
    name: str  # also the folder name once installed, and the archive's top-level folder
    lang: str  # Vosk's own codes: "en-us", "cn", "ua", ...
    lang_text: str
    url: str
    size: int  # bytes of the archive
    size_text: str
    md5: str | None  # None: no published checksum was found; downloads are checked by size only
    version: str
    type: str  # "small", "big", "big-lgraph"
    obsolete: bool = False


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path
    entry: CatalogueEntry | None  # None for a model the user put there by hand
    problems: tuple[str, ...] = ()  # what an incomplete folder lacks (``incomplete_models``)

    @property
    def complete(self) -> bool:
        return not self.problems


def catalogue_path() -> Path:
    import livecap_models

    return Path(livecap_models.__file__).parent / "vosk_catalogue.json"


def load_catalogue(path: str | os.PathLike[str] | None = None) -> tuple[CatalogueEntry, ...]:
    """All non-obsolete entries, in file order."""
    return _load(Path(path) if path is not None else catalogue_path())


def catalogue_source(path: str | os.PathLike[str] | None = None) -> dict:
    """The ``source`` record: where the snapshot came from and how it was built."""
    return _read(Path(path) if path is not None else catalogue_path()).get("source", {})


def find(name: str, entries: tuple[CatalogueEntry, ...] | None = None) -> CatalogueEntry:
    entries = load_catalogue() if entries is None else entries
    for entry in entries:
        if entry.name == name:
            return entry
    names = [e.name for e in entries]
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise UnknownModelError(
        f"No Vosk model named {name!r} in the catalogue.{hint} "
        f"There are {len(names)} models; small English: {DEFAULT_ENGLISH}."
    )


def default_english() -> CatalogueEntry:
    """The model offered on first run: 40 MB and fast enough for any laptop."""
    return find(DEFAULT_ENGLISH)


def model_language(folder: str | os.PathLike[str]) -> str | None:
    """The language of the Vosk model in ``folder``: the catalogue's code ("en-us", "ko") when it
    knows the folder's name, else the code in the usual name pattern (``vosk-model[-small]-LANG-…``),
    else the language the model's README names on its first line ("Small Korean for Vosk"), else
    None (unknown)."""
    folder = Path(folder)
    entries = load_catalogue()
    by_name = {e.name: e for e in entries}
    if folder.name in by_name:
        return by_name[folder.name].lang
    match = re.match(r"vosk-model-(?:small-)?([a-z]{2,3})(?:-|$)", folder.name.lower())
    if match:
        return match.group(1)
    try:
        first = (folder / "README").read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    words = set(re.findall(r"[a-z]+", first.lower()))
    named = [e.lang for e in entries if e.lang_text.lower() in words]
    return named[0] if named else None


def language_name(code: str) -> str:
    """ "Korean" for "ko": the catalogue's name for a language code, else the code itself."""
    names = {e.lang: e.lang_text for e in load_catalogue()}
    return names.get(code, code)


def installed_models(models_dir: str | os.PathLike[str] | None = None) -> list[InstalledModel]:
    """Loadable models in ``models_dir`` (``layout.installed_model_folders``), sorted by name."""
    root = Path(models_dir) if models_dir is not None else paths.recognizer_models_dir()
    by_name = {e.name: e for e in load_catalogue()}
    return [
        InstalledModel(folder.name, folder, by_name.get(folder.name))
        for folder in installed_model_folders(root)
    ]


def incomplete_models(models_dir: str | os.PathLike[str] | None = None) -> list[InstalledModel]:
    """Folders in ``models_dir`` that are not loadable models, each with its ``problems``: listed so
    that a hand-unpacked model missing a file is not silently ignored. Nothing loads them."""
    root = Path(models_dir) if models_dir is not None else paths.recognizer_models_dir()
    by_name = {e.name: e for e in load_catalogue()}
    return [
        InstalledModel(folder.name, folder, by_name.get(folder.name), tuple(problems))
        for folder, problems in incomplete_model_folders(root)
    ]


def remove_model(name: str, models_dir: str | os.PathLike[str] | None = None) -> bool:
    """Delete an installed model. Returns False when it was not installed.

    The folder is first renamed to a hidden name (atomic), then deleted: a crash
    or a concurrent reader never sees a half-deleted model under its real name,
    and a leftover hidden folder is swept by the next install of that model.
    """
    check_model_name(name)
    root = Path(models_dir) if models_dir is not None else paths.recognizer_models_dir()
    target = root / name
    if not target.is_dir() or target.is_symlink():
        return False
    doomed = root / f".{name}.removing-{secrets.token_hex(4)}"
    try:
        os.replace(target, doomed)
    except FileNotFoundError:  # someone else removed it first
        return False
    shutil.rmtree(doomed, ignore_errors=True)
    return True


def check_model_name(name: str) -> None:
    """Refuse names that are not one plain folder name: they would reach outside the models folder."""
    bad = (
        not name
        or name in (".", "..")
        or name.startswith(".")
        or any(sep in name for sep in ("/", "\\", "\0", ":"))
    )
    if bad:
        raise ValueError(f"{name!r} is not a valid model name (expected a plain folder name)")


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"cannot read the model catalogue {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise CatalogueError(f"{path}: expected an object with a 'models' list")
    return data


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[CatalogueEntry, ...]:
    entries = []
    for raw in _read(path)["models"]:
        try:
            entry = CatalogueEntry(
                name=str(raw["name"]),
                lang=str(raw["lang"]),
                lang_text=str(raw["lang_text"]),
                url=str(raw["url"]),
                size=int(raw["size"]),
                size_text=str(raw["size_text"]),
                md5=(str(raw["md5"]).lower() if raw.get("md5") else None),
                version=str(raw["version"]),
                type=str(raw["type"]),
                obsolete=_flag(raw.get("obsolete", False)),
            )
            check_model_name(entry.name)
        except (KeyError, TypeError, ValueError) as exc:
            raise CatalogueError(f"{path}: bad entry {raw!r}: {exc}") from exc
        if not entry.obsolete:
            entries.append(entry)
    return tuple(entries)


def _flag(value: object) -> bool:
    # Upstream's model-list.json writes "true"/"false" as strings, and the
    # string "false" is truthy: accept both spellings explicitly.
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)
