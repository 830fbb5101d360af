"""Issue 62: numbers and symbols are words for the punctuation engine and through a live Whisper
session: "42,000" and "3.5" carry no mark inside them, and Whisper's pieces " $42" ",000" and
" 12" "%" reach the transcript as one word each. The shipped punctuation model, the embedded
tiny.en, Piper's speech."""

import numpy as np
import pytest
import soundfile as sf

from engine.events import Settled
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.whisper_rec import WhisperRecognizer
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from engine.words import MARK_TEXT, Word, bare_word
from tests.speech import piper

SPOKEN = "We spent forty two thousand dollars, which is twelve percent over plan."
WRITTEN = "we spent $42,000 in the u.s. which is 3.5 times 12% over plan at 10:30 with a built-in camera"


@pytest.fixture(scope="module")
def model():
    from engine.punctuation.model import load_model_or_shipped

    return load_model_or_shipped(None).model


def written(settled: list[Settled]) -> list[str]:
    return [s.form + MARK_TEXT[s.mark] for s in settled]


def test_the_engine_writes_numbers_symbols_and_abbreviations_whole(model):
    words = [Word(w, i * 0.3, i * 0.3 + 0.25) for i, w in enumerate(WRITTEN.split())]
    offline = OfflineDecoder.from_model(model, model.config.decoder).decode(words)
    streaming = StreamingDecoder.from_model(model, model.config.decoder)
    events = [e for w in words for e in streaming.push(w)] + streaming.finish()
    live = [e for e in events if isinstance(e, Settled)]
    for out in (written(offline), written(live)):
        assert len(out) == len(words)
        for word, shown in zip(WRITTEN.split(), out):
            assert bare_word(shown) == word, out  # the word whole, a mark only after it
        assert {"$42,000", "3.5", "12%", "10:30", "built-in"} <= {w.rstrip(",.?") for w in out}, out


@pytest.mark.slow
@pytest.mark.parametrize("marks", ["engine", "auto"])
def test_a_live_whisper_session_writes_a_number_as_one_word(tmp_path, model, marks):
    from engine.audio.file_source import FileSource

    path = tmp_path / "numbers.wav"
    pad = np.zeros(8000, np.int16)
    sf.write(path, np.concatenate([pad, piper(SPOKEN), pad, pad, pad]), 16000, subtype="PCM_16")
    whisper = WhisperRecognizer(live=True)
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(journal=False, realtime=False, marks=marks)
    session, _ = build_live_session(spec, resources, source=FileSource(path, realtime=False))
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    words = [w.word for w in transcript.words]
    assert not any(w.startswith((",", ".", "-", "%")) for w in words), words
    assert [w for w in words if "42" in w] in (["42,000"], ["$42,000"]), words
    assert "12%" in words, words
    assert "42,000" in transcript.text() and "12%" in transcript.text()
