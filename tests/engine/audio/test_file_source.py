"""FileSource / read_all: real files written by soundfile, decoded by the real code."""

import time

import numpy as np
import pytest
import soundfile as sf

from engine.audio.base import AudioError, Resampler
from engine.audio.file_source import FileSource, audio_duration, read_all, truncation_warning
from tests.speech import write_speech_wav

SR = 16_000


def tone(rate, seconds, freq=440.0, amp=0.5, channels=1):
    t = np.arange(int(rate * seconds)) / rate
    x = amp * np.sin(2 * np.pi * freq * t)
    return np.stack([x] * channels, axis=1) if channels > 1 else x


def rms(x):
    return float(np.sqrt(np.mean(np.asarray(x, np.float64) ** 2)))


def drain(src, timeout=1.0):
    chunks = []
    while not src.finished:
        c = src.read(timeout)
        if c is not None:
            chunks.append(c)
    return np.concatenate(chunks)


CASES = [  # (format, subtype, ext, rate, channels)
    ("WAV", "PCM_16", "wav", 8000, 1),
    ("WAV", "PCM_16", "wav", 48000, 2),
    ("WAV", "PCM_24", "wav", 44100, 2),
    ("WAV", "PCM_32", "wav", 22050, 1),
    ("WAV", "FLOAT", "wav", 48000, 1),
    ("WAV", "DOUBLE", "wav", 16000, 2),
    ("WAV", "PCM_U8", "wav", 8000, 1),
    ("WAVEX", "PCM_24", "wav", 48000, 2),
    ("FLAC", "PCM_16", "flac", 22050, 2),
    ("FLAC", "PCM_24", "flac", 44100, 1),
    ("OGG", "VORBIS", "ogg", 48000, 2),
    ("OGG", "VORBIS", "ogg", 22050, 1),
]


@pytest.mark.parametrize(
    "fmt,subtype,ext,rate,channels", CASES, ids=[f"{c[0]}-{c[1]}-{c[3]}-{c[4]}ch" for c in CASES]
)
def test_decodes_to_16k_mono_int16_with_duration_and_level(tmp_path, fmt, subtype, ext, rate, channels):
    path = tmp_path / f"clip.{ext}"
    sf.write(path, tone(rate, 0.5, channels=channels), rate, format=fmt, subtype=subtype)

    out = read_all(path)
    assert out.dtype == np.int16 and out.ndim == 1
    assert abs(len(out) / SR - 0.5) <= 0.005
    assert audio_duration(path) == pytest.approx(0.5, rel=0.01)
    body = out[800:-800]  # filter edges aside
    # 0.5 amplitude sine: RMS 0.354 of full scale; u8 and vorbis are coarser.
    assert rms(body) == pytest.approx(0.5 / np.sqrt(2) * 32768, rel=0.05)

    src = FileSource(path, chunk_seconds=0.1).start()
    streamed = drain(src)
    assert src.finished and src.duration == pytest.approx(0.5, rel=0.01)
    assert len(streamed) == len(out)
    assert np.abs(streamed.astype(int) - out).max() <= 1


def test_full_scale_float_keeps_full_scale_without_wraparound(tmp_path):
    # At 16 kHz nothing is resampled: 1.0 must become 32767, -1.0 -32768.
    path = tmp_path / "full.wav"
    x = tone(SR, 0.25, freq=400, amp=1.0)
    x[:4] = [1.0, -1.0, 1.5, -1.5]  # float files may exceed full scale
    sf.write(path, x, SR, subtype="FLOAT")
    out = read_all(path)
    assert list(out[:4]) == [32767, -32768, 32767, -32768]
    assert out.max() == 32767 and out.min() == -32768
    expected = np.clip(np.rint(x * 32768), -32768, 32767)
    assert np.abs(out - expected).max() <= 1

    # Resampled, a full-scale sine overshoots a little; it must saturate, not wrap.
    path48 = tmp_path / "full48.wav"
    sf.write(path48, tone(48000, 0.25, freq=400, amp=1.0), 48000, subtype="FLOAT")
    out48 = read_all(path48).astype(int)
    ref = np.clip(np.rint(tone(SR, 0.25, freq=400, amp=1.0) * 32768), -32768, 32767)
    n = min(len(out48), len(ref))
    assert np.abs(out48[200 : n - 200] - ref[200 : n - 200]).max() < 700
    assert out48.max() >= 32700 and out48.min() <= -32700


