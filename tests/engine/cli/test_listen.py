"""``livecap transcribe | listen | devices | models | recover`` as a user runs them (subprocesses)."""

import json
import signal
import time
from pathlib import Path

import pytest

from engine.transcript.journal import read_journal
from engine.transcript.transcript import Transcript
from tests.engine.cli.conftest import livecap, livecap_process
from tests.speech import write_speech_wav

ROOT = Path(__file__).resolve().parents[3]


def one_line_error(result, *fragments):
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("livecap"), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("cli") / "talk.wav", repeats=2)


# ---- transcribe ---------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.needs_espeak
def test_transcribe_to_json_and_srt(wav, tmp_path, env, tiny_model_dir):
    import srt

    r = livecap(
        env, "transcribe", wav, "--model-dir", tiny_model_dir, "--format", "json", "-o", tmp_path / "t.json"
    )
    assert r.returncode == 0, r.stderr
    assert "PocketSphinx" not in r.stderr  # no Vosk model: the embedded Whisper, nothing to announce
    assert "[####################] 100%" in r.stderr  # the progress bar (as lines: stderr is not a TTY)
    transcript = Transcript.from_dict(json.loads((tmp_path / "t.json").read_text()))
    words = [w.text for w in transcript.words]
    assert len(words) >= 12 and "park" in words and transcript.has_times

    r = livecap(
        env,
        "transcribe",
        wav,
        "--model-dir",
        tiny_model_dir,
        "--format",
        "srt",
        "--recognizer",
        "pocketsphinx",
    )
    assert r.returncode == 0, r.stderr
    assert "No Vosk model" not in r.stderr
    out = wav.with_suffix(".srt")  # default: next to the audio
    cues = list(srt.parse(out.read_text()))
    assert cues and all(c.start < c.end for c in cues)
    assert " ".join(c.content.replace("\n", " ") for c in cues).lower().count("park") >= 1
    out.unlink()


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_transcribe_to_stdout(wav, env, tiny_model_dir):
    r = livecap(
        env, "transcribe", wav, "--model-dir", tiny_model_dir, "-o", "-", "--recognizer", "pocketsphinx"
    )
    assert r.returncode == 0, r.stderr
    assert "park" in r.stdout.lower() and "[" not in r.stdout  # text only; the bar went to stderr


@pytest.mark.parametrize(
    "make_args,fragments",
    [
        (lambda tmp: ["transcribe", tmp / "missing.wav"], ["missing.wav", "no such file"]),
        (lambda tmp: ["transcribe", tmp / "notes.wav"], ["not a WAV, FLAC or OGG"]),
        (lambda tmp: ["transcribe", tmp / "notes.wav", "--format", "docx"], ["invalid choice", "docx"]),
        (lambda tmp: ["transcribe", tmp / "notes.wav", "--recognizer", "vosk"], ["not a WAV"]),
        (lambda tmp: ["listen", "--source", tmp / "missing.wav"], ["no such file"]),
        (lambda tmp: ["listen", "--source", "mic", "--realtime"], ["--realtime"]),
        (lambda tmp: ["models", "download", "vosk-model-small-en-uss-0.15"], ["vosk-model-small-en-us-0.15"]),
        (lambda tmp: ["models", "remove", "vosk-model-small-en-us-0.15"], ["no model named"]),
        (lambda tmp: ["models", "remove", "../etc"], ["not a valid model name"]),
        (lambda tmp: ["models", "frobnicate"], ["invalid choice"]),
    ],
)
def test_errors_are_one_clear_line(tmp_path, env, make_args, fragments):
    (tmp_path / "notes.wav").write_text("these are my notes, not audio\n")
    one_line_error(livecap(env, *make_args(tmp_path), timeout=60), *fragments)


@pytest.mark.needs_espeak
def test_transcribe_without_a_vosk_model_when_vosk_is_demanded(wav, env):
    one_line_error(livecap(env, "transcribe", wav, "--recognizer", "vosk"), "No Vosk model installed")


