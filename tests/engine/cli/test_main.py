"""``livecap punctuate`` end to end, as a user runs it, on the tiny model."""

import json
import os
import random
import re
import subprocess
import sys

import pytest


def livecap(*args, stdin=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "engine.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


TEXT = "Hello there, how are you? I'm fine: thanks for asking. We met in Paris (last year)."


@pytest.mark.parametrize("mode", ["stream", "offline"])
def test_one_token_per_word_and_punctuation_stripped_first(tiny_model_dir, mode):
    r = livecap("punctuate", "--model-dir", str(tiny_model_dir), "--mode", mode, stdin=TEXT)
    assert r.returncode == 0, r.stderr
    tokens = r.stdout.split()
    expected = "hello there how are you i'm fine thanks for asking we met in paris (last year)".split()
    assert len(tokens) == len(expected)
    for token, word in zip(tokens, expected):
        bare = token.replace(")", "").rstrip(",.?") + (")" if token.endswith((")", ").", "),", ")?")) else "")
        assert bare.lower() == word  # the input's own marks were stripped; its brackets kept
        assert token == token.rstrip(",.?") or token[-1] in ",.?"


def test_json_output_and_options(tiny_model_dir, tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("so what do we do now")
    r = livecap(
        "punctuate",
        str(src),
        "--model-dir",
        str(tiny_model_dir),
        "--format",
        "json",
        "--mode",
        "stream",
        "--lookahead",
        "2",
        "--threshold",
        "0.1",
        "--no-casing",
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["word"] for row in rows] == "so what do we do now".split()
    assert all(row["mark"] in ("none", "comma", "period", "question") for row in rows)
    assert all(row["case"] == "lower" and row["form"] == row["word"] for row in rows)
    assert all(0 <= row["lookahead"] <= 2 for row in rows)


def test_vosk_json_with_times(tiny_model_dir, tmp_path):
    vosk = [
        {
            "result": [
                {"conf": 1.0, "start": 0.0, "end": 0.4, "word": "hello"},
                {"conf": 0.8, "start": 1.2, "end": 1.5, "word": "world"},
            ],
            "text": "hello world",
        },
        {"result": [{"conf": 1.0, "start": 3.0, "end": 3.3, "word": "again"}], "text": "again"},
    ]
    path = tmp_path / "vosk.json"
    path.write_text(json.dumps(vosk))
    r = livecap("punctuate", str(path), "--model-dir", str(tiny_model_dir), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert [row["word"] for row in json.loads(r.stdout)] == ["hello", "world", "again"]


@pytest.mark.parametrize(
    "args,stdin,message",
    [
        (["punctuate", "/nonexistent/file.txt"], None, "no such file"),
        (["punctuate"], "   \n", "no words"),
        (["punctuate", "--threshold", "5"], "hi", "--threshold"),
        (["punctuate"], '[{"start": 1}]', "no 'word'"),
    ],
)
def test_errors_are_one_clear_line(tiny_model_dir, args, stdin, message):
    r = livecap(*args, "--model-dir", str(tiny_model_dir), stdin=stdin)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert message in r.stderr


def test_missing_model_is_said_plainly(tmp_path):
    r = livecap("punctuate", stdin="hello", env={"LIVECAP_PUNCT_MODEL": str(tmp_path / "none")})
    assert (
        r.returncode == 2 and "no punctuation model is installed" in r.stderr and "Traceback" not in r.stderr
    )


def test_no_subcommand_prints_help_and_version():
    r = livecap()
    assert r.returncode == 0 and "punctuate" in r.stdout
    r = livecap("--version")
    assert r.returncode == 0 and r.stdout.startswith("livecap ")


def test_punctuate_loads_neither_torch_nor_qt(tiny_model_dir):
    # The runtime must never need torch (training only) and the engine must never pull in Qt.
    code = (
        "import sys, engine.cli.main\n"
        "code = engine.cli.main.main(['punctuate', '--model-dir', sys.argv[1], '--mode', 'offline'])\n"
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'PySide6'}), file=sys.stderr)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(tiny_model_dir)],
        input="so it works i think",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and len(r.stdout.split()) == 5
    assert r.stderr.strip().splitlines()[-1] == "0 []"


def _corrupt_model_copy(source, folder):
    import shutil

    shutil.copytree(source, folder)
    (folder / "model.onnx").write_bytes((source / "model.onnx").read_bytes()[:2000])
    return folder