def test_resampling_keeps_a_1khz_tone_at_1khz(tmp_path):
    path = tmp_path / "tone.wav"
    sf.write(path, tone(44100, 1.0, freq=1000.0), 44100, subtype="PCM_16")
    out = read_all(path).astype(np.float64)
    spectrum = np.abs(np.fft.rfft(out * np.hanning(len(out))))
    peak_hz = np.argmax(spectrum) * SR / len(out)
    assert peak_hz == pytest.approx(1000.0, abs=2.0)


def test_resampler_is_streaming_and_downmixes(tmp_path):
    x = tone(48000, 1.0, channels=2).astype(np.float32)
    x[:, 1] = 0.0  # one silent channel: the average halves the level
    r = Resampler(48000)
    parts = [r.process(x[i : i + 1000]) for i in range(0, len(x), 1000)] + [r.flush()]
    out = np.concatenate(parts)
    assert len(out) == 16000 and out.dtype == np.int16
    assert rms(out[500:-500]) == pytest.approx(0.25 / np.sqrt(2) * 32768, rel=0.02)
    ints = Resampler(16000).process(np.array([[-32768, 32767]], dtype=np.int16))
    assert ints.tolist() == [0]  # int input scales to float, then averages


def test_realtime_pacing_takes_about_the_clip_length(tmp_path):
    path = tmp_path / "short.wav"
    sf.write(path, tone(22050, 0.6), 22050, subtype="PCM_16")
    events = []
    src = FileSource(path, realtime=True, on_event=events.append)
    t0 = time.monotonic()
    src.start()
    first = None
    chunks = []
    while not src.finished:
        c = src.read(0.05)
        if c is not None:
            chunks.append(c)
            first = first or time.monotonic() - t0
            # a chunk is handed out no earlier than its last sample is due: started_at + stream time
            assert time.monotonic() >= src.started_at + sum(map(len, chunks)) / SR
    elapsed = time.monotonic() - t0
    assert t0 <= src.started_at <= t0 + 0.5
    assert elapsed >= 0.55  # never faster than the clip
    assert first is not None and first >= 0.04  # chunks come due, not all at once
    assert sum(map(len, chunks)) == pytest.approx(0.6 * SR, abs=2)
    assert [e.kind for e in events] == ["finished"]
    assert src.read(0.5) is None  # finished: returns at once


def test_fast_mode_and_stop(tmp_path):
    path = tmp_path / "long.flac"
    sf.write(path, tone(48000, 30.0), 48000)
    src = FileSource(path).start()
    t0 = time.monotonic()
    assert src.read(1.0) is not None
    src.stop()
    src.stop()  # idempotent
    assert src.read(0.1) is None
    src.start()  # starts over
    assert len(drain(src)) == 30 * SR
    # not paced: a real-time playback would take 30 s
    assert time.monotonic() - t0 < 30.0


def _wav_bytes(tmp_path):
    path = tmp_path / "good.wav"
    sf.write(path, tone(SR, 1.0), SR, subtype="PCM_16")
    return path.read_bytes()


def _expect_one_error(path, *phrases):
    for attempt in (lambda: FileSource(path), lambda: read_all(path)):
        with pytest.raises(AudioError) as info:
            attempt()
        message = str(info.value)
        assert path.name in message
        for phrase in phrases:
            assert phrase in message, message
    return message


def test_empty_files(tmp_path):
    blank = tmp_path / "clip.wav"
    blank.write_bytes(b"")
    assert "clip.wav is empty (no audio frames)" in _expect_one_error(blank)
    header_only = tmp_path / "header.wav"
    sf.write(header_only, np.zeros(0), SR, subtype="PCM_16")
    _expect_one_error(header_only, "is empty (no audio frames)")


def test_wav_truncated_mid_header_is_an_error(tmp_path):
    mid_header = tmp_path / "head.wav"
    mid_header.write_bytes(_wav_bytes(tmp_path)[:22])
    _expect_one_error(mid_header, "is truncated or corrupt")


