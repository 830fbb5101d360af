"""Per-user folders: where downloaded recognizer models, caches and journals live.

Each platform has its own convention, and following it matters: users (and
backup tools) expect app data under ``~/.local/share`` on Linux, under
``%LOCALAPPDATA%`` on Windows (local, not roaming: a 2 GB model must not be
synced to every machine of a domain account) and under
``~/Library/Application Support`` on macOS.

``LIVECAP_DATA_DIR`` overrides everything, caches included, so a test or a
portable install can keep all of livecap's files in one folder it owns.

These functions only compute paths; they never create folders, so merely
asking where something would go has no side effects. Callers ``mkdir`` when
they are about to write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "livecap"
OVERRIDE_ENV = "LIVECAP_DATA_DIR"


def data_dir() -> Path:
    """The root of livecap's per-user data."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        return _windows_local_appdata() / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    return _xdg("XDG_DATA_HOME", Path.home() / ".local" / "share") / APP_NAME


def cache_dir() -> Path:
    """Disposable files (partial downloads): safe for the user or the OS to delete."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return Path(override).expanduser() / "cache"
    if sys.platform == "win32":
        # Windows has no separate cache root; a "cache" subfolder is the usual habit.
        return _windows_local_appdata() / APP_NAME / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP_NAME
    return _xdg("XDG_CACHE_HOME", Path.home() / ".cache") / APP_NAME


def config_dir() -> Path:
    """Where the app's settings file lives on Linux (``livecap.conf``, written by Qt's QSettings,
    which picks the place itself; named here so that every folder livecap writes is listed in
    this module). Windows keeps the settings in the registry, macOS in a plist in
    ``~/Library/Preferences``. ``LIVECAP_DATA_DIR`` does not move them: the app's ``--settings``
    option does."""
    return _xdg("XDG_CONFIG_HOME", Path.home() / ".config") / APP_NAME


def own_dirs() -> list[Path]:
    """Every folder livecap itself writes to (privacy: nothing of ours lands anywhere else)."""
    return [data_dir(), cache_dir(), config_dir()]


def recognizer_models_dir() -> Path:
    """Installed recognizer models (Vosk's, and Whisper folders put beside them), one folder per
    model, named as in the catalogue. The folder keeps the name it had when it held only Vosk
    models: users' installed models are there."""
    return data_dir() / "vosk-models"


def journal_dir() -> Path:
    """Crash-safe session journals (so a transcript survives a crash mid-meeting)."""
    return data_dir() / "journal"


def downloads_dir() -> Path:
    """``.part`` files of interrupted downloads, kept so the next attempt can resume."""
    return cache_dir() / "downloads"


def _xdg(variable: str, default: Path) -> Path:
    value = os.environ.get(variable, "")
    # The XDG spec says relative values are invalid and must be ignored: a
    # relative path would silently depend on the current working directory.
    if value and os.path.isabs(value):
        return Path(value)
    return default


def _windows_local_appdata() -> Path:
    value = os.environ.get("LOCALAPPDATA")
    if value:
        return Path(value)
    # LOCALAPPDATA is missing only in stripped-down environments (services, some CI).
    return Path.home() / "AppData" / "Local"


def data_dir_key(folder: str | os.PathLike[str] | None = None) -> str:
    """A short, stable name for a data folder (default: this one), a hash of its resolved path:
    what names the journal fallback folders, which sit in places every data folder of the user
    shares (``$XDG_RUNTIME_DIR``, the temporary folder). A test or a portable install with its
    own ``LIVECAP_DATA_DIR`` then never lists, prunes or recovers another data folder's sessions."""
    import hashlib

    resolved = os.fsencode(os.path.realpath(data_dir() if folder is None else folder))
    return hashlib.sha256(resolved).hexdigest()[:12]


def temp_user_dir() -> Path:
    """``livecap-UID`` in the temporary folder: livecap's stable per-user place there, for the
    control socket and the last-resort journal fallback (where ``$XDG_RUNTIME_DIR`` is not set).
    Stable, so that the next start and ``livecap recover`` find what a session left there;
    shared ``/tmp``, so check it with ``private_folder.prepare_private_folder(owned_from=...)``.
    The journals in it are per data folder too (``data_dir_key``); the socket is the user's one."""
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"{APP_NAME}-{uid}"
