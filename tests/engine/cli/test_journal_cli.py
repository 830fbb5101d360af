"""Journals from the command line: ``recover`` for any kept session, retention, and ``listen`` when
the data folder cannot be written."""

import json
import os
import signal
import stat
import tempfile
import time
from pathlib import Path

import pytest

from engine.files import paths
from engine.punctuation.model import PunctuationModel
from engine.session.batch import repunctuate
from engine.transcript.export import export
from engine.transcript.journal import read_journal
from tests.engine.cli.conftest import livecap
from tests.speech import write_speech_wav

ROOT = Path(__file__).resolve().parents[3]
UNWRITABLE_DATA = "/proc/.local/share/livecap"  # the data folder of a user whose HOME is /proc


def render(transcript, fmt: str, tmp: Path) -> str:
    return export(transcript, fmt, tmp / f"expected.{fmt}").read_text()


def write_journal(folder: Path, name: str, words: list[str], closed: bool, days_old: float = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"t": "header", "version": 1, "started": "2026-01-01T12:00:00+00:00", "source": "mic"}]
    for k, text in enumerate(words):
        rows.append(
            {"t": "word", "position": k, "text": text, "form": text, "mark": "none", "case": "lower",
             "start": k * 0.5, "end": k * 0.5 + 0.4, "confidence": 1.0}
        )  # fmt: skip
    if closed:
        rows.append({"t": "closed", "words": len(words)})
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    then = time.time() - days_old * 86400
    os.utime(path, (then, then))
    return path


def test_recover_lists_and_exports_any_kept_session_repunctuated(env, tmp_path, tiny_model_dir):
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    words = "so what do you think i am not sure".split()
    closed = write_journal(folder, "session-20260101-120000.jsonl", words, closed=True)
    crashed = write_journal(folder, "session-20260101-130000.jsonl", words[:4], closed=False)
    empty = write_journal(folder, "session-20260101-140000.jsonl", [], closed=True)
    old = write_journal(folder, "session-20251101-120000.jsonl", words, closed=True, days_old=45)

    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0, r.stderr
    assert "session-20260101-120000.jsonl: 9 words" in r.stdout and "(ended cleanly)" in r.stdout
    assert "session-20260101-130000.jsonl: 4 words" in r.stdout and "(unfinished)" in r.stdout
    assert not empty.exists() and not old.exists()  # pruned: no words; past the 30 days

    out = tmp_path / "out"
    model_dir = ["--model-dir", tiny_model_dir]
    r = livecap(env, "recover", closed.stem, "--format", "srt", "-o", out, *model_dir, timeout=120)
    assert r.returncode == 0, r.stderr
    model = PunctuationModel(tiny_model_dir)
    expected = render(repunctuate(read_journal(closed).transcript.words, model), "srt", tmp_path)
    assert (out / f"recovered-{closed.stem}.srt").read_text() == expected  # as Restore punctuates
    assert not read_journal(closed).recovered

    r = livecap(env, "recover", "-o", out, *model_dir, timeout=120)  # the unfinished one
    assert r.returncode == 0, r.stderr
    expected = render(repunctuate(read_journal(crashed).transcript.words, model), "txt", tmp_path)
    assert (out / f"recovered-{crashed.stem}.txt").read_text() == expected
    assert read_journal(crashed).recovered

    r = livecap(env, "recover", "--all", "--format", "json", "-o", out, *model_dir, timeout=120)
    assert r.returncode == 0, r.stderr
    assert {p.name for p in out.glob("*.json")} == {
        f"recovered-{closed.stem}.json",
        f"recovered-{crashed.stem}.json",
    }
    r = livecap(env, "recover", "--all", "--format", "json", "-o", out, *model_dir, timeout=120)
    assert r.returncode == 2 and "already exists; pass --overwrite" in r.stderr  # never unasked
    r = livecap(env, "recover", "session-19990101-000000", timeout=60)
    assert r.returncode == 2 and "no kept session named session-19990101-000000" in r.stderr


