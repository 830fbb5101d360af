"""The model download manager against a real HTTP server on 127.0.0.1 that misbehaves on demand
(see ``model_server.py``), plus the catalogue and the per-user folders it relies on."""

from __future__ import annotations

import errno
import hashlib
import json
import multiprocessing
import os
import re
import socket
import stat
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from engine.files import paths
from engine.files.lock import LockTimeout
from engine.vosk_models import archives, catalogue, layout
from engine.vosk_models import http as transfer
from engine.vosk_models.catalogue import CatalogueEntry, UnknownModelError
from engine.vosk_models.install import (
    ChecksumError,
    CorruptArchiveError,
    DownloadCancelled,
    DownloadInterrupted,
    FileLock,
    HttpError,
    InsecureUrlError,
    NotAVoskModelError,
    OfflineError,
    StorageError,
    UnsafeArchiveError,
    check_url,
    install_model,
    part_path,
)
from tests.model_server import MODEL, Server, fake_model, make_tar, make_zip, model_files


@pytest.fixture
def server():
    srv = Server()
    yield srv
    srv.close()


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(folder))
    monkeypatch.setattr(transfer, "RETRY_DELAY_S", 0)
    return folder


def publish(
    server: Server,
    data: bytes,
    *,
    md5: str | None | bool = True,
    size: int | None = None,
    name: str = MODEL,
    suffix: str = ".zip",
) -> CatalogueEntry:
    server.files[name + suffix] = data
    return CatalogueEntry(
        name=name,
        lang="xx",
        lang_text="Test",
        url=server.url(name + suffix),
        size=len(data) if size is None else size,
        size_text="",
        md5=hashlib.md5(data).hexdigest() if md5 is True else md5,
        version="0.1",
        type="small",
    )


def leftovers() -> list[str]:
    """Everything in the models folder except lock files: no temp folders, no half models."""
    folder = paths.recognizer_models_dir()
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock")) if folder.exists() else []


def assert_installed(files: dict[str, bytes]) -> None:
    root = paths.recognizer_models_dir() / MODEL
    assert layout.is_vosk_model(root)
    for name, data in files.items():
        assert (root / name).read_bytes() == data
    assert leftovers() == [MODEL]


