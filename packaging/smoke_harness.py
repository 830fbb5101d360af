"""What packaging/smoke_test.py's checks stand on: running the frozen binary with its own data
folder and recording its peak memory, espeak-ng speech, and reading the GUI's screenshot with the
standard library alone (no image library in the development venv to depend on)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import time
import wave
import zlib
from pathlib import Path


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
        expected_exit: int = 0,
    ):
        """Run the binary; (stdout, stderr, seconds, peak RSS in MiB). Fails on an exit status other
        than ``expected_exit``. ``env`` is added to the runner's environment, or is all of it without
        ``inherit_env``."""
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
        if proc.returncode != expected_exit:
            raise SmokeFailure(
                f"{name}: `livecap {' '.join(args)}` exited with {proc.returncode}, not {expected_exit}\n"
                f"--- stdout:\n{stdout[-2000:]}\n--- stderr:\n{stderr[-4000:]}"
            )
        return stdout, stderr, seconds, rss_mib


def espeak_wav(text: str, path: Path, repeats: int = 2, voice: str = "en-us") -> Path:
    """``text`` spoken ``repeats`` times, with silence before, between and after (as in tests/speech.py)."""
    if shutil.which("espeak-ng") is None:
        raise SmokeFailure(
            "espeak-ng is not installed (apt-get install espeak-ng): it synthesises the test speech"
        )
    clip = path.with_suffix(".clip.wav")
    subprocess.run(["espeak-ng", "-w", str(clip), "-v", voice, "-s", "130", text], check=True)
    with wave.open(str(clip)) as w:
        params, frames = w.getparams(), w.readframes(w.getnframes())

    def pause(seconds):
        return b"\0" * (int(seconds * params.framerate) * params.sampwidth * params.nchannels)

    with wave.open(str(path), "wb") as w:
        w.setparams(params)
        w.writeframes(pause(0.5) + (frames + pause(1.5)) * repeats)
    return path


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