def test_keep_days_is_a_setting(env):
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    old = write_journal(folder, "session-20251101-120000.jsonl", ["hello"], closed=True, days_old=45)
    r = livecap(env, "recover", "--list", "--keep-days", "forever", timeout=60)
    assert r.returncode == 0 and old.name in r.stdout
    r = livecap(env, "recover", "--list", "--keep-days", "60", timeout=60)
    assert r.returncode == 0 and old.name in r.stdout
    r = livecap(env, "recover", "--list", "--keep-days", "-1", timeout=60)
    assert r.returncode == 2 and "cannot be negative" in r.stderr
    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0 and old.name not in r.stdout and not old.exists()


def test_recover_lists_no_other_data_folders_fallback_sessions(env, tmp_path):
    """The fallback folders lie where every data folder of the user looks (the temporary folder,
    ``$XDG_RUNTIME_DIR``): a run with a data folder of its own (a test, a portable install) lists
    only its own sessions there, neither another data folder's nor what an older version left in
    the shared ``journal`` folder; the default data folder still finds the latter (an upgrade)."""
    tmp = tmp_path / "tmp"
    base = tmp / f"livecap-{os.getuid()}"
    base.mkdir(parents=True, mode=0o700)
    env = {k: v for k, v in env.items() if k != "XDG_RUNTIME_DIR"}
    env["TMPDIR"] = str(tmp)
    own = write_journal(
        base / f"journal-{paths.data_dir_key(env['LIVECAP_DATA_DIR'])}",
        "session-20260101-110000.jsonl",
        ["mine"],
        closed=False,
    )
    other = write_journal(
        base / f"journal-{paths.data_dir_key(tmp_path / 'other-data')}",
        "session-20260101-090000.jsonl",
        ["elsewhere"],
        closed=False,
    )
    legacy = write_journal(base / "journal", "session-20260101-100000.jsonl", ["before"], closed=False)

    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0, r.stderr
    assert own.name in r.stdout and other.name not in r.stdout and legacy.name not in r.stdout, r.stdout

    default = {k: v for k, v in env.items() if not k.startswith(("XDG_", "LIVECAP_"))}
    default["HOME"] = str(tmp_path / "home")
    r = livecap(default, "recover", "--list", timeout=60)
    assert r.returncode == 0, r.stderr
    assert legacy.name in r.stdout and other.name not in r.stdout and own.name not in r.stdout, r.stdout
    assert all(p.exists() for p in (own, other, legacy))  # nobody pruned another's sessions


@pytest.fixture(scope="module")
def wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("journal_cli") / "talk.wav", repeats=1)


@pytest.fixture(scope="module")
def talk_then_silence(tmp_path_factory):
    """A sentence, then two minutes of silence: played in real time, the session is still running
    long after the sentence's words are journaled, so a signal sent once they are lands mid-session
    whatever the recognizer's or the machine's pace."""
    return write_speech_wav(
        tmp_path_factory.mktemp("journal_cli") / "talk-then-silence.wav", repeats=1, gap=120
    )


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_listen_with_an_unwritable_home_journals_to_a_private_fallback(wav, tmp_path, tiny_model_dir):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "LIVECAP_"))}
    env.update(
        HOME="/proc",
        XDG_RUNTIME_DIR=str(runtime),
        PULSE_SERVER=f"unix:{tmp_path}/no-such-pulse-socket",
        PYTHONPATH=str(ROOT),
    )
    r = livecap(env, "listen", "--source", wav, "--model-dir", tiny_model_dir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()  # captions
    fallback = runtime / "livecap" / f"journal-{paths.data_dir_key(UNWRITABLE_DATA)}"
    notices = [line for line in r.stderr.splitlines() if "cannot write journals" in line]
    assert len(notices) == 1, r.stderr  # said once
    assert "/proc/.local/share/livecap/journal" in notices[0] and str(fallback) in notices[0]
    (journal,) = fallback.glob("session-*.jsonl")
    assert read_journal(journal).closed and read_journal(journal).transcript.words
    assert str(journal) in r.stderr


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_listen_with_no_writable_folder_captions_without_a_journal(wav, monkeypatch, capsys, tiny_model_dir):
    """In process: no folder at all can be written (tempfile's folder made unwritable here, which
    a subprocess could not arrange without root-proof permissions)."""
    from engine.cli.main import main

    for name in ("LIVECAP_DATA_DIR", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/proc")
    monkeypatch.setattr(tempfile, "tempdir", "/proc")
    assert main(["listen", "--source", str(wav), "--model-dir", str(tiny_model_dir)]) == 0
    out = capsys.readouterr()
    assert out.out.strip()  # the captions ran
    assert "crash recovery is off" in out.err and "cannot write journals to /proc/.local" in out.err
    assert "no journal (crash recovery was off)" in out.err


def _crash_env(tmp_path: Path) -> dict:
    """A user whose data folder cannot be written and who has no runtime folder: sessions
    journal to livecap's per-user folder in the temporary folder (here ``tmp_path/tmp``)."""
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "LIVECAP_"))}
    env.update(
        HOME="/proc",
        TMPDIR=str(tmp_path / "tmp"),
        PULSE_SERVER=f"unix:{tmp_path}/no-such-pulse-socket",
        PYTHONPATH=str(ROOT),
    )
    return env


