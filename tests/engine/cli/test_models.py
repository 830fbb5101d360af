"""``livecap models download | remove`` end to end, against the real HTTP server on 127.0.0.1 of
``model_server.py``: the catalogue entry is the only stand-in (no Vosk model can be fetched here)."""

from __future__ import annotations

import hashlib
import re

import pytest

from engine.cli.main import main
from engine.files import paths
from engine.vosk_models import catalogue, layout
from engine.vosk_models import http as transfer
from engine.vosk_models.catalogue import CatalogueEntry
from tests.model_server import MODEL, Server, make_zip, model_files


@pytest.fixture
def entry(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))
    monkeypatch.setattr(transfer, "RETRY_DELAY_S", 0)
    server = Server()
    data = make_zip(model_files())
    server.files[MODEL + ".zip"] = data
    published = CatalogueEntry(
        name=MODEL,
        lang="xx",
        lang_text="Test",
        url=server.url(MODEL + ".zip"),
        size=len(data),
        size_text="0.3M",
        md5=hashlib.md5(data).hexdigest(),
        version="0.1",
        type="small",
    )
    shipped = catalogue.find
    # The CLI looks names up in the shipped catalogue; ours adds the test model to it.
    monkeypatch.setattr(
        catalogue, "find", lambda name, entries=None: published if name == MODEL else shipped(name, entries)
    )
    yield published, server
    server.close()


def test_download_shows_progress_installs_and_remove_deletes(entry, capsys):
    published, server = entry
    assert main(["models", "download", MODEL]) == 0
    err = capsys.readouterr().err
    assert f"Downloading {MODEL} (0.3 MB) from {published.url}" in err  # sizes in MB, as listed
    installed = paths.recognizer_models_dir() / MODEL
    assert "%" in err and f"Installed {MODEL} in {installed}" in err  # the progress bar
    assert layout.is_vosk_model(paths.recognizer_models_dir() / MODEL)
    assert [m.name for m in catalogue.installed_models()] == [MODEL]

    assert main(["models", "remove", MODEL]) == 0
    assert f"Removed {MODEL}" in capsys.readouterr().err
    assert catalogue.installed_models() == []
    assert main(["models", "remove", MODEL]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"no model named {MODEL!r} is installed" in err[0]


def test_a_failed_download_is_one_line_and_leaves_no_model(entry, capsys):
    published, server = entry
    server.files[MODEL + ".zip"] = b"PK\x03\x04 this is not the archive the catalogue describes"
    assert main(["models", "download", MODEL]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("livecap:")]
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert catalogue.installed_models() == []
    assert list(paths.recognizer_models_dir().glob(".*.lock")) == []  # no empty lock file left behind


def test_an_offline_download_leaves_no_lock_file(entry, capsys):
    published, server = entry
    server.close()  # nothing answers any more, as when offline
    assert main(["models", "download", MODEL]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert [p.name for p in paths.recognizer_models_dir().iterdir() if p.name.endswith(".lock")] == []


def test_an_unknown_name_suggests_close_ones(entry, capsys):
    assert main(["models", "download", "vosk-model-small-en-us-0.1"]) == 2
    assert "vosk-model-small-en-us-0.15" in capsys.readouterr().err


def test_replace_installs_afresh_over_a_damaged_copy_that_a_plain_download_keeps(entry, capsys):
    published, server = entry
    assert main(["models", "download", MODEL]) == 0
    weights = paths.recognizer_models_dir() / MODEL / "am" / "final.mdl"
    weights.write_bytes(b"damaged")  # the folder still looks complete: only loading would fail
    fetched = len(server.requests)

    assert main(["models", "download", MODEL]) == 0  # installed already: nothing fetched, nothing changed
    assert len(server.requests) == fetched and weights.read_bytes() == b"damaged"

    capsys.readouterr()
    assert main(["models", "download", MODEL, "--replace"]) == 0
    assert f"Installed {MODEL}" in capsys.readouterr().err
    assert len(server.requests) > fetched
    assert weights.read_bytes() == model_files()["am/final.mdl"]
    # the old copy was moved aside and removed once the new one was in: nothing hidden is left
    assert sorted(p.name for p in paths.recognizer_models_dir().iterdir()) == [MODEL]


def test_the_catalogue_spells_its_language_names_as_users_search_for_them():
    """Names come from upstream's list, misspellings included: "Fillipino" hid Filipino from
    anyone typing the language's name."""
    from engine.vosk_models.catalogue import load_catalogue

    names = {e.lang: e.lang_text for e in load_catalogue()}
    assert names["tl-ph"] == "Filipino"
    assert all(
        not any(w.lower() in t.lower() for w in ("fillip", "portugese", "indonesean")) for t in names.values()
    )


@pytest.fixture
def no_models(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(tmp_path / "data"))


def listed(capsys, *args) -> list[str]:
    assert main(["models", "list", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_the_built_in_whisper_is_listed_installed_and_counted(no_models, capsys):
    from engine.recognizers.whisper_model import SHIPPED_NAME

    lines = listed(capsys)
    [whisper] = [line for line in lines if SHIPPED_NAME in line]
    assert whisper.startswith("* ") and "built in" in whisper
    assert "1 installed" in lines[-1]  # the built-in one: nothing was downloaded


def test_lang_lists_only_models_of_that_language(no_models, capsys):
    from engine.recognizers.whisper_model import SHIPPED_NAME

    german = listed(capsys, "--lang", "de")
    rows = german[1:-2]
    assert rows and all("German" in row for row in rows), german
    assert not any(SHIPPED_NAME in line for line in german)  # English only
    assert "0 installed" in german[-1]
    assert any(SHIPPED_NAME in line for line in listed(capsys, "--lang", "en-us"))  # English, all of it


def test_sizes_are_all_in_megabytes_with_the_unit_spelled(no_models, capsys):
    lines = listed(capsys)
    header, rows = lines[0], [line for line in lines[1:] if line.strip() and "installed" not in line]
    assert header.split()[2] == "SIZE"
    at = header.index("SIZE") + len("SIZE")  # the column is right-aligned under its title
    sizes = [row[at - 9 : at].strip() for row in rows]
    assert sizes and all(re.fullmatch(r"[\d,.]+ MB", size) for size in sizes), sizes
