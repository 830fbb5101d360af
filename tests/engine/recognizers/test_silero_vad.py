"""The streaming Silero VAD: speech is heard, and silence costs no inference."""

import numpy as np
import pytest

from engine.recognizers.silero_vad import FRAME, StreamingVad
from tests.speech import espeak


class CountedSession:
    def __init__(self, session):
        self.session, self.calls = session, 0

    def run(self, *args, **kwargs):
        self.calls += 1
        return self.session.run(*args, **kwargs)


@pytest.mark.needs_espeak
def test_speech_is_heard_and_silence_is_judged_without_the_network(tmp_path):
    clip, rate = espeak("the weather is nice today", tmp_path / "s.wav")
    speech = np.interp(np.arange(0, len(clip), rate / 16000), np.arange(len(clip)), clip) / 32768.0
    vad = StreamingVad()
    vad._session = counted = CountedSession(vad._session)
    quiet_room = np.random.default_rng(0).normal(0, 10 ** (-70 / 20), 16000).astype(np.float32)
    for chunk in np.split(np.concatenate([np.zeros(16000, np.float32), quiet_room]), 20):
        assert not vad.probabilities(chunk).any()
    assert counted.calls == 0  # an idle source and a quiet room: no inference at all
    probabilities = np.concatenate(
        [vad.probabilities(c) for c in np.array_split(speech.astype(np.float32), 10)]
    )
    assert counted.calls > 0 and probabilities.max() > 0.9
    assert len(probabilities) == len(speech) // FRAME
