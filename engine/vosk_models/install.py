"""The model download manager: install a catalogued Vosk model, safely, exactly once.

The flow, and why each step is there:

1. https only (``transfer.check_url``): the archive is parsed by a native
   library, so it must not be swappable in transit.
2. Bytes stream into ``<cache>/downloads/<name>.zip.part`` and resume with
   HTTP ``Range`` after a drop (``transfer.fetch``).
3. The size and md5 must match the catalogue. A ``.part`` that fails is
   deleted, so the next attempt cannot resume from corrupt bytes.
4. The archive is unpacked into a hidden temporary folder *inside* the models
   folder with every entry checked first (``archives``), the result must look
   like a Vosk model, and ``os.replace`` moves it into place: readers see no
   model or a complete one, and the rename never crosses filesystems.
5. All of it runs under a per-model inter-process lock (``filelock``), so two
   livecap processes cannot interleave writes to one ``.part`` or one model
   folder; the one that waited finds the model installed and returns it.

Any failure raises a ``DownloadError`` subclass and leaves nothing
half-installed in the models folder. Standard library only.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shutil
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from engine.files import paths
from engine.files.atomic import fsync_directory
from engine.files.lock import FileLock, LockTimeout
from engine.vosk_models.archives import archive_kind, extract_archive
from engine.vosk_models.catalogue import CatalogueEntry, check_model_name, find
from engine.vosk_models.errors import (
    ChecksumError,
    CorruptArchiveError,
    DownloadCancelled,
    DownloadError,
    DownloadInterrupted,
    HttpError,
    InsecureUrlError,
    NotAVoskModelError,
    OfflineError,
    StorageError,
    UnsafeArchiveError,
    storage_error,
)
from engine.vosk_models.http import RETRIES, TIMEOUT_S, Cancel, Progress, cancel_fn, check_url, fetch, verify
from engine.vosk_models.layout import model_problems

__all__ = [
    "install_model",
    "part_path",
    "FileLock",
    "LockTimeout",
    "check_url",
    "fetch",
    "verify",
    "extract_archive",
    "DownloadError",
    "InsecureUrlError",
    "OfflineError",
    "HttpError",
    "DownloadInterrupted",
    "DownloadCancelled",
    "StorageError",
    "ChecksumError",
    "UnsafeArchiveError",
    "CorruptArchiveError",
    "NotAVoskModelError",
]

log = logging.getLogger(__name__)


def install_model(
    model: str | CatalogueEntry,
    *,
    models_dir: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    cancel: Cancel = None,
    timeout: float = TIMEOUT_S,
    retries: int = RETRIES,
    notify: Callable[[str], None] | None = None,
    replace: bool = False,
) -> Path:
    """Make sure ``model`` is installed, downloading it if needed. Returns its folder.

    ``replace``: install afresh even over a folder that looks complete (one that will not load:
    a damaged file inside). The old folder stays until the new one is unpacked beside it, so a
    failed or cancelled download loses nothing.

    ``model`` is a catalogue name (``UnknownModelError`` if unknown) or entry.
    ``progress(done_bytes, total_bytes)`` is called after every chunk.
    ``cancel`` (a ``threading.Event`` or a callable) is checked between chunks,
    while waiting for another process and while unpacking; it raises
    ``DownloadCancelled`` and keeps the ``.part`` file for a later resume.
    ``notify`` receives notes meant for the user (today: that a model has no
    published md5 and was checked by size only); without it they are logged.
    ``models_dir`` and ``cache_dir`` default to the per-user folders.
    """
    entry = find(model) if isinstance(model, str) else model
    check_model_name(entry.name)
    check_url(entry.url)
    cancelled = cancel_fn(cancel)
    models = Path(models_dir) if models_dir is not None else paths.recognizer_models_dir()
    kind = archive_kind(urllib.parse.urlsplit(entry.url).path)
    part = part_path(entry, cache_dir)
    _mkdir(models)

    def stop_if_cancelled() -> None:
        if cancelled():
            raise DownloadCancelled(f"Cancelled installing {entry.name}.")

    lock = FileLock(models / f".{entry.name}.lock", on_wait=stop_if_cancelled)
    try:
        lock.acquire()
    except OSError as exc:  # the lock file is our first write: a read-only folder shows up here
        raise storage_error(exc, models) from exc
    try:
        final = models / entry.name
        if not replace and not model_problems(final):
            return final  # installed already, possibly by the process we just waited for
        _sweep_leftovers(models, entry.name)
        fetch(
            entry.url,
            part,
            expected_size=entry.size,
            progress=progress,
            cancel=cancelled,
            timeout=timeout,
            retries=retries,
        )
        try:
            verify(part, entry.size, entry.md5, cancelled)
        except ChecksumError as exc:
            part.unlink(missing_ok=True)
            raise ChecksumError(f"{exc} The download was deleted; try again to fetch it afresh.") from exc
        if not entry.md5:
            (notify or log.warning)(
                f"{entry.name} has no published md5 checksum: the download was checked by its size only."
            )
        try:
            _unpack_into_place(part, kind, models, final, stop_if_cancelled)
        except (CorruptArchiveError, UnsafeArchiveError, NotAVoskModelError):
            part.unlink(missing_ok=True)  # the same bytes would fail again: start afresh next time
            raise
        part.unlink(missing_ok=True)
        return final
    finally:
        lock.release(remove=True)  # an empty .lock file left in the models folder only puzzles users


def part_path(entry: CatalogueEntry, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the partial download of ``entry`` is kept between attempts."""
    downloads = Path(cache_dir) if cache_dir is not None else paths.downloads_dir()
    suffix = ".tar.gz" if archive_kind(urllib.parse.urlsplit(entry.url).path) == "tar" else ".zip"
    return downloads / f"{entry.name}{suffix}.part"