def _listen_until_words(env, wav, tiny_model_dir):
    """A real-time ``listen`` of ``wav``, once its journal holds words (the recognizer is not what
    these tests are about: PocketSphinx, light and quick to start)."""
    from tests.engine.cli.conftest import livecap_process

    listen = livecap_process(
        env,
        "listen",
        "--source",
        wav,
        "--realtime",
        "--recognizer",
        "pocketsphinx",
        "--model-dir",
        tiny_model_dir,
    )
    deadline = time.monotonic() + 60
    folder = Path(env["TMPDIR"]) / f"livecap-{os.getuid()}" / f"journal-{paths.data_dir_key(UNWRITABLE_DATA)}"
    while time.monotonic() < deadline:
        found = list(folder.glob("session-*.jsonl"))
        if found and read_journal(found[0]).transcript.words:
            return listen, found[0]
        time.sleep(0.2)
    listen.kill()
    raise AssertionError("no words were journaled within 60 s")


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_recover_finds_a_crashed_session_in_the_temporary_fallback_and_the_next_start_reuses_it(
    wav, talk_then_silence, tmp_path, tiny_model_dir
):
    env = _crash_env(tmp_path)
    listen, journal = _listen_until_words(env, talk_then_silence, tiny_model_dir)
    listen.kill()  # kill -9: nothing is closed
    listen.communicate(timeout=30)
    assert listen.returncode == -signal.SIGKILL  # killed mid-session, not ended on its own
    base = journal.parent.parent
    assert stat.S_IMODE(base.stat().st_mode) == 0o700 and base.stat().st_uid == os.getuid()
    assert stat.S_IMODE(journal.parent.stat().st_mode) == 0o700
    lock = journal.with_name(f".{journal.name}.lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600  # the crashed writer's lock: private

    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0 and f"{journal.name}: " in r.stdout and "(unfinished)" in r.stdout, r
    assert not lock.exists()  # asking whether it runs left no lock file behind
    r = livecap(env, "recover", "-o", tmp_path / "saved", "--model-dir", tiny_model_dir, timeout=120)
    assert r.returncode == 0, r.stderr
    assert list((tmp_path / "saved").iterdir()), "nothing was saved"

    # The next session journals to the same folder: nothing new appears in the temporary folder.
    r = livecap(env, "listen", "--source", wav, "--recognizer", "pocketsphinx", "--model-dir", tiny_model_dir)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in Path(env["TMPDIR"]).iterdir()) == [base.name]
    assert len(list(journal.parent.glob("session-*.jsonl"))) == 2
    assert not list(journal.parent.glob(".*.lock"))  # a clean session takes its lock file with it


