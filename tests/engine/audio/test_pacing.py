import threading
import time

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.audio.pacing import RealtimePacer

CHUNK = np.zeros(SAMPLE_RATE // 10, np.int16)  # 0.1 s


def _release(pacer, timeout=1.0):
    chunk = pacer.take_held()
    return pacer.release(CHUNK if chunk is None else chunk, timeout)


def test_chunks_come_out_at_real_speed():
    pacer = RealtimePacer()
    pacer.start()
    for k in range(1, 4):
        assert _release(pacer) is CHUNK
        # never before its last sample is due
        assert pacer.started_at + 0.1 * k <= time.monotonic()
    assert pacer.released == 3 * len(CHUNK)


def test_a_short_timeout_holds_the_chunk_for_the_next_read():
    pacer = RealtimePacer()
    pacer.start()
    assert pacer.release(CHUNK, timeout=0.01) is None
    held = pacer.take_held()
    assert held is CHUNK and pacer.take_held() is None
    assert pacer.release(held, timeout=1.0) is CHUNK


def test_resume_does_not_owe_the_paused_time():
    pacer = RealtimePacer()
    pacer.start()
    assert _release(pacer) is CHUNK
    time.sleep(0.4)  # paused
    pacer.resume()
    t = time.monotonic()
    assert _release(pacer) is CHUNK
    assert time.monotonic() - t >= 0.08  # the next chunk still takes its own 0.1 s


def test_stop_wakes_a_waiting_release_which_keeps_its_chunk():
    pacer = RealtimePacer()
    pacer.start()
    threading.Timer(0.05, pacer.stop).start()
    t = time.monotonic()
    assert pacer.release(np.zeros(SAMPLE_RATE, np.int16), timeout=60.0) is None
    assert time.monotonic() - t < 60.0  # woken by stop, not by its timeout
    assert pacer.take_held() is not None


def test_the_file_source_and_the_app_pace_with_the_same_pacer(tmp_path):
    import soundfile as sf

    from engine.audio.file_source import FileSource
    from engine.audio.pausable import SourceChoice, open_source

    path = tmp_path / "a.wav"
    sf.write(path, np.zeros(SAMPLE_RATE // 2, np.int16), SAMPLE_RATE, subtype="PCM_16")
    engine_source = FileSource(path, realtime=True)
    app_source = open_source(SourceChoice("file", str(path)), realtime=True)
    assert isinstance(engine_source._pacer, RealtimePacer) and isinstance(app_source._pacer, RealtimePacer)
    for source in (engine_source, app_source):
        source.start()
        t, got = time.monotonic(), 0
        while not source.finished:
            chunk = source.read(0.2)
            got += 0 if chunk is None else len(chunk)
        assert got == SAMPLE_RATE // 2
        assert time.monotonic() - t >= 0.45  # half a second of audio is not played faster
        source.stop()