def _unpack_into_place(part: Path, kind: str, models: Path, final: Path, check: Callable[[], None]) -> None:
    tmp, old = _hidden(models, final.name, "tmp"), None
    try:
        os.mkdir(tmp)  # not mkdtemp: its 0o700 would stick to a model unpacked at the top level
        extract_archive(part, tmp, check, kind)
        root = _model_root(tmp, final.name)
        if final.exists() or final.is_symlink():
            old = _hidden(models, final.name, "old")  # an unloadable leftover: move it aside first
            os.replace(final, old)
        os.replace(root, final)
        fsync_directory(models)
    except OSError as exc:
        raise storage_error(exc, models) from exc
    finally:
        _remove_tree(tmp)
        if old is not None:
            _remove_tree(old)


def _model_root(tmp: Path, name: str) -> Path:
    """The unpacked model: ``tmp`` itself, or the archive's single top-level folder (Vosk's layout)."""
    if not model_problems(tmp):
        return tmp
    children = [c for c in tmp.iterdir() if c.name != "__MACOSX"]
    if len(children) == 1 and children[0].is_dir():
        problems = model_problems(children[0])
        if not problems:
            return children[0]
        raise NotAVoskModelError(
            f"The archive for {name} is not a Vosk model: it lacks {'; '.join(problems)}."
        )
    found = ", ".join(sorted(c.name for c in children)[:8]) or "nothing"
    raise NotAVoskModelError(
        f"The archive for {name} is not a Vosk model: expected one folder "
        f"holding am/, conf/ and graph/, found {found}."
    )


def _hidden(models: Path, name: str, kind: str) -> Path:
    # Hidden names: layout.installed_model_folders() skips them, so a half-unpacked model is never listed.
    return models / f".{name}.{kind}-{secrets.token_hex(4)}"


def _sweep_leftovers(models: Path, name: str) -> None:
    """Remove temporary folders a crashed run left for this model. Safe: we hold its lock."""
    pattern = re.compile(rf"\.{re.escape(name)}\.(tmp|old|removing)-[0-9a-f]+")
    for child in models.iterdir():
        if pattern.fullmatch(child.name):
            _remove_tree(child)


def _mkdir(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(exc, folder) from exc


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)
