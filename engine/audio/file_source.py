"""Audio files (WAV, FLAC, OGG) as a source: for batch transcription and demos.

libsndfile decodes every rate, channel count and sample type (u8, int16,
int24, int32, float, double) to float32 in [-1, 1]; the shared Resampler then
makes 16 kHz mono int16 of it.

Files are checked when opened, so a bad file gives ONE clear AudioError up
front instead of a half-finished transcript: a cut FLAC only fails when
decoding reaches the cut, and a cut OGG merely looks shorter, so each gets its
own cheap check. A WAV cut short in its data is the usual state after a
recorder crash, and every frame in it is good: it is read as far as it goes,
with one warning (``truncation_warning``). That includes a header whose data
size was never filled in (0, or a placeholder such as 0xFFFFFFFF).

Decoding happens on the caller's thread inside ``read()``: a file never
overruns, so there is no producer thread and no queue. With ``realtime=True``
each chunk is held back until the wall clock reaches its end, like a
microphone would deliver it, so a demo looks live.
"""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

import numpy as np
import soundfile as sf

from engine.audio.base import AudioError, AudioSource, EventCallback, Resampler
from engine.audio.pacing import RealtimePacer

# libsndfile's major formats we promise to read; it knows more (AIFF, MP3 on
# new builds) but those are untested here.
SUPPORTED_FORMATS = {"WAV", "WAVEX", "RF64", "W64", "FLAC", "OGG"}
_READ_ALL_BLOCK_SECONDS = 10.0


def _not_audio(path: Path, detail: str = "") -> AudioError:
    hint = f" (convert it first, e.g. `ffmpeg -i {path.name} {path.stem}.flac`)"
    return AudioError(f"{path}: not a WAV, FLAC or OGG audio file{detail}{hint}")


def _corrupt(path: Path, detail: str) -> AudioError:
    return AudioError(
        f"{path} is truncated or corrupt ({detail}); was it copied or "
        "recorded completely? Try the original file, or re-export it."
    )


def _sniff(head: bytes) -> str | None:
    """The container a file's first bytes announce, to tell "damaged audio" from
    "not audio at all" when libsndfile refuses it."""
    if head[:4] in (b"RIFF", b"RIFX", b"RF64") or head[:4] == b"riff":
        return "WAV"
    if head[:4] == b"fLaC":
        return "FLAC"
    if head[:4] == b"OggS":
        return "OGG"
    return None


def truncation_warning(path: str | Path) -> str | None:
    """The warning for a WAV whose header promises more audio than the file holds ("truncated:
    transcribing the 12.0 s that are present"); None for a complete file or another format."""
    with open_audio_file(path) as f:
        if not getattr(f, "truncated", False):
            return None
        return f"truncated: transcribing the {f.frames / f.samplerate:.1f} s that are present"


def _wav_data_size(f: sf.SoundFile) -> tuple[int, int] | None:
    """(declared, present) bytes of a WAV's audio when libsndfile found them to differ."""
    # libsndfile logs "data : <declared> (should be <present>)" and reads what is there.
    m = re.search(r"^data\s*:\s*(\d+)\s*\(should be (\d+)\)", f.extra_info, re.MULTILINE)
    return (int(m.group(1)), int(m.group(2))) if m else None


_WAV_SUBTYPES = {
    (1, 8): "PCM_U8",
    (1, 16): "PCM_16",
    (1, 24): "PCM_24",
    (1, 32): "PCM_32",
    (3, 32): "FLOAT",
    (3, 64): "DOUBLE",
}


