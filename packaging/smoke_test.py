#!/usr/bin/env python3
"""Smoke test of the frozen build (dist/livecap/livecap, from packaging/build.sh).

    .venv/bin/python packaging/smoke_test.py [--binary dist/livecap/livecap]

Runs the binary the way a user would, from an empty folder, with its own data
folder (so no Vosk model a developer installed changes the outcome):

  version     `--version` names the version in pyproject.toml
  punctuate   a lowercase sentence comes back with its words in order, capitalised,
              with "i" as "I" and a final mark
  devices     PortAudio loads from the bundle (no sound hardware needed), and system programs
              it starts (pactl) get the user's LD_LIBRARY_PATH, not the bundle's
  transcribe  espeak-ng speech through the built-in PocketSphinx: the spoken words come back
  whisper     the same speech through the embedded Whisper tiny.en (CTranslate2, its model's digest
              checked, the Silero VAD): nearly every word back, with Whisper's marks
  vosk        libvosk loads and decodes: a tiny generated Vosk model on generated tones
  languages   built with the language pack (build.sh --with-languages; its folder in the bundle):
              German espeak-ng speech with `transcribe --language de` comes back as German words;
              built without: `--language de` is refused with one line saying to install the pack,
              exit status 2
  privacy     transcribe (Whisper) with a fresh, empty HOME and no XDG_* or LIVECAP_* variables leaves
              no file outside livecap's own folders (ONNX Runtime's telemetry files included)
  app         the GUI plays a file offscreen and saves a screenshot that is not blank

Prints each check's time and peak memory (RSS), and exits non-zero at the first
failure with what went wrong. Needs espeak-ng on PATH; the vosk check imports the
tests' model writer, so run it with the development venv's Python (numpy, pytest).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import runpy
import shutil
import sys
import tempfile
import wave
from pathlib import Path

# Beside this script, so on sys.path[0].
from smoke_harness import Runner, SmokeFailure, espeak_wav, png_pixels

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "so what do you think about the plan i think it works well and we should start on monday"
# espeak-ng's en-us voice at 130 wpm is the one PocketSphinx's US model hears best (tests/speech.py).
SPOKEN = "the weather is nice today and we are going to the park"
# The language check's speech (as tests/engine/languages/conftest.py), and the words it must hear.
GERMAN = "Guten Morgen. Das Wetter ist heute schön, und wir gehen in den Park."
# Where build.sh --with-languages puts the pack (language_pack.BUNDLED_DIR / PACK_NAME).
PACK_IN_BUNDLE = Path("_internal", "livecap_language_pack", "whisper-base")


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def spoken_wav(r: Runner) -> Path:
    """SPOKEN as espeak-ng speech, made once per smoke test and shared by the checks that play it."""
    wav = r.workdir / "speech.wav"
    return wav if wav.exists() else espeak_wav(SPOKEN, wav)


def from_tests(check: str, what: str, module: str, *names: str) -> list:
    """Helpers from the development tree's tests: this script runs with the development venv."""
    sys.path.insert(0, str(ROOT))
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise SmokeFailure(
            f"{check}: cannot import {what} ({exc}); run this script with the development venv: "
            f".venv/bin/python packaging/smoke_test.py"
        ) from None
    return [getattr(found, name) for name in names]


# -- the checks -----------------------------------------------------------------------------------
def check_version(r: Runner) -> str:
    version = runpy.run_path(str(ROOT / "engine" / "version.py"))[
        "__version__"
    ]  # the one place it is written
    out, _, s, rss = r.run("version", ["--version"])
    if out.strip() != f"livecap {version}":
        raise SmokeFailure(f"version: expected 'livecap {version}', got {out.strip()!r}")
    return f"{out.strip()}  ({s:.1f} s, {rss:.0f} MiB)"