def test_install_reports_progress_and_cleans_up(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    calls = []
    path = install_model(entry, progress=lambda done, total: calls.append((done, total)))
    assert path == paths.recognizer_models_dir() / MODEL
    assert_installed(files)
    assert calls[0] == (0, entry.size) and calls[-1] == (entry.size, entry.size)
    assert len(calls) > 4 and all(total == entry.size for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert not part_path(entry).exists()
    assert install_model(entry) == path and len(server.requests) == 1  # installed: no new download


def test_replace_installs_afresh_over_a_damaged_complete_folder_and_a_failure_keeps_it(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    path = install_model(entry)
    damaged = path / "am" / "final.mdl"
    damaged.write_bytes(damaged.read_bytes()[:3])  # still "complete", but it will not load
    assert install_model(entry) == path and damaged.read_bytes() != files["am/final.mdl"]  # kept as is
    server.files[MODEL + ".zip"] = b"not a zip at all"  # a failed download ...
    failing = publish(server, b"not a zip at all")
    with pytest.raises(CorruptArchiveError):
        install_model(failing, replace=True)
    assert damaged.exists() and leftovers() == [MODEL]  # ... loses nothing
    server.files[MODEL + ".zip"] = make_zip(files)
    assert install_model(entry, replace=True) == path
    assert_installed(files)  # the damaged file is gone, the whole model is fresh


def test_dropped_connection_resumes_with_range(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    server.drop_after = half = entry.size // 2
    install_model(entry)
    assert [r for _, r in server.requests] == [None, f"bytes={half}-"]
    assert server.statuses == [200, 206]
    assert_installed(files)


def test_interrupted_download_keeps_part_and_next_call_resumes(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    server.drop_after = 100_000
    with pytest.raises(DownloadInterrupted, match="100000"):
        install_model(entry, retries=0)
    assert part_path(entry).stat().st_size == 100_000 and leftovers() == []
    install_model(entry, retries=0)
    assert server.requests[-1][1] == "bytes=100000-"
    assert_installed(files)


def test_server_ignoring_range_restarts_from_zero(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    server.drop_after, server.ignore_range = entry.size // 3, True
    install_model(entry)
    assert server.requests[1][1] == f"bytes={entry.size // 3}-" and server.statuses == [200, 200]
    assert_installed(files)


def test_md5_mismatch_deletes_the_part_file(server):
    data = make_zip(model_files())
    entry = publish(server, data, md5="0" * 32)
    with pytest.raises(ChecksumError) as err:
        install_model(entry)
    assert "0" * 32 in str(err.value) and hashlib.md5(data).hexdigest() in str(err.value)
    assert not part_path(entry).exists() and leftovers() == []


@pytest.mark.parametrize("delta", [10, -10])
def test_size_mismatch_deletes_the_part_file(server, delta):
    data = make_zip(model_files())
    entry = publish(server, data, size=len(data) + delta)
    with pytest.raises(ChecksumError) as err:
        install_model(entry)
    assert str(len(data)) in str(err.value) and str(len(data) + delta) in str(err.value)
    assert not part_path(entry).exists() and leftovers() == []


def test_missing_md5_is_checked_by_size_and_says_so(server):
    entry = publish(server, make_zip(model_files()), md5=None)
    notes = []
    install_model(entry, notify=notes.append)
    assert len(notes) == 1 and "size only" in notes[0]


def _symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize(
    "evil", ["../evil.txt", f"{MODEL}/../../evil.txt", "ABSOLUTE", "..\\evil.txt", "SYMLINK"]
)
def test_unsafe_archives_are_refused(server, tmp_path, evil):
    target = tmp_path / "abs-evil.txt"
    info = {"ABSOLUTE": str(target), "SYMLINK": _symlink(f"{MODEL}/am/link")}.get(evil, evil)
    data = make_zip(model_files(), extra=[(info, b"/etc/passwd" if evil == "SYMLINK" else b"pwned")])
    entry = publish(server, data)
    with pytest.raises(UnsafeArchiveError):
        install_model(entry)
    assert not target.exists() and not (paths.recognizer_models_dir() / "evil.txt").exists()
    assert leftovers() == [] and not part_path(entry).exists()


def test_tar_gz_installs_and_tar_links_are_refused(server):
    files = model_files()
    install_model(publish(server, make_tar(files), suffix=".tar.gz"))
    assert_installed(files)
    bad = publish(server, make_tar(files, link="/etc/passwd"), name="vosk-model-bad-0.1", suffix=".tar.gz")
    with pytest.raises(UnsafeArchiveError, match="link"):
        install_model(bad)
    assert leftovers() == [MODEL]


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_corrupt_archive_leaves_nothing(server, damage):
    data = bytearray(make_zip(model_files()))
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    else:
        data[1000:1100] = bytes(b ^ 0xFF for b in data[1000:1100])  # inside am/final.mdl's data
    entry = publish(server, bytes(data))  # the catalogue matches the broken bytes
    with pytest.raises(CorruptArchiveError, match="truncated or corrupt"):
        install_model(entry)
    assert leftovers() == [] and not part_path(entry).exists()


def test_archive_without_a_model_is_refused(server):
    entry = publish(server, make_zip({"README": b"hello", "data.bin": b"x"}))
    with pytest.raises(NotAVoskModelError, match="am/final.mdl"):
        install_model(entry)
    assert leftovers() == []


def test_models_dir_below_a_file_is_a_storage_error(server, tmp_path):
    # Runs as root too, where chmod cannot make a folder unwritable: a path
    # through a regular file fails for everyone (ENOTDIR).
    (tmp_path / "a-file").write_text("not a folder")
    blocked = tmp_path / "a-file" / "models"
    with pytest.raises(StorageError) as err:
        install_model(publish(server, make_zip(model_files())), models_dir=blocked)
    assert str(blocked) in str(err.value) and err.value.folder == blocked
    assert server.requests == []  # refused before downloading anything


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root (and Windows ACLs) ignore a read-only mode bit"
)
def test_read_only_models_dir_is_a_storage_error(server):
    folder = paths.recognizer_models_dir()
    folder.mkdir(parents=True)
    folder.chmod(0o555)
    try:
        with pytest.raises(StorageError, match="read-only"):
            install_model(publish(server, make_zip(model_files())))
    finally:
        folder.chmod(0o755)


READ_ONLY_CHILD = """
import dataclasses, json, sys
from pathlib import Path
from engine.vosk_models.catalogue import CatalogueEntry
from engine.vosk_models.install import StorageError, install_model
try:
    install_model(CatalogueEntry(**json.loads(sys.argv[1])), models_dir=Path(sys.argv[2]))
except StorageError as exc:
    print(json.dumps({"error": str(exc), "folder": str(exc.folder)}))
"""


def _can_unshare_mounts() -> bool:
    import shutil
    import subprocess

    return (
        sys.platform.startswith("linux")
        and os.geteuid() == 0
        and shutil.which("unshare") is not None
        and subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0
    )


@pytest.mark.skipif(
    not _can_unshare_mounts(), reason="needs root and mount namespaces (the chmod test covers users)"
)
def test_read_only_filesystem_is_a_storage_error(server, tmp_path):
    """As root a mode bit stops nothing, but a read-only file system stops everyone: the install runs
    in a private mount namespace where the models folder is a read-only tmpfs (the host never sees it)."""
    import dataclasses
    import subprocess

    folder = tmp_path / "ro-models"
    folder.mkdir()
    entry = publish(server, make_zip(model_files()))
    script = f'mount -t tmpfs -o ro tmpfs "$1" && exec "{sys.executable}" -c "$2" "$3" "$1"'
    result = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            str(folder),
            READ_ONLY_CHILD,
            json.dumps(dataclasses.asdict(entry)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(Path(__file__).resolve().parents[3]),
        env={**os.environ, paths.OVERRIDE_ENV: str(tmp_path / "data")},
    )
    assert result.returncode == 0, result.stderr
    err = json.loads(result.stdout)
    assert "read-only" in err["error"] and err["folder"] == str(folder), err
    assert server.requests == []  # refused before downloading anything
    assert list(folder.iterdir()) == []  # and nothing left behind


def test_disk_full_while_unpacking_keeps_verified_download(server, monkeypatch):
    files = model_files()
    entry = publish(server, make_zip(files))

    def full(src, dst, length=0):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(archives.shutil, "copyfileobj", full)
        with pytest.raises(StorageError, match="disk is full") as err:
            install_model(entry)
    assert str(paths.recognizer_models_dir()) in str(err.value) and leftovers() == []
    assert part_path(entry).stat().st_size == entry.size  # verified: no need to fetch it again
    install_model(entry)
    assert len(server.requests) == 1
    assert_installed(files)


def test_cancel_mid_download_leaves_only_the_part_file(server):
    files = model_files()
    entry = publish(server, make_zip(files))
    cancel = threading.Event()

    def progress(done, total):
        if done >= 128 * 1024:
            cancel.set()

    with pytest.raises(DownloadCancelled):
        install_model(entry, progress=progress, cancel=cancel)
    kept = part_path(entry).stat().st_size
    assert 0 < kept < entry.size and leftovers() == []
    install_model(entry)
    assert server.requests[-1][1] == f"bytes={kept}-"
    assert_installed(files)


def _install_in_child(entry, data_dir, results):
    os.environ[paths.OVERRIDE_ENV] = data_dir
    results.put(("started", os.getpid()))
    try:
        results.put(("ok", str(install_model(entry))))
    except BaseException as exc:  # report, so the parent's assertion says what went wrong
        results.put(("error", repr(exc)))


def test_two_processes_install_once(server, data_dir):
    files = model_files()
    entry = publish(server, make_zip(files))
    server.delay_s = 0.05
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=_install_in_child, args=(entry, str(data_dir), results)) for _ in range(2)]
    models = paths.recognizer_models_dir()
    models.mkdir(parents=True)
    # Hold the model's lock (the downloader's own lock file) until both children
    # are queued on it, so they really race for it when it is released.
    with FileLock(models / f".{MODEL}.lock"):
        for p in procs:
            p.start()
        assert [results.get(timeout=60)[0] for _ in procs] == ["started", "started"]
        time.sleep(0.5)
    outcomes = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=10)
    assert outcomes == [("ok", str(paths.recognizer_models_dir() / MODEL))] * 2
    assert len(server.requests) == 1  # the second process waited, then found the model installed
    assert_installed(files)


def _try_lock_in_child(path, results):
    try:
        with FileLock(path, timeout=0.3):
            results.put("locked")
    except LockTimeout:
        results.put("timeout")


def test_file_lock_excludes_another_process(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    lock_path = tmp_path / "model.lock"

    def attempt():
        p = ctx.Process(target=_try_lock_in_child, args=(str(lock_path), results))
        p.start()
        p.join(timeout=30)
        return results.get(timeout=5)

    with FileLock(lock_path):
        assert attempt() == "timeout"
    assert attempt() == "locked"


@pytest.mark.parametrize(
    "url",
    ["http://example.com/m.zip", "ftp://example.com/m.zip", "file:///etc/passwd", "http://10.0.0.1/m.zip"],
)
def test_non_https_urls_are_refused(url):
    entry = CatalogueEntry(MODEL, "xx", "Test", url, 10, "", None, "0.1", "small")
    with pytest.raises(InsecureUrlError):
        install_model(entry)
    assert not paths.recognizer_models_dir().exists()


def test_loopback_and_https_urls_are_allowed():
    for url in [
        "https://alphacephei.com/vosk/models/x.zip",
        "http://127.0.0.1:8/x.zip",
        "http://localhost/x.zip",
        "http://[::1]:8/x.zip",
    ]:
        check_url(url)


def test_redirect_to_plain_http_is_refused(server):
    entry = publish(server, make_zip(model_files()))
    server.redirect = "http://example.com/evil.zip"
    with pytest.raises(InsecureUrlError):
        install_model(entry)


def test_unreachable_host_and_http_errors(server):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    gone = CatalogueEntry(MODEL, "xx", "Test", f"http://127.0.0.1:{port}/m.zip", 10, "", None, "0.1", "small")
    with pytest.raises(OfflineError, match="refused"):
        install_model(gone)
    missing = CatalogueEntry(MODEL, "xx", "Test", server.url("nope.zip"), 10, "", None, "0.1", "small")
    with pytest.raises(HttpError) as err:
        install_model(missing)
    assert err.value.status == 404 and "404" in str(err.value)


def test_shipped_catalogue():
    entries = catalogue.load_catalogue()
    names = [e.name for e in entries]
    assert len(entries) >= 30 and len(set(names)) == len(names)
    for e in entries:
        assert e.url == f"https://alphacephei.com/vosk/models/{e.name}.zip" and e.size > 0
        assert e.md5 is None or re.fullmatch(r"[0-9a-f]{32}", e.md5)
        assert not e.obsolete
    small = catalogue.default_english()
    assert (small.name, small.size, small.md5, small.type) == (
        "vosk-model-small-en-us-0.15",
        41205931,
        "09ab50ccd62b674cbaa231b825f9c1cb",
        "small",
    )
    assert {"vosk-model-en-us-0.22", "vosk-model-en-us-0.22-lgraph"} <= set(names)
    assert "model-list.json" in catalogue.catalogue_source()["upstream"]


def test_find_suggests_close_names():
    with pytest.raises(UnknownModelError) as err:
        catalogue.find("vosk-model-small-en-us-0.1")
    assert "vosk-model-small-en-us-0.15" in str(err.value)


def test_obsolete_flag_as_upstream_strings(tmp_path):
    rows = [
        dict(
            name=f"m-{flag}",
            lang="xx",
            lang_text="X",
            url="https://h/m.zip",
            size=1,
            size_text="1B",
            md5=None,
            version="1",
            type="small",
            obsolete=flag,
        )
        for flag in ("false", "true", "TRUE")
    ]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps({"source": {}, "models": rows}))
    assert [e.name for e in catalogue.load_catalogue(path)] == ["m-false"]


def test_model_layouts_installed_models_and_remove(tmp_path):
    models = tmp_path / "models"
    assert layout.is_vosk_model(fake_model(models / "vosk-model-small-en-us-0.15"))
    assert layout.is_vosk_model(fake_model(models / "old-layout", "v1"))
    assert "graph/HCLG.fst" in layout.model_problems(fake_model(models / "no-graph", "no-graph"))[0]
    fake_model(models / ".vosk-model-x.tmp-0123abcd")  # a downloader's temp folder: never listed
    listed = catalogue.installed_models(models)
    assert [m.name for m in listed] == ["old-layout", "vosk-model-small-en-us-0.15"]
    assert listed[0].entry is None and listed[1].entry == catalogue.default_english()
    assert catalogue.remove_model("old-layout", models) is True
    assert not (models / "old-layout").exists() and catalogue.remove_model("old-layout", models) is False
    assert [m.name for m in catalogue.installed_models(models)] == ["vosk-model-small-en-us-0.15"]
    for bad in ["../models", "", ".hidden", "a/b"]:
        with pytest.raises(ValueError):
            catalogue.remove_model(bad, models)


def test_per_user_folders(monkeypatch, tmp_path):
    assert paths.recognizer_models_dir() == tmp_path / "data" / "vosk-models"  # the override
    assert paths.journal_dir() == tmp_path / "data" / "journal"
    monkeypatch.delenv(paths.OVERRIDE_ENV)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", "/x/share")
    assert paths.data_dir() == paths.Path("/x/share/livecap")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert paths.data_dir() == paths.Path.home() / ".local" / "share" / "livecap"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", "/c/Users/u/AppData/Local")
    assert paths.data_dir() == paths.Path("/c/Users/u/AppData/Local/livecap")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert paths.data_dir() == paths.Path.home() / "Library" / "Application Support" / "livecap"


def test_a_lock_removed_on_release_still_excludes_whoever_waited_for_it(tmp_path):
    from engine.files.lock import FileLock

    path = tmp_path / ".model.lock"
    first = FileLock(path)
    first.acquire()
    got = threading.Event()
    waiter = FileLock(path, poll_s=0.01)
    thread = threading.Thread(target=lambda: (waiter.acquire(), got.set()))
    thread.start()
    time.sleep(0.1)
    first.release(remove=True)  # the waiter held the old file open: it must lock the new one
    thread.join(5)
    assert got.is_set() and waiter.locked and path.exists()
    with pytest.raises(LockTimeout):
        FileLock(path, timeout=0.2).acquire()
    waiter.release(remove=True)
    assert not path.exists()
