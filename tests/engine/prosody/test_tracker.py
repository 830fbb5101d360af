"""A session side's recent audio (engine/prosody/tracker.py): words measured on what was heard
under their times, as a saved recording is measured, and never on audio the ring no longer holds."""

import numpy as np
import pytest

from engine.audio import SAMPLE_RATE
from engine.prosody.features import PROSODY_FIELDS, word_prosody
from engine.prosody.tracker import MARGIN_AFTER, MARGIN_BEFORE, ProsodyTracker, annotate_recording
from engine.words import Word, word_from_dict, word_to_dict
from tests.engine.prosody.test_features import glide


def stream(seconds: float) -> np.ndarray:
    """Speech-like tones of changing pitch, one every 0.5 s, as int16."""
    parts = [glide(100 + 10 * (k % 7), 90 + 10 * (k % 5), 0.4) for k in range(int(seconds / 0.5))]
    parts = [np.concatenate([p, np.zeros(int(0.1 * SAMPLE_RATE), np.float32)]) for p in parts]
    return (np.concatenate(parts) * 32767).astype(np.int16)


def test_words_are_measured_on_the_audio_under_their_times_as_a_recording_is():
    audio = stream(80.0)  # longer than the ring: it wraps
    tracker = ProsodyTracker(keep_seconds=20.0)
    for at in range(0, len(audio), 1600):  # 0.1 s chunks, as a side feeds its recognizer
        tracker.hear(audio[at : at + 1600])
    recent = Word("now", 75.0, 75.4)
    (measured,) = tracker.annotate([recent])
    (expected,) = annotate_recording(audio, [recent])
    np.testing.assert_allclose(measured.prosody, expected.prosody, equal_nan=True)
    a, b = int((75.0 - MARGIN_BEFORE) * SAMPLE_RATE), int((75.4 + MARGIN_AFTER) * SAMPLE_RATE)
    np.testing.assert_allclose(measured.prosody, word_prosody(audio[a:b] / 32768.0), equal_nan=True)


def test_a_word_older_than_the_ring_or_not_yet_heard_or_untimed_gets_no_prosody():
    tracker = ProsodyTracker(keep_seconds=7.0)
    audio = stream(30.0)
    tracker.hear(audio)  # one chunk longer than the ring: its last 7 s are kept, in place
    np.testing.assert_array_equal(
        tracker.audio(25.0, 26.0), audio[25 * SAMPLE_RATE : 26 * SAMPLE_RATE] / 32768.0
    )
    old, future, untimed = Word("old", 5.0, 5.4), Word("future", 40.0, 40.4), Word("typed")
    assert [w.prosody for w in tracker.annotate([old, future, untimed])] == [(), (), ()]


def test_prosody_is_evidence_not_record_the_journal_does_not_keep_it():
    word = Word("walked", 1.0, 1.4, prosody=(1.0, 0.5, -3.0, -12.0, -6.0, 0.2, 0.1))
    saved = word_to_dict(word)
    assert "prosody" not in saved
    assert word_from_dict({**saved, "prosody": [1, 2]}).prosody == ()


SILENCE = PROSODY_FIELDS.index("silence_before")


def test_a_pause_is_heard_even_where_the_recognizers_times_run_into_it():
    audio = stream(3.0)  # tones at 0.0-0.4, 0.5-0.9, 1.0-1.4 s: 0.1 s of silence between them
    tracker = ProsodyTracker()
    tracker.hear(audio)
    # Whisper-like times: each word's end runs to the next one's start, so its gap reads 0
    words = [Word("one", 0.0, 0.48), Word("two", 0.48, 0.97), Word("three", 0.97, 1.4)]
    first = tracker.annotate(words[:1])
    live = first + tracker.annotate(words[1:])  # in two batches, as committed
    assert np.isnan(live[0].prosody[SILENCE])  # nothing before the first word
    assert [w.prosody[SILENCE] for w in live[1:]] == pytest.approx([0.1, 0.1], abs=0.03)
    recorded = annotate_recording(audio, words[:1]) + annotate_recording(audio, words[1:], words[0])
    np.testing.assert_allclose([w.prosody for w in live], [w.prosody for w in recorded], equal_nan=True)
    alone = annotate_recording(audio, words[1:])  # without the word before: not measured
    assert np.isnan(alone[0].prosody[SILENCE])
    # a newer writing of "two" (the same times, measured again) is measured from "one", not from itself
    (rewritten,) = tracker.annotate([Word("two", 0.48, 0.97, written="two.")])
    assert rewritten.prosody == pytest.approx(live[1].prosody, nan_ok=True)