def test_a_corrupt_model_dir_warns_once_and_punctuates_with_the_shipped_model(tiny_model_dir, tmp_path):
    bad = _corrupt_model_copy(tiny_model_dir, tmp_path / "mine")
    r = livecap("punctuate", "--model-dir", str(bad), stdin="so what do you think")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0].lower().startswith("so")
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad / "model.onnx") in lines[0] and "shipped" in lines[0]
    assert "INVALID_PROTOBUF" not in r.stderr


def test_a_damaged_shipped_model_says_reinstall(tiny_model_dir, tmp_path):
    # A damaged installation: a livecap_models package whose punct/model.onnx is cut short.
    package = tmp_path / "site" / "livecap_models"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shipped = _corrupt_model_copy(tiny_model_dir, package / "punct")
    path = os.pathsep.join(filter(None, [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]))
    r = livecap("punctuate", stdin="hello there", env={"PYTHONPATH": path, "LIVECAP_PUNCT_MODEL": ""})
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr
    assert str(shipped / "model.onnx") in lines[0] and "reinstall livecap" in lines[0]


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10" + bytes(range(256)) * 4


@pytest.mark.parametrize(
    "garbage", [PNG, bytes(random.Random(16).randrange(256) for _ in range(4096)), b"abc\x00\x00def"]
)
def test_garbage_on_stdin_gets_the_same_error_as_the_same_bytes_in_a_file(tiny_model_dir, tmp_path, garbage):
    path = tmp_path / "garbage.bin"
    path.write_bytes(garbage)
    as_file = livecap("punctuate", str(path), "--model-dir", str(tiny_model_dir))
    on_stdin = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "punctuate", "--model-dir", str(tiny_model_dir)],
        input=garbage,
        capture_output=True,
        timeout=120,
    )
    assert as_file.returncode == on_stdin.returncode == 2 and on_stdin.stdout == b""
    assert "not UTF-8 text" in as_file.stderr
    assert on_stdin.stderr.decode() == as_file.stderr.replace(str(path), "stdin")
    assert len(as_file.stderr.strip().splitlines()) == 1


def test_utf8_text_with_a_byte_order_mark_is_read(tiny_model_dir):
    r = subprocess.run(
        [sys.executable, "-m", "engine.cli.main", "punctuate", "--model-dir", str(tiny_model_dir)],
        input="\ufeffhello there".encode(),
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0 and r.stdout.decode().lower().startswith("hello")


@pytest.mark.parametrize("mode", ["stream", "offline"])
def test_the_end_of_input_ends_a_sentence(tiny_model_dir, mode):
    r = livecap(
        "punctuate",
        "--model-dir",
        str(tiny_model_dir),
        "--mode",
        mode,
        stdin="so what do you think i am not sure\n",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n").lower().endswith(("sure.", "sure?"))


def test_the_installed_commands_help_lists_app():
    code = "import sys, app.launcher; sys.exit(app.launcher.main(['--help']))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "PySide6" not in r.stderr
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("    ") and line.split()]
    assert "app" in listed and "punctuate" in listed and "transcribe" in listed
    assert "app" not in livecap("--help").stdout.split()  # python -m engine.cli has no window to open


def test_a_file_defaults_to_offline_whatever_its_format_and_stdin_to_stream(tiny_model_dir, tmp_path):
    """The offline decoder reports the whole right context it used (far past the live decoder's
    lookahead of at most 16 words), so the "lookahead" column tells the two apart."""
    text = " ".join(
        random.Random(3).choice("so we went there and then it rained all day".split()) for _ in range(300)
    )
    path = tmp_path / "notes.txt"
    path.write_text(text)
    model = ("--model-dir", str(tiny_model_dir), "--format", "json")
    as_file = livecap("punctuate", str(path), *model)
    assert as_file.returncode == 0, as_file.stderr
    assert max(row["lookahead"] for row in json.loads(as_file.stdout)) > 16  # offline
    assert as_file.stdout == livecap("punctuate", str(path), *model, "--mode", "offline").stdout
    piped = livecap("punctuate", *model, stdin=text)
    assert max(row["lookahead"] for row in json.loads(piped.stdout)) <= 16  # stream
    timed = tmp_path / "timed.json"
    timed.write_text(
        json.dumps([{"word": w, "start": i, "end": i + 0.5} for i, w in enumerate(text.split())])
    )
    r = livecap("punctuate", str(timed), *model)
    assert max(row["lookahead"] for row in json.loads(r.stdout)) > 16  # a file, timed or not: offline


def test_livecaps_own_json_transcript_is_punctuated_whole_from_a_file_and_streamed_from_stdin(
    tiny_model_dir, tmp_path
):
    """The JSON ``transcribe -o x.json`` writes (timed words with their marks) is a file like any
    other: all of it is there, so the offline decoder, which sees it whole, punctuates it."""
    from engine.transcript.export import export
    from engine.transcript.transcript import Transcript, TranscriptWord

    texts = [
        random.Random(5).choice("so we went there and then it rained all day".split()) for _ in range(200)
    ]
    words = [TranscriptWord(t, 0.4 * i, 0.4 * i + 0.3, 0.9, "none", "lower") for i, t in enumerate(texts)]
    path = export(Transcript(words), "json", tmp_path / "talk.json")
    model = ("--model-dir", str(tiny_model_dir), "--format", "json")
    r = livecap("punctuate", str(path), *model)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["word"] for row in rows] == texts
    assert max(row["lookahead"] for row in rows) > 16  # offline
    piped = livecap("punctuate", *model, stdin=path.read_text())
    assert max(row["lookahead"] for row in json.loads(piped.stdout)) <= 16  # stdin: stream