def test_a_fallback_folder_of_another_user_or_a_link_is_refused(tmp_path, monkeypatch):
    from engine.transcript.journal_folder import choose_journal_folder

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    paths.temp_user_dir().symlink_to(elsewhere)  # planted by someone else before livecap ran
    chosen = choose_journal_folder("/proc/livecap-journal")
    assert chosen.path is None and "is not a folder of its own" in chosen.notice
    assert not list(elsewhere.iterdir())  # nothing written through the link


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_sigterm_ends_listen_as_ctrl_c_does(talk_then_silence, tmp_path, tiny_model_dir):
    env = _crash_env(tmp_path)
    listen, journal = _listen_until_words(env, talk_then_silence, tiny_model_dir)
    listen.terminate()  # SIGTERM
    _, err = listen.communicate(timeout=60)
    assert listen.returncode == 0, err
    assert "stopping (settling the last marks)" in err and "words; transcript journal saved to" in err
    assert read_journal(journal).closed  # ended cleanly, not "unfinished"
    assert not journal.with_name(f".{journal.name}.lock").exists()


# ---- what recover saves, where it looks, in what order -------------------------------------------
def write_rows(folder: Path, name: str, started: str, words: list[dict], closed: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"t": "header", "version": 1, "started": started, "source": "mic"}, *words]
    if closed:
        rows.append({"t": "closed", "words": len(words)})
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def contrary_words(tiny_model_dir) -> list[dict]:
    """Journal lines whose settled marks and capitals differ from what the offline decoder would
    choose for the same words, at every word."""
    from engine.words import Word

    text = "so we start can you hear me at the back or shall i speak up".split()
    timed = [Word(t, k * 0.5, k * 0.5 + 0.4) for k, t in enumerate(text)]
    decided = repunctuate(timed, PunctuationModel(tiny_model_dir))
    other = {"none": "comma", "comma": "period", "period": "question", "question": "none"}
    lines = []
    for k, (w, d) in enumerate(zip(timed, decided.words)):
        case = "lower" if d.case != "lower" else "capitalized"
        form = w.text if case == "lower" else w.text.capitalize()
        lines.append(
            {"t": "word", "position": k, "text": w.text, "form": form, "mark": other[d.mark], "case": case,
             "start": w.start, "end": w.end, "confidence": 1.0}
        )  # fmt: skip
    return lines


@pytest.mark.parametrize("fmt", ["txt", "json", "srt"])
def test_recover_keeps_every_settled_mark_byte_for_byte(env, tmp_path, tiny_model_dir, fmt):
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    crashed = write_rows(folder, "session-20260101-120000.jsonl", "2026-01-01T12:00:00+00:00",
                         contrary_words(tiny_model_dir))  # fmt: skip
    out = tmp_path / "out"
    r = livecap(env, "recover", "--format", fmt, "-o", out, "--model-dir", tiny_model_dir, timeout=120)
    assert r.returncode == 0, r.stderr
    # Every journaled word settled live: saved exactly as the captions showed it.
    expected = render(read_journal(crashed).transcript, fmt, tmp_path)
    assert (out / f"recovered-{crashed.stem}.{fmt}").read_text() == expected


def test_recover_replaces_a_saved_transcript_only_with_overwrite(env, tmp_path, tiny_model_dir):
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    journal = write_journal(folder, "session-20260101-120000.jsonl", ["hello", "there"], closed=True)
    out = tmp_path / "out"
    out.mkdir()
    saved = out / f"recovered-{journal.stem}.txt"
    saved.write_text("my edited notes\n")
    model_dir = ["--model-dir", tiny_model_dir]

    r = livecap(env, "recover", journal.stem, "-o", out, *model_dir, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{saved} already exists; pass --overwrite to replace it" in r.stderr
    assert saved.read_text() == "my edited notes\n"

    r = livecap(env, "recover", journal.stem, "-o", out, "--overwrite", *model_dir, timeout=120)
    assert r.returncode == 0, r.stderr
    assert saved.read_text().split() == ["hello", "there."] and not list(out.glob(".*"))


def test_recover_lists_the_sessions_oldest_first_whatever_their_folder_or_name(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = _crash_env(tmp_path)
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_RUNTIME_DIR=str(runtime))
    main = tmp_path / "data" / "livecap" / "journal"
    fallback = runtime / "livecap" / f"journal-{paths.data_dir_key(main.parent)}"
    word = {"t": "word", "position": 0, "text": "hi", "form": "Hi", "mark": "period", "case": "capitalized",
            "start": 0.0, "end": 0.3, "confidence": 1.0}  # fmt: skip
    # Started: 09:00 UTC (its name says 12:00 local, +03:00), 10:00 UTC, 11:00 UTC, noon UTC.
    write_rows(main, "session-20260101-120000.jsonl", "2026-01-01T12:00:00+03:00", [word], closed=True)
    write_rows(main, "session-20260101-110000.jsonl", "2026-01-01T12:00:00+00:00", [word], closed=True)
    write_rows(fallback, "session-20260101-100000.jsonl", "2026-01-01T10:00:00+00:00", [word])
    write_rows(main, "session-20260101-110000-2.jsonl", "2026-01-01T11:00:00+00:00", [word], closed=True)

    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"Kept sessions in {main} and {fallback}, oldest first:"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "session-20260101-120000.jsonl",
        "session-20260101-100000.jsonl",
        "session-20260101-110000-2.jsonl",
        "session-20260101-110000.jsonl",
    ]