# ---- listen -----------------------------------------------------------------------------------------
@pytest.mark.needs_espeak
def test_listen_to_a_partly_written_wav_warns_once_and_captions_what_is_there(tmp_path, env, tiny_model_dir):
    import soundfile as sf

    data = write_speech_wav(tmp_path / "whole.wav").read_bytes()
    at = data.index(b"data") + 8
    cut = tmp_path / "crashed.wav"
    cut.write_bytes(data[: at + (len(data) - at) * 3 // 5 // 2 * 2])  # the recorder died at 60 %
    seconds = sf.info(cut).frames / sf.info(cut).samplerate
    r = livecap(env, "listen", "--source", cut, "--model-dir", tiny_model_dir, "--recognizer", "pocketsphinx")
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "truncated" in line]
    assert warnings == [f"livecap: {cut}: truncated: captioning the {seconds:.1f} s that are present"]
    assert len(r.stdout.split()) >= 5  # the audio that is there was captioned


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_listen_to_a_file_prints_captions_and_saves_the_journal(wav, env, tiny_model_dir):
    r = livecap(env, "listen", "--source", wav, "--model-dir", tiny_model_dir, "--recognizer", "pocketsphinx")
    assert r.returncode == 0, r.stderr
    assert "park" in r.stdout.lower() and "\x1b[" not in r.stdout  # not a TTY: no colours, no redrawing
    assert "end of file" in r.stderr
    saved = r.stderr.strip().splitlines()[-1]
    assert "transcript journal saved to" in saved
    journal = Path(saved.rsplit(" ", 1)[1])
    contents = read_journal(journal)
    assert contents.closed and len(contents.transcript.words) >= 12
    assert journal.parent == Path(env["LIVECAP_DATA_DIR"]) / "journal"


def listen_in_real_time(env, wav, model_dir):
    return livecap_process(
        env, "listen", "--source", wav, "--realtime", "--model-dir", model_dir, "--recognizer", "pocketsphinx"
    )


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_ctrl_c_stops_cleanly_and_says_where_the_journal_is(wav, env, tiny_model_dir):
    proc = listen_in_real_time(env, wav, tiny_model_dir)
    try:
        # Wait until it listens, then give it some speech before interrupting.
        line = proc.stderr.readline()
        assert "listening to" in line, line
        time.sleep(3.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "transcript journal saved to" in err
    journal = Path(err.strip().splitlines()[-1].rsplit(" ", 1)[1])
    assert read_journal(journal).closed


@pytest.fixture(scope="module")
def long_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("cli_long") / "long.wav", repeats=4)


# ``livecap listen`` whose PocketSphinx takes as long over its last decode as Whisper does: the
# words of that decode are the ones a Ctrl-C used to lose.
SLOW_LAST_DECODE = """
import sys, time
sys.path[:0] = [{root!r}]
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer

flush = PocketSphinxRecognizer.flush
PocketSphinxRecognizer.flush = lambda self: (time.sleep(1.5), flush(self))[1]
from engine.cli.main import main

sys.exit(main(sys.argv[1:]))
"""


def read_until(master: int, seen: bytearray, wanted, timeout: float = 60.0, since: int = 0) -> None:
    """Read the terminal into ``seen`` until ``wanted(seen)`` holds, or ``wanted`` (bytes) shows
    after offset ``since``."""
    import os
    import select

    test = wanted if callable(wanted) else lambda seen: wanted in seen[since:]
    deadline = time.monotonic() + timeout
    while not test(seen):
        assert time.monotonic() < deadline, f"{wanted!r} never came: {bytes(seen)!r}"
        if select.select([master], [], [], 0.2)[0]:
            seen += os.read(master, 1 << 16)


def until_mid_utterance(master: int, seen: bytearray, env) -> None:
    """Read the terminal of a ``listen`` until its first words are journaled and the next
    utterance is under way (unstable words on screen)."""
    read_until(master, seen, b"press Ctrl-C to stop")
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"

    def journaled(_):
        return any(read_journal(j).transcript.words for j in folder.glob("session-*.jsonl"))

    read_until(master, seen, journaled)
    read_until(master, seen, b"\x1b[2m", since=len(seen))


def read_to_the_end(master: int, proc, seen: bytearray, timeout: float = 60.0) -> None:
    """Read the terminal until ``proc`` has ended and said everything (then close it)."""
    import os
    import select

    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:  # the other end is closed: everything was read
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)