def test_punctuate_help_explains_every_option_with_the_models_own_defaults():
    from engine.punctuation.model import ModelConfig, default_model_dir

    settings = ModelConfig.load(default_model_dir()).decoder
    r = livecap("punctuate", "--help")
    assert r.returncode == 0, r.stderr
    options = " ".join(r.stdout.split("options:", 1)[1].split())  # one line, wrapping undone
    lines = {part.split()[0]: part for part in re.split(r" (?=--[a-z])", options)}
    assert f"default: {settings.threshold:g}, the punctuation model's setting" in lines["--threshold"]
    assert f"default: {settings.l_max:g}, the punctuation model's setting" in lines["--lookahead"]
    assert "json: one object per word" in lines["--format"] and "default: text" in lines["--format"]
    assert (
        "offline for a FILE, whatever its format" in lines["--mode"] and "stream for stdin" in lines["--mode"]
    )


@pytest.mark.parametrize("command", ["transcribe FILE", "listen", "dictate"])
def test_auto_is_a_recognizer_choice_everywhere(command):
    from engine.cli.main import build_parser

    args = build_parser().parse_args([*command.split(), "--recognizer", "auto"])
    assert args.recognizer == "auto"
    assert build_parser().parse_args(command.split()).recognizer == "auto"  # the default, by name


@pytest.mark.parametrize(
    "name, content",
    [
        ("bad.json", '{"broken": '),
        ("bad.txt", '{"broken": '),
        ("list.txt", '[{"word": "hi"'),
        ("words.json", "hi"),
    ],
)
def test_a_file_that_looks_like_json_and_does_not_parse_is_refused(tiny_model_dir, tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content + "\n")
    r = livecap("punctuate", str(path), "--model-dir", str(tiny_model_dir))
    assert r.returncode != 0 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and f"{path}: not valid JSON (line " in r.stderr, r.stderr


def test_text_that_merely_opens_with_a_bracket_is_text(tiny_model_dir):
    r = livecap("punctuate", "--model-dir", str(tiny_model_dir), "--no-casing", stdin="[laughter] so anyway")
    assert r.returncode == 0 and r.stdout.startswith("[laughter]"), r.stderr  # its mark goes after "]"


def test_emoji_symbols_and_quotes_are_kept_where_they_were(tiny_model_dir):
    text = 'i love it 🙂 she said "see you at 5" & left 👋🏽 and/or not'
    r = livecap(
        "punctuate", "--model-dir", str(tiny_model_dir), "--no-casing", "--mode", "offline", stdin=text
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for kept in ("🙂", '"see', "&", "👋🏽", "and/or"):
        assert kept in out, out
    marks = str.maketrans("", "", ",.?")
    assert out.translate(marks).split() == text.split()  # every other character, in its place
    rows = json.loads(
        livecap("punctuate", "--model-dir", str(tiny_model_dir), "--format", "json", stdin=text).stdout
    )
    assert "".join(r.get("before", "") + r.get("after", "") for r in rows) == ' 🙂"" & 👋🏽/'