def check_punctuate(r: Runner) -> str:
    out, _, s, rss = r.run("punctuate", ["punctuate"], stdin=SENTENCE + "\n")
    text = out.strip()
    problems = []
    if words_of(text) != SENTENCE.split():
        problems.append("the words changed")
    if not text[:1].isupper():
        problems.append("the first letter is not a capital")
    if text[-1:] not in ".?!":
        problems.append("it does not end with a mark")
    if " I " not in f" {text} ".replace(",", " ").replace(".", " "):
        problems.append('"i" is not "I"')
    if problems:
        raise SmokeFailure(f"punctuate: {'; '.join(problems)}:\n  in:  {SENTENCE}\n  out: {text}")
    return f"{text}  ({s:.1f} s, {rss:.0f} MiB)"


def check_devices(r: Runner) -> str:
    out, _, s, rss = r.run("devices", ["devices"])
    if "PortAudio library not found" in out or "Microphones" not in out:
        raise SmokeFailure(f"devices: PortAudio did not load from the bundle:\n{out}")
    first = out.splitlines()[1].strip() if len(out.splitlines()) > 1 else ""
    # System programs the app starts (pactl, parec) must not inherit the bundle's library path:
    # a stand-in pactl records the LD_LIBRARY_PATH it was given.
    fake_bin, seen = r.workdir / "fakebin", r.workdir / "pactl-env"
    fake_bin.mkdir(exist_ok=True)
    (fake_bin / "pactl").write_text(
        f"#!/bin/sh\necho \"LD_LIBRARY_PATH=$LD_LIBRARY_PATH\" > '{seen}'\nexit 1\n"
    )
    (fake_bin / "pactl").chmod(0o755)
    r.run(
        "devices-env",
        ["devices"],
        env={
            "PATH": f"{fake_bin}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "LD_LIBRARY_PATH": "/opt/user-libs",
        },
    )
    if not seen.exists():
        raise SmokeFailure("devices: `livecap devices` did not run pactl (the stand-in on PATH)")
    child_env = seen.read_text().strip()
    if child_env != "LD_LIBRARY_PATH=/opt/user-libs":
        raise SmokeFailure(
            f"devices: pactl was started with the bundle's library path ({child_env}); "
            f"the runtime hook packaging/rthooks/pyi_rth_livecap_env.py did not run"
        )
    return f"PortAudio loaded; microphones: {first}; children get the user's LD_LIBRARY_PATH  ({s:.1f} s)"


def check_transcribe(r: Runner) -> str:
    wav = spoken_wav(r)
    out, err, s, rss = r.run(
        "transcribe", ["transcribe", str(wav), "--recognizer", "pocketsphinx", "-o", "-"]
    )
    heard = words_of(out)
    spoken = SPOKEN.split()
    remaining, found = list(heard), 0
    for word in spoken:  # multiset overlap: each heard word counts once
        if word in remaining:
            remaining.remove(word)
            found += 1
    # espeak's voice is far from PocketSphinx's speakers: half the words is a fair bar (tests do the same).
    if found < len(spoken) / 2:
        raise SmokeFailure(
            f"transcribe: only {found} of {len(spoken)} spoken words recognised:\n"
            f"  spoken: {SPOKEN} (twice)\n  heard:  {out.strip()}\n  stderr: {err.strip()[-500:]}"
        )
    if not out.strip()[:1].isupper():
        raise SmokeFailure(f"transcribe: the transcript is not punctuated/capitalised: {out.strip()}")
    return f"{found}/{len(spoken)} words: {out.strip()}  ({s:.1f} s, {rss:.0f} MiB)"


def check_whisper(r: Runner) -> str:
    wav = spoken_wav(r)
    out, err, s, rss = r.run("whisper", ["transcribe", str(wav), "--recognizer", "whisper", "-o", "-"])
    heard = words_of(out)
    remaining, found = list(heard), 0
    for word in SPOKEN.split() * 2:
        if word in remaining:
            remaining.remove(word)
            found += 1
    if found < 0.8 * 2 * len(SPOKEN.split()):
        raise SmokeFailure(
            f"whisper: only {found} of {2 * len(SPOKEN.split())} spoken words recognised:\n"
            f"  heard:  {out.strip()}\n  stderr: {err.strip()[-500:]}"
        )
    if not out.strip()[:1].isupper() or not out.strip().endswith((".", "?", "!")):
        raise SmokeFailure(f"whisper: the transcript has no marks or capitals: {out.strip()}")
    return f"{found}/{2 * len(SPOKEN.split())} words: {out.strip()}  ({s:.1f} s, {rss:.0f} MiB)"