@pytest.mark.slow
@pytest.mark.needs_espeak
@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_ctrl_c_on_a_terminal_keeps_the_last_words_and_the_summary_is_the_last_line(
    long_wav, env, tiny_model_dir, signum
):
    import os
    import subprocess
    import sys

    wav = long_wav  # time to spare after the first sentence however busy the machine
    master, slave = os.openpty()
    args = [
        "listen",
        "--source",
        wav,
        "--realtime",
        "--model-dir",
        tiny_model_dir,
        "--recognizer",
        "pocketsphinx",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_LAST_DECODE.format(root=str(ROOT)), *map(str, args)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    os.close(slave)
    seen = bytearray()
    try:
        until_mid_utterance(master, seen, env)
        proc.send_signal(getattr(signal, signum))  # Ctrl-C, or a service manager's stop
        read_to_the_end(master, proc, seen)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = seen.decode(errors="replace").replace("\r\n", "\n")
    assert proc.returncode == 0, text
    assert "Traceback" not in text and "nanobind" not in text and "leaked" not in text, text
    summary = [line for line in text.split("\n") if "words; transcript journal saved to" in line]
    assert len(summary) == 1, text
    assert text.rstrip().endswith(summary[0].strip()), f"printed after the summary: {text!r}"
    journal = Path(summary[0].strip().rsplit(" ", 1)[1])
    contents = read_journal(journal)
    words = int(summary[0].split("livecap: ", 1)[1].split(" words", 1)[0])
    assert contents.closed and len(contents.transcript.words) == words > 0
    assert contents.transcript.words[-1].ends_sentence  # the end of the session ends a sentence
    # Every word kept was shown before the summary: the captions were finished, not cut short.
    shown = text.split(summary[0])[0]
    assert contents.transcript.words[-1].display in shown


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_sigterm_while_listen_stops_lets_it_finish_saving(long_wav, env, tiny_model_dir):
    """A service manager's SIGTERM (or a logout's) while the session is already stopping: the
    stop goes on to the end (last decode, journal closed) instead of the process dying mid-save."""
    import os
    import subprocess
    import sys

    master, slave = os.openpty()
    args = ["listen", "--source", long_wav, "--realtime", "--model-dir", tiny_model_dir]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SLOW_LAST_DECODE.format(root=str(ROOT)),
            *map(str, args),
            "--recognizer",
            "pocketsphinx",
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    os.close(slave)
    seen = bytearray()
    try:
        until_mid_utterance(master, seen, env)
        proc.send_signal(signal.SIGINT)
        read_until(master, seen, b"stopping (settling the last marks)")
        proc.send_signal(signal.SIGTERM)  # during the last decode
        read_to_the_end(master, proc, seen)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = seen.decode(errors="replace")
    assert proc.returncode == 0, text
    [summary] = [line for line in text.splitlines() if "words; transcript journal saved to" in line]
    assert read_journal(Path(summary.strip().rsplit(" ", 1)[1])).closed


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_second_ctrl_c_gives_up_at_once_and_says_so_on_the_last_line(long_wav, env, tiny_model_dir):
    """Ctrl-C twice: the second gives up the last decode. The caption line is cleared, one line
    says that ``livecap recover`` will save the session, and nothing follows it (the shell's
    prompt starts a line of its own); the journal is left for ``recover``."""
    import os
    import subprocess
    import sys

    from engine.transcript.journal import recover

    master, slave = os.openpty()
    args = ["listen", "--source", long_wav, "--realtime", "--model-dir", tiny_model_dir]
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_LAST_DECODE.format(root=str(ROOT)), *map(str, args)]
        + ["--recognizer", "pocketsphinx"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
    )
    os.close(slave)
    seen = bytearray()
    try:
        until_mid_utterance(master, seen, env)
        proc.send_signal(signal.SIGINT)
        read_until(master, seen, b"stopping (settling the last marks)")
        proc.send_signal(signal.SIGINT)  # during the last decode
        read_to_the_end(master, proc, seen)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = seen.decode(errors="replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "interrupted" not in text and "leaked" not in text, text
    last = (
        "livecap: stopped at once, before the last words settled; "
        "`livecap recover` will save the unfinished session"
    )
    assert text.endswith("\r\x1b[K" + last + "\r\n"), f"not the last line: {text[-300:]!r}"
    assert text.count("livecap recover") == 1
    [unfinished] = recover(Path(env["LIVECAP_DATA_DIR"]) / "journal")
    assert unfinished.transcript.words  # what had settled is there to save


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_kill_9_mid_session_then_recover_keeps_what_had_settled(wav, env, tiny_model_dir):
    """The whole live path in a real process, killed with SIGKILL: the journal it leaves holds every
    word settled well before the kill (here the whole first sentence), exactly as a clean run has them."""
    from engine.transcript.journal import recover

    clean = livecap(
        env, "listen", "--source", wav, "--model-dir", tiny_model_dir, "--recognizer", "pocketsphinx"
    )
    assert clean.returncode == 0, clean.stderr
    full = read_journal(Path(clean.stderr.strip().splitlines()[-1].rsplit(" ", 1)[1])).transcript.words
    first = [w for w in full if w.end < 5.0]  # the first sentence: spoken by 4.6 s, its final at ~5.1 s
    assert len(first) >= 4, [w.text for w in full]

    journal = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    before = set(journal.iterdir())
    proc = listen_in_real_time(env, wav, tiny_model_dir)
    try:
        assert "listening to" in proc.stderr.readline()
        # Killed once the journal holds the first sentence (however busy the machine), while the
        # second sentence is under way.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            live = [path for path in journal.iterdir() if path not in before and path.suffix == ".jsonl"]
            if live and len(read_journal(live[0]).transcript.words) >= len(first):
                break
            time.sleep(0.1)
        assert proc.poll() is None, "the session ended before its first sentence was journaled"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    [left] = recover(Path(env["LIVECAP_DATA_DIR"]) / "journal")  # the clean run's journal is closed
    assert not left.closed
    got = left.transcript.words
    assert len(got) >= len(first), (len(got), len(first))
    assert [(w.text, w.mark, w.case) for w in got[: len(first)]] == [(w.text, w.mark, w.case) for w in first]
    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0 and f"{left.path.name}: {len(got)} words" in r.stdout


# ---- devices and models ---------------------------------------------------------------------------
def test_devices_without_hardware_or_sound_server(env):
    r = livecap(env, "devices", timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Microphones" in r.stdout and "System audio" in r.stdout
    assert "Traceback" not in r.stderr + r.stdout
    # No sound server is reachable here: the system-audio half says so instead of listing nothing.
    assert "unavailable" in r.stdout.split("System audio", 1)[1]


def test_models_list_and_path(env):
    r = livecap(env, "models", "list", timeout=60)
    assert r.returncode == 0, r.stderr
    assert "vosk-model-small-en-us-0.15" in r.stdout and "1 installed" in r.stdout
    r = livecap(env, "models", "list", "--lang", "de", timeout=60)
    assert r.returncode == 0 and "vosk-model-small-en-us" not in r.stdout and "-de-" in r.stdout
    r = livecap(env, "models", "path", timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == str(Path(env["LIVECAP_DATA_DIR"]) / "vosk-models")
    assert Path(r.stdout.strip()).is_dir()  # the folder printed is there to open


# ---- recover ----------------------------------------------------------------------------------------
def test_recover_a_left_behind_journal(env, tmp_path):
    folder = Path(env["LIVECAP_DATA_DIR"]) / "journal"
    folder.mkdir(parents=True)

    def word(position, text, form, mark):
        return {
            "t": "word",
            "position": position,
            "text": text,
            "form": form,
            "mark": mark,
            "case": "lower",
            "start": position * 0.5,
            "end": position * 0.5 + 0.4,
            "confidence": 1.0,
        }

    rows = [
        {
            "t": "header",
            "version": 1,
            "started": "2026-01-01T12:00:00+00:00",
            "recognizer": "pocketsphinx",
            "source": "default microphone",
        },
        word(0, "so", "So", "comma"),
        word(1, "what", "what", "none"),
        word(2, "now", "now", "question"),
        word(3, "oops", "oops", "none"),
        {"t": "withdrawn", "position": 3},
        {"t": "retracted", "from": 3},
        word(3, "fine", "Fine", "period"),
    ]
    crashed = folder / "session-20260101-120000.jsonl"
    crashed.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"t": "wo')  # died mid-line
    (folder / "session-20260101-130000.jsonl").write_text(
        json.dumps(rows[0]) + "\n" + json.dumps({"t": "closed", "words": 0}) + "\n"
    )  # a clean one

    r = livecap(env, "recover", "--list", timeout=60)
    assert r.returncode == 0 and "session-20260101-120000.jsonl: 4 words" in r.stdout
    assert "130000" not in r.stdout

    r = livecap(env, "recover", "-o", tmp_path / "out", timeout=60)
    assert r.returncode == 0, r.stderr
    saved = tmp_path / "out" / "recovered-session-20260101-120000.txt"
    # Re-punctuated by the offline decoder, as the window's Restore does (test_journal_cli checks
    # the marks); the words are the journal's, withdrawals applied.
    assert saved.read_text().lower().replace(",", "").replace(".", "").replace("?", "").split() == [
        "so", "what", "now", "fine"
    ]  # fmt: skip
    assert read_journal(crashed).recovered

    r = livecap(env, "recover", timeout=60)
    assert r.returncode == 0 and "Nothing to recover" in r.stdout


# ---- the terminal display and the progress bar, in process -------------------------------------------
def test_terminal_captions_dim_what_may_change_and_keep_settled_lines():
    import io

    from engine.cli.terminal_captions import DIM, TerminalCaptions
    from engine.events import Appended, PartialWords, Provisional, Retracted, Settled
    from engine.words import Word

    out, err = io.StringIO(), io.StringIO()
    captions = TerminalCaptions(out, err, interactive=True, width=31)
    words = "so what do we do now that the meeting is over".split()
    captions([Appended(0, Word("so")), Provisional(0, "comma", "capitalized", 0.6, "So")])
    assert out.getvalue().endswith(f"{DIM}So,\x1b[0m")  # provisional mark: dim
    captions([Settled(0, "comma", "capitalized", 1, "So")])
    assert out.getvalue().endswith("\r\x1b[KSo,")  # settled: plain
    captions([PartialWords((Word("what"),))])
    assert out.getvalue().endswith(f"So, {DIM}what\x1b[0m")  # unstable words: dim
    for p, w in enumerate(words[1:], start=1):
        captions([PartialWords(()), Appended(p, Word(w)), Settled(p, "none", "lower", 1, w)])
    captions(
        [
            Retracted(len(words) - 1),
            Appended(len(words) - 1, Word("done")),
            Provisional(len(words) - 1, "period", "lower", 0.5, "done"),
        ]
    )
    captions.finish()
    lines = out.getvalue().split("\n")
    finished = [line.rsplit("\r\x1b[K", 1)[-1] for line in lines if line]
    assert finished[0] == "So, what do we do now that the"  # the first full line, printed for good
    assert all(len(line) <= 30 for line in finished)
    assert " ".join(finished).split() == ["So,"] + words[1:-1] + ["done."]


def test_on_a_terminal_the_end_of_file_notice_follows_the_captions_not_splits_them():
    import io

    from engine.cli.terminal_captions import TerminalCaptions
    from engine.events import Appended, Provisional, Settled, SourceNotice
    from engine.words import Word

    screen = io.StringIO()  # stdout and stderr on one terminal
    captions = TerminalCaptions(screen, screen, interactive=True, width=80)
    captions([Appended(0, Word("we")), Settled(0, "none", "capitalized", 1, "We")])
    captions([Appended(1, Word("are")), Provisional(1, "none", "lower", 0.6, "are")])
    captions([SourceNotice("finished", "talk.wav: end of file (11.6 s)")])  # the last words still pending
    captions([Appended(2, Word("done")), Settled(1, "none", "lower", 1, "are")])
    captions([Settled(2, "period", "lower", 0, "done")])
    captions.finish()
    visible = [
        line.rsplit("\r\x1b[K", 1)[-1] for line in screen.getvalue().split("\n") if line.strip("\r\x1b[K")
    ]
    assert visible == ["We are done.", "livecap: talk.wav: end of file (11.6 s)"]
    # other notices (a lost device, an overrun) are said at once
    captions([SourceNotice("overrun", "2 audio chunk(s) lost")])
    assert screen.getvalue().rstrip("\r\x1b[K").endswith("livecap: 2 audio chunk(s) lost\n")


def test_terminal_captions_without_a_terminal_print_settled_sentences_once():
    import io

    from engine.cli.terminal_captions import TerminalCaptions
    from engine.events import Appended, Provisional, Settled, SourceNotice
    from engine.words import Word

    out, err = io.StringIO(), io.StringIO()
    captions = TerminalCaptions(out, err, interactive=False)
    captions([Appended(0, Word("hello")), Provisional(0, "period", "capitalized", 0.6, "Hello")])
    assert out.getvalue() == ""  # nothing settled yet
    captions([Settled(0, "period", "capitalized", 1, "Hello"), Appended(1, Word("again"))])
    captions([SourceNotice("overrun", "2 audio chunk(s) lost")])
    captions([Settled(1, "none", "lower", 1, "again")])
    captions.finish()
    assert out.getvalue() == "Hello.\nagain\n" and "\x1b" not in out.getvalue()
    assert err.getvalue() == "livecap: 2 audio chunk(s) lost\n"


def test_terminal_captions_of_a_meeting_name_the_speaker_where_it_changes():
    import io

    from engine.cli.terminal_captions import TerminalCaptions
    from engine.events import Appended, PartialWords, Settled, SpeakersLabelled
    from engine.speakers.labels import SpeakerNames
    from engine.words import Word

    out = io.StringIO()
    captions = TerminalCaptions(
        out, io.StringIO(), interactive=False, names=SpeakerNames(renamed={"me": "Ana"})
    )
    said = [("hi", "me", "period"), ("hello", "others", "none"), ("there", "others", "period")]
    captions([Appended(p, Word(t, speaker=s)) for p, (t, s, _) in enumerate(said)])
    captions([SpeakersLabelled(((1, "others:2"), (2, "others:2")), 3)])
    captions([Settled(p, m, "capitalized" if t != "there" else "lower", 1, t.title() if t != "there" else t)
              for p, (t, _, m) in enumerate(said)])  # fmt: skip
    captions.finish()
    assert out.getvalue() == "Ana: Hi.\nOthers 2: Hello there.\n"
    tty = io.StringIO()
    live = TerminalCaptions(tty, io.StringIO(), interactive=True, width=80)
    live(
        [
            PartialWords((Word("so", speaker="me"),), "me"),
            PartialWords((Word("yes", speaker="others"),), "others"),
        ]
    )
    assert tty.getvalue().endswith("\x1b[2mMe: so\x1b[0m \x1b[2mOthers: yes\x1b[0m")


def test_progress_bar_redraws_on_a_terminal_and_writes_lines_elsewhere():
    import io

    from engine.cli.progress import ProgressBar, render

    assert render(0.45, 12, "talk.wav") == "[#########-----------]  45% 0:12 talk.wav"
    assert render(None, 3725, "") == "[????????????????????]   ?% 1:02:05"
    clock = iter(range(0, 1000, 1)).__next__
    log = io.StringIO()
    bar = ProgressBar("x", stream=log, clock=clock)
    for done in range(0, 101):
        bar.update(done, 100)
    bar.finish()
    lines = log.getvalue().splitlines()
    assert 10 <= len(lines) <= 25 and lines[-1].startswith("[####################] 100%")
    assert "\r" not in log.getvalue()

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    bar = ProgressBar("x", stream=tty, clock=iter([0, 1, 5]).__next__)
    bar.update(1, 2)
    bar.update(2, 2)
    bar.finish()
    assert tty.getvalue().count("\r\x1b[K") == 2 and tty.getvalue().endswith("100% 0:05 x\n")


def test_after_the_last_captions_a_late_event_draws_nothing():
    """Events that arrive after ``finish`` (the summary follows it) draw no stray fragment."""
    import io

    from engine.cli.terminal_captions import TerminalCaptions
    from engine.events import Appended, PartialWords, Settled
    from engine.words import Word

    for interactive in (True, False):
        out = io.StringIO()
        captions = TerminalCaptions(out, io.StringIO(), interactive=interactive, width=80)
        captions([Appended(0, Word("last")), Settled(0, "period", "capitalized", 0, "Last")])
        captions.finish()
        done = out.getvalue()
        captions(
            [PartialWords((Word("week"),)), Appended(1, Word("week")), Settled(1, "none", "lower", 0, "week")]
        )
        assert out.getvalue() == done


def test_given_up_captions_clear_their_line_and_say_nothing_more():
    """After ``abandon`` (a second Ctrl-C) no event draws or says anything, a notice included:
    the caller's line stays the last."""
    import io

    from engine.cli.terminal_captions import TerminalCaptions
    from engine.events import Appended, SourceNotice
    from engine.words import Word

    out, err = io.StringIO(), io.StringIO()
    captions = TerminalCaptions(out, err, interactive=True, width=80)
    captions([Appended(0, Word("half"))])
    captions.abandon()
    assert out.getvalue().endswith("half\x1b[0m\r\x1b[K")  # the half-drawn line is cleared
    done = out.getvalue()
    captions([Appended(1, Word("more")), SourceNotice("error", "the microphone went away")])
    captions.pause()
    captions.finish()
    assert out.getvalue() == done and err.getvalue() == ""