def _open_unsized_wav(path: Path) -> sf.SoundFile | None:
    """A WAV whose data size says 0 although audio follows (a recorder that died before it wrote
    the size): libsndfile finds no frames, so read the bytes after the header as raw audio."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos, fmt = 12, None
    while pos + 8 <= len(head):
        chunk, size = head[pos : pos + 4], int.from_bytes(head[pos + 4 : pos + 8], "little")
        if chunk == b"fmt " and pos + 24 <= len(head):
            tag, channels = (
                int.from_bytes(head[pos + 8 : pos + 10], "little"),
                int.from_bytes(head[pos + 10 : pos + 12], "little"),
            )
            rate, bits = (
                int.from_bytes(head[pos + 12 : pos + 16], "little"),
                int.from_bytes(head[pos + 22 : pos + 24], "little"),
            )
            if tag == 0xFFFE and pos + 34 <= len(head):  # WAVE_FORMAT_EXTENSIBLE: the real tag in the GUID
                tag = int.from_bytes(head[pos + 32 : pos + 34], "little")
            fmt = (_WAV_SUBTYPES.get((tag, bits)), channels, rate)
        elif chunk == b"data":
            if size != 0 or fmt is None or fmt[0] is None or path.stat().st_size <= pos + 8:
                return None
            f = sf.SoundFile(
                _Window(path, pos + 8),
                samplerate=fmt[2],
                channels=fmt[1],
                subtype=fmt[0],
                format="RAW",
                endian="LITTLE",
            )
            f.truncated = True
            return f
        pos += 8 + size + (size & 1)
    return None


class _Window(io.RawIOBase):
    """The bytes of ``path`` from ``offset`` on, as a file of their own (for libsndfile's RAW)."""

    def __init__(self, path: Path, offset: int):
        self._fh, self._offset = path.open("rb"), offset
        self._fh.seek(offset)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos += self._offset
        return self._fh.seek(pos, whence) - self._offset

    def tell(self) -> int:
        return self._fh.tell() - self._offset

    def readinto(self, buffer) -> int:
        return self._fh.readinto(buffer)

    def close(self) -> None:
        self._fh.close()
        super().close()


def _check_flac(path: Path, f: sf.SoundFile) -> None:
    # The frame count comes from the header; a cut file fails once decoding
    # nears the end, so decode the last few frames now.
    if f.frames > 0:
        try:
            f.seek(max(0, f.frames - 1024))
            f.read(1024, dtype="float32")
            f.seek(0)
        except RuntimeError as e:
            raise _corrupt(path, f"audio ends before the length its header states: {e}") from e


def _check_ogg(path: Path) -> None:
    # libsndfile derives an OGG's length from its last page, so a cut file just
    # looks shorter. A complete stream ends with a whole page flagged
    # end-of-stream (a page is at most 65307 bytes, so the tail holds it).
    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    # Walk the pages (header: flags at byte 5, segment count at 26, then the
    # segment sizes) rather than trusting the last "OggS", which could be data.
    pos, complete = tail.find(b"OggS"), False
    while 0 <= pos and pos + 27 <= len(tail):
        nsegs = tail[pos + 26]
        end = pos + 27 + nsegs + sum(tail[pos + 27 : pos + 27 + nsegs])
        if end == len(tail):
            complete = bool(tail[pos + 5] & 0x04)
            break
        pos = end if tail[end : end + 4] == b"OggS" else tail.find(b"OggS", pos + 1)
    if not complete:
        raise _corrupt(path, "the OGG stream stops before its final page ends")


def open_audio_file(path: str | Path) -> sf.SoundFile:
    """Open and validate ``path``; raise one AudioError that says what is wrong."""
    path = Path(path)
    if not path.exists():
        raise AudioError(f"{path}: no such file")
    if not path.is_file():
        raise AudioError(f"{path} is not a regular file")
    if path.stat().st_size == 0:
        raise AudioError(f"{path} is empty (no audio frames)")
    with path.open("rb") as fh:
        kind = _sniff(fh.read(12))
    try:
        f = sf.SoundFile(path)
    except (RuntimeError, TypeError) as e:  # LibsndfileError is a RuntimeError
        if kind is None:
            raise _not_audio(path) from e
        raise _corrupt(path, str(e).replace(f"Error opening {str(path)!r}: ", "")) from e
    try:
        if f.format not in SUPPORTED_FORMATS:
            raise _not_audio(path, f" ({f.format_info} is not supported)")
        if f.format in ("WAV", "WAVEX"):
            sizes = _wav_data_size(f)
            f.truncated = sizes is not None and sizes[0] > sizes[1]
            if f.frames <= 0 and kind == "WAV":
                unsized = _open_unsized_wav(path)
                if unsized is not None:
                    f.close()
                    f = unsized
        elif f.format == "FLAC":
            _check_flac(path, f)
        elif f.format == "OGG":
            _check_ogg(path)
        if f.frames <= 0:
            raise AudioError(f"{path} is empty (no audio frames)")
    except BaseException:
        f.close()
        raise
    return f


def audio_duration(path: str | Path) -> float:
    """Length of a (validated) audio file in seconds."""
    with open_audio_file(path) as f:
        return f.frames / f.samplerate


def read_all(path: str | Path) -> np.ndarray:
    """The whole file as 16 kHz mono int16, for batch transcription.

    Decoded in blocks so an hour of 48 kHz stereo never sits in memory as
    float: only the (much smaller) 16 kHz int16 result does.
    """
    path = Path(path)
    with open_audio_file(path) as f:
        resampler = Resampler(f.samplerate)
        block = max(1, int(f.samplerate * _READ_ALL_BLOCK_SECONDS))
        parts = []
        try:
            for data in f.blocks(blocksize=block, dtype="float32", always_2d=True):
                parts.append(resampler.process(data))
        except RuntimeError as e:
            raise _corrupt(path, f"decoding failed at {f.tell() / f.samplerate:.1f} s: {e}") from e
        parts.append(resampler.flush())
    return np.concatenate(parts)


class FileSource(AudioSource):
    """An audio file played as a source, as fast as possible or in real time."""

    def __init__(
        self,
        path: str | Path,
        realtime: bool = False,
        chunk_seconds: float = 0.1,
        on_event: EventCallback | None = None,
    ):
        if chunk_seconds <= 0:
            raise ValueError("chunk_seconds must be positive")
        self.path = Path(path)
        super().__init__(self.path.name, on_event)
        self.realtime = realtime
        self.chunk_seconds = chunk_seconds
        # Validate now: a bad file should fail where the user picked it.
        with open_audio_file(self.path) as f:
            self.file_rate = f.samplerate
            self.file_channels = f.channels
            self.file_format = f"{f.format}/{f.subtype}"
            self._frames = f.frames
            self.warning = (
                f"{self.path}: truncated: captioning the {self.duration:.1f} s that are present"
                if getattr(f, "truncated", False)
                else None
            )
        self._file: sf.SoundFile | None = None
        self._resampler: Resampler | None = None
        self._pacer = RealtimePacer()  # holds a converted chunk until it is due (realtime only)
        self._eof = False
        self._started = False
        # stop() may come from another thread while read() decodes; closing a
        # SoundFile mid-read must not happen. Re-entrant: read() may stop().
        self._lock = threading.RLock()

    @property
    def duration(self) -> float:
        """Length of the file in seconds."""
        return self._frames / self.file_rate

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` at the last ``start()``: when paced, stream time ``t`` is due at
        ``started_at + t`` (what latency measurements count from)."""
        return self._pacer.started_at

    def start(self) -> FileSource:
        """(Re)start from the beginning of the file."""
        self.stop()
        with self._lock:
            self._file = open_audio_file(self.path)
            self._resampler = Resampler(self.file_rate)
            self._eof = False
            self._finished, self._started = False, True
            self._pacer.start()
        return self

    def read(self, timeout: float) -> np.ndarray | None:
        if not self._started:
            raise RuntimeError("FileSource.read() before start()")
        with self._lock:
            if self._finished or self._file is None:  # done, or stopped
                return None
            chunk = self._pacer.take_held()
            if chunk is None:
                chunk = self._next_chunk()
        if chunk is None:
            self._finish()
            return None
        # A live source can hand out a chunk only once its last sample was spoken.
        return self._pacer.release(chunk, timeout) if self.realtime else self._pacer.count(chunk)

    def stop(self) -> None:
        self._pacer.stop()  # first, so a paced read() waiting for its chunk wakes now
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
            if self._resampler is not None:  # a stopped file reads nothing more (start() reopens)
                self._resampler.close()
                self._resampler = None

    # -- internals ---------------------------------------------------------------------
    def _next_chunk(self) -> np.ndarray | None:
        """The next non-empty converted chunk, or None at the end of the file."""
        block = max(1, round(self.file_rate * self.chunk_seconds))
        while not self._eof:
            try:
                data = self._file.read(block, dtype="float32", always_2d=True)
            except RuntimeError as e:
                at = self._file.tell() / self.file_rate
                err = _corrupt(self.path, f"decoding failed at {at:.1f} s: {e}")
                self._emit("error", str(err))
                self.stop()
                raise err from e
            if len(data) < block:
                self._eof = True
                out = np.concatenate([self._resampler.process(data), self._resampler.flush()])
            else:
                out = self._resampler.process(data)
            if out.size:
                return out
        return None

    def _finish(self) -> None:
        if not self._finished:
            self._finished = True
            self.stop()
            self._emit("finished", f"{self.name}: end of file ({self.duration:.1f} s)")