def check_vosk(r: Runner) -> str:
    RATE, _tone_script, write_tiny_vosk_model = from_tests(
        "vosk",
        "the tests' tiny Vosk model writer",
        "tests.engine.recognizers.test_recognizers",
        "RATE",
        "_tone_script",
        "write_tiny_vosk_model",
    )
    import numpy as np  # the development venv has it: from_tests checked

    model = write_tiny_vosk_model(r.workdir / "tiny-vosk")
    wav = r.workdir / "tones.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(np.asarray(_tone_script(), np.int16).tobytes())
    out, err, s, rss = r.run(
        "vosk", ["transcribe", str(wav), "--recognizer", "vosk", "--model", str(model), "-o", "-"]
    )
    heard = words_of(out)
    if "alpha" not in heard or "beta" not in heard:
        raise SmokeFailure(
            f"vosk: expected the tiny model's words alpha and beta, got {out.strip()!r}\n"
            f"  stderr: {err.strip()[-500:]}"
        )
    return f"libvosk decoded: {out.strip()}  ({s:.1f} s, {rss:.0f} MiB)"


def check_languages(r: Runner) -> str:
    if not (r.binary.parent / PACK_IN_BUNDLE).is_dir():
        # Built without the pack: another language is refused with the way out, before any work.
        out, err, s, _ = r.run(
            "languages", ["transcribe", str(spoken_wav(r)), "--language", "de", "-o", "-"], expected_exit=2
        )
        lines = err.strip().splitlines()
        if out.strip() or len(lines) != 1 or "pip install 'livecap[languages]'" not in lines[0]:
            raise SmokeFailure(
                "languages: without the pack, `--language de` should say in one line how to install it:\n"
                f"  stdout: {out.strip()[-500:]}\n  stderr: {err.strip()[-1500:]}"
            )
        return f"no language pack in the bundle; `--language de` refused, exit 2: {lines[0]}  ({s:.1f} s)"
    # The same German speech the development tests hear (16 kHz there; the CLI resamples any rate).
    wav = espeak_wav(GERMAN, r.workdir / "german.wav", repeats=1, voice="de")
    out, err, s, rss = r.run("languages", ["transcribe", str(wav), "--language", "de", "-o", "-"])
    spoken = re.findall(r"\w+", GERMAN.lower())
    heard = re.findall(r"\w+", out.lower())
    found = sum(1 for word in spoken if word in heard)
    # espeak's German is hard on Whisper base (about half the words come back, as in
    # tests/engine/languages/test_other_languages.py): a third is the bar, "Guten Morgen" a must.
    if found < len(spoken) / 3 or not {"guten", "morgen"} <= set(heard) or "whisper-base, German" not in err:
        raise SmokeFailure(
            f"languages: only {found} of {len(spoken)} German words recognised, or not by Whisper base:\n"
            f"  spoken: {GERMAN}\n  heard:  {out.strip()}\n  stderr: {err.strip()[-800:]}"
        )
    if (r.workdir / "data" / "models").exists():
        raise SmokeFailure(
            "languages: the bundled pack was joined again into the data folder, not used in place"
        )
    return f"bundled pack: {found}/{len(spoken)} German words: {out.strip()}  ({s:.1f} s, {rss:.0f} MiB)"