def test_with_an_unusable_home_recover_names_the_folder_it_read(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = _crash_env(tmp_path)  # HOME=/proc: the per-user folder cannot exist
    env["XDG_RUNTIME_DIR"] = str(runtime)
    fallback = runtime / "livecap" / f"journal-{paths.data_dir_key(UNWRITABLE_DATA)}"
    write_journal(fallback, "session-20260101-120000.jsonl", ["hello"], closed=True)

    r = livecap(env, "recover", timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (
        f"Nothing to recover: every session in {fallback} ended cleanly "
        "(1 kept; livecap recover --list shows them)."
    )
    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0 and "/proc" not in r.stdout, r.stdout
    assert r.stdout.splitlines()[0] == f"Kept sessions in {fallback}, oldest first:"

    fallback.joinpath("session-20260101-120000.jsonl").unlink()
    r = livecap(env, "recover", "--list", timeout=60)
    assert r.stdout.strip() == f"No kept sessions in {fallback}.", r.stdout  # read, and empty
    fallback.rmdir()
    r = livecap(env, "recover", "--list", timeout=60)
    assert r.stdout.strip() == (
        f"No kept sessions in any journal folder (looked in /proc/.local/share/livecap/journal, {fallback})."
    )


def test_recover_ends_no_session_of_another_language_with_an_english_period(env, tmp_path, tiny_model_dir):
    """A Korean Vosk model's words were journaled unmarked: the saved transcript ends as it was
    heard. The header names the language; an older one names the Vosk model, whose folder does."""
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    korean_model = tmp_path / "vosk-model-small-ko-0.22"
    korean_model.mkdir()
    words = [
        {"t": "word", "position": k, "text": text, "form": text, "mark": "none", "case": "lower",
         "start": k * 0.5, "end": k * 0.5 + 0.4, "confidence": 1.0}
        for k, text in enumerate(["안녕하세요", "오늘", "날씨가", "좋습니다"])
    ]  # fmt: skip
    headers = {
        "session-20260101-120000": {"recognizer": "vosk", "model": str(korean_model), "language": "ko"},
        "session-20260101-130000": {"recognizer": "vosk", "model": str(korean_model)},  # before "language"
        "session-20260101-140000": {"recognizer": "vosk", "model": "/gone", "language": "en-us"},
    }
    for name, header in headers.items():
        write_rows(folder, name + ".jsonl", "2026-01-01T12:00:00+00:00", words)
        path = folder / (name + ".jsonl")
        rows = path.read_text().splitlines()
        rows[0] = json.dumps({**json.loads(rows[0]), **header})
        path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    for fmt in ("txt", "srt"):
        r = livecap(env, "recover", "--all", "--format", fmt, "-o", out, "--model-dir", tiny_model_dir,
                    "--overwrite", timeout=120)  # fmt: skip
        assert r.returncode == 0, r.stderr
        for name in list(headers)[:2]:
            saved = (out / f"recovered-{name}.{fmt}").read_text(encoding="utf-8")
            assert "좋습니다" in saved and "." not in saved, (name, saved)
        english = (out / f"recovered-session-20260101-140000.{fmt}").read_text(encoding="utf-8")
        assert "좋습니다." in english  # a session the header calls English still ends its sentence
