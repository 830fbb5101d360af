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
import struct
import subprocess
import sys
import tempfile
import time
import wave
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "so what do you think about the plan i think it works well and we should start on monday"
# espeak-ng's en-us voice at 130 wpm is the one PocketSphinx's US model hears best (tests/speech.py).
SPOKEN = "the weather is nice today and we are going to the park"


class SmokeFailure(Exception):
    pass


class Runner:
    def __init__(self, binary: Path, workdir: Path):
        self.binary = binary
        self.workdir = workdir
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LIVECAP_", "VIRTUAL_ENV"))
        }
        self.env["LIVECAP_DATA_DIR"] = str(
            workdir / "data"
        )  # no installed Vosk models, no journals left behind
        self.peaks: dict[str, int] = {}

    def run(
        self,
        name: str,
        args: list[str],
        stdin: str = "",
        timeout: float = 180,
        env: dict | None = None,
        inherit_env: bool = True,
    ):
        """Run the binary; (stdout, stderr, seconds, peak RSS in MiB). Fails on a non-zero exit.
        ``env`` is added to the runner's environment, or is all of it without ``inherit_env``."""
        out_path, err_path = self.workdir / f"{name}.out", self.workdir / f"{name}.err"
        start = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [str(self.binary), *args],
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                cwd=self.workdir,
                env={**self.env, **(env or {})} if inherit_env else dict(env or {}),
            )
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
            deadline = start + timeout
            while True:  # wait4, not wait: it reports the child's own peak RSS
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    proc.kill()
                    os.wait4(proc.pid, 0)
                    raise SmokeFailure(
                        f"{name}: `livecap {' '.join(args)}` still running after {timeout:.0f} s"
                    )
                time.sleep(0.05)
            proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        stdout, stderr = out_path.read_text(errors="replace"), err_path.read_text(errors="replace")
        rss_mib = usage.ru_maxrss / 1024  # KiB on Linux
        self.peaks[name] = rss_mib
        if proc.returncode != 0:
            raise SmokeFailure(
                f"{name}: `livecap {' '.join(args)}` exited with {proc.returncode}\n"
                f"--- stdout:\n{stdout[-2000:]}\n--- stderr:\n{stderr[-4000:]}"
            )
        return stdout, stderr, seconds, rss_mib


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def espeak_wav(text: str, path: Path, repeats: int = 2) -> Path:
    """``text`` spoken ``repeats`` times, with silence before, between and after (as in tests/speech.py)."""
    if shutil.which("espeak-ng") is None:
        raise SmokeFailure(
            "espeak-ng is not installed (apt-get install espeak-ng): it synthesises the test speech"
        )
    clip = path.with_suffix(".clip.wav")
    subprocess.run(["espeak-ng", "-w", str(clip), "-v", "en-us", "-s", "130", text], check=True)
    with wave.open(str(clip)) as w:
        params, frames = w.getparams(), w.readframes(w.getnframes())

    def pause(seconds):
        return b"\0" * (int(seconds * params.framerate) * params.sampwidth * params.nchannels)

    with wave.open(str(path), "wb") as w:
        w.setparams(params)
        w.writeframes(pause(0.5) + (frames + pause(1.5)) * repeats)
    return path


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


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered rows of an 8-bit, non-interlaced PNG (what Qt writes)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SmokeFailure(f"{path} is not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    if depth != 8 or interlace:
        raise SmokeFailure(f"{path}: unexpected PNG layout (bit depth {depth}, interlace {interlace})")
    raw, bpp, stride = zlib.decompress(idat), channels, width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + left) & 255
            elif kind == 2:
                row[i] = (row[i] + up) & 255
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(row))
        previous = row
    return width, height, rows


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