def check_privacy(r: Runner) -> str:
    # The frozen build's own audit of what tests/test_privacy.py checks in development: the
    # runtime hook and the CLI keep ONNX Runtime from writing its device id under ~/.cache.
    fresh_home_env, strays = from_tests(
        "privacy", "the tests' audit", "tests.test_privacy", "fresh_home_env", "strays"
    )
    wav = spoken_wav(r)
    audit = r.workdir / "privacy"
    audit.mkdir()
    env = fresh_home_env(audit)  # HOME and TMPDIR inside it; PYTHONPATH is for the audit's Python only
    binary_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    out_file = r.workdir / "privacy-transcript.txt"
    _, err, s, rss = r.run(
        "privacy",
        ["transcribe", str(wav), "--recognizer", "whisper", "-o", str(out_file)],
        env=binary_env,
        inherit_env=False,
    )
    if not out_file.is_file() or not out_file.read_text().strip():
        raise SmokeFailure(f"privacy: transcribe wrote no transcript\n  stderr: {err.strip()[-500:]}")
    left = strays(env)
    if left:
        raise SmokeFailure(f"privacy: files left outside livecap's folders: {', '.join(left[:10])}")
    kept = sum(1 for p in Path(env["HOME"]).rglob("*") if p.is_file())
    return f"fresh HOME: {kept} files, all in livecap's folders  ({s:.1f} s, {rss:.0f} MiB)"


def check_app(r: Runner) -> str:
    wav = spoken_wav(r)
    png = r.workdir / "screenshot.png"
    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_RUNTIME_DIR": str(r.workdir / "runtime"),
        "XDG_CONFIG_HOME": str(r.workdir / "config"),
    }  # no settings of the developer's
    (r.workdir / "runtime").mkdir(mode=0o700, exist_ok=True)
    _, err, s, rss = r.run(
        "app", ["app", "--play", str(wav), "--exit-when-done", "--screenshot", str(png)], env=env, timeout=240
    )
    if not png.is_file() or png.stat().st_size == 0:
        raise SmokeFailure(f"app: no screenshot at {png}\n  stderr: {err.strip()[-1500:]}")
    width, height, rows = png_pixels(png)
    colours = set()
    for row in rows[:: max(1, height // 64)]:
        colours.update(row[i : i + 3] for i in range(0, len(row), 12))
    if width < 100 or height < 50 or len(colours) < 3:
        raise SmokeFailure(
            f"app: the screenshot looks blank ({width}x{height}, {len(colours)} colours sampled)"
        )
    if "Traceback" in err:
        raise SmokeFailure(f"app: it ran, but logged an exception:\n{err.strip()[-3000:]}")
    if (ROOT / "dist").is_dir():  # keep it, to look at
        shutil.copy(png, ROOT / "dist" / "smoke-screenshot.png")
    return f"{width}x{height} screenshot, {len(colours)} colours sampled  ({s:.1f} s, {rss:.0f} MiB)"


CHECKS = {
    "version": check_version,
    "punctuate": check_punctuate,
    "devices": check_devices,
    "transcribe": check_transcribe,
    "whisper": check_whisper,
    "vosk": check_vosk,
    "languages": check_languages,
    "privacy": check_privacy,
    "app": check_app,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, default=ROOT / "dist" / "livecap" / "livecap")
    parser.add_argument("--only", nargs="+", choices=list(CHECKS), help="run only these checks")
    args = parser.parse_args(argv)
    binary = args.binary.resolve()
    if not os.access(binary, os.X_OK):
        print(
            f"smoke test: FAIL: no executable at {binary}; build it with packaging/build.sh", file=sys.stderr
        )
        return 1
    print(f"smoke test of {binary}")
    with tempfile.TemporaryDirectory(prefix="livecap-smoke-") as tmp:
        runner = Runner(binary, Path(tmp))
        for name in args.only or CHECKS:
            try:
                print(f"  {name:10} ok: {CHECKS[name](runner)}", flush=True)
            except SmokeFailure as exc:
                print(f"smoke test: FAIL: {exc}", file=sys.stderr)
                return 1
    peak = max(runner.peaks.items(), key=lambda kv: kv[1])
    print(f"smoke test: all {len(args.only or CHECKS)} checks passed; peak RSS {peak[1]:.0f} MiB ({peak[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