@pytest.mark.needs_espeak
@pytest.mark.parametrize("data_size", [None, 0, 0xFFFFFFFF])
def test_a_partly_written_wav_is_read_as_far_as_it_goes_with_one_warning(tmp_path, data_size):
    # A recorder that crashed: the header promises the whole talk (or was never filled in).
    whole = write_speech_wav(tmp_path / "talk.wav", repeats=1)
    data = whole.read_bytes()
    at = data.index(b"data") + 4
    if data_size is not None:
        data = data[:at] + data_size.to_bytes(4, "little") + data[at + 4 :]
    cut = tmp_path / "cut.wav"
    keep = at + 4 + (len(data) - at - 4) // 2 // 2 * 2  # half the audio, whole samples
    cut.write_bytes(data[:keep])
    present = (keep - at - 4) // 2 / sf.info(whole).samplerate
    assert truncation_warning(cut) == f"truncated: transcribing the {present:.1f} s that are present"
    assert truncation_warning(whole) is None
    audio = read_all(cut)
    original = read_all(whole)
    assert abs(len(audio) - present * SR) <= SR // 100
    assert np.array_equal(audio[: SR // 2], original[: SR // 2])  # the same samples, not noise
    assert abs(audio_duration(cut) - present) < 0.01 and FileSource(cut).warning


@pytest.mark.parametrize("ext", ["flac", "ogg"])
def test_flac_and_ogg_truncated(tmp_path, ext):
    good = tmp_path / f"good.{ext}"
    sf.write(good, tone(48000, 2.0), 48000)
    cut = tmp_path / f"cut.{ext}"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size * 2 // 3])
    _expect_one_error(cut, "is truncated or corrupt")


def test_non_audio_and_unsupported(tmp_path):
    text = tmp_path / "notes.wav"
    text.write_text("these are meeting notes, not audio\n" * 20)
    _expect_one_error(text, "notes.wav: not a WAV, FLAC or OGG audio file")
    mp3 = tmp_path / "song.mp3"
    mp3.write_bytes(b"ID3\x03\x00" + bytes(range(256)) * 8)
    _expect_one_error(mp3, "song.mp3: not a WAV, FLAC or OGG audio file", "ffmpeg")
    aiff = tmp_path / "clip.aiff"
    sf.write(aiff, tone(SR, 0.2), SR, format="AIFF")
    _expect_one_error(aiff, "not a WAV, FLAC or OGG audio file", "AIFF")
    with pytest.raises(AudioError, match="no such file"):
        FileSource(tmp_path / "missing.wav")


LEFT_AT_EXIT = """
import sys, threading, time
sys.path[:0] = [{root!r}]
{make}
source.start()
source.read(0.1)
source.stop()
while source.read(0) is not None:
    pass
# A thread that has not finished when the process ends still holds the stopped source.
threading.Thread(target=lambda held=source: time.sleep(60), daemon=True).start()
"""


@pytest.mark.parametrize(
    "make",
    [
        "from engine.audio.file_source import FileSource\nsource = FileSource(sys.argv[1])",
        "from tests.engine.audio.test_microphone import FakeHardware, make_source\n"
        "source = make_source(FakeHardware(), 'USB Mic')",
    ],
    ids=["file", "microphone"],
)
def test_a_stopped_source_holds_no_native_resampler_at_exit(tmp_path, make):
    """A stopped source let go of soxr's state: held past the end of the process (by a thread
    still running), it used to print nanobind's leak report after everything else."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    path = tmp_path / "tone.wav"
    sf.write(path, (0.3 * np.sin(np.arange(44100) * 0.05)).astype(np.float32), 44100)
    script = LEFT_AT_EXIT.format(root=str(root), make=make)
    r = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr


def test_every_source_declares_its_duration_and_warning_and_the_pausable_wrapper_passes_them_on(tmp_path):
    from engine.audio.base import AudioSource
    from engine.audio.pausable import PausableSource

    class Endless(AudioSource):  # a live source: what the base class declares for it
        def start(self):
            return self

        def read(self, timeout):
            return None

        def stop(self):
            pass

    live = PausableSource(Endless("mic"), live=True)
    assert (live.duration, live.warning) == (None, None)
    path = tmp_path / "half.wav"
    sf.write(path, tone(SR, 0.5), SR)
    played = PausableSource(FileSource(path), live=False)
    assert played.duration == pytest.approx(0.5) and played.warning is None
