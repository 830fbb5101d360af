"""Online voice clustering and the turn labeller's settling rule: with made-up embeddings where the
rule is the point, with the shipped encoder on synthetic speech where the voices are."""

import random
import shutil

import numpy as np
import pytest

from engine.speakers.clustering import DEFAULT_THRESHOLD, TurnLabeller, VoiceClusters, speaker_error
from engine.speakers.embedding import SAMPLE_RATE
from engine.speakers.labels import others_voice
from tests.engine.speakers.conftest import SENTENCES, speak


def unit(*values) -> np.ndarray:
    vector = np.array(values, dtype=np.float64)
    return vector / np.linalg.norm(vector)


def test_a_voice_is_joined_above_the_threshold_and_a_new_one_started_below_it():
    clusters = VoiceClusters(threshold=0.8)
    assert clusters.assign(unit(1, 0, 0), 2.0) == 1
    assert clusters.assign(unit(1, 0.2, 0), 2.0) == 1  # cosine 0.98
    assert clusters.assign(unit(0, 1, 0), 2.0) == 2
    assert clusters.assign(unit(0, 0, 1), 2.0) == 3
    assert clusters.assign(unit(0.1, 1, 0), 2.0) == 2
    assert [voice.number for voice in clusters.voices] == [1, 2, 3]


def test_a_span_too_short_to_found_a_voice_joins_the_nearest():
    clusters = VoiceClusters(threshold=0.8, min_new_voice_seconds=1.0)
    assert clusters.assign(unit(0, 1), 0.4) == 1  # the very first voice is founded on anything
    clusters.assign(unit(1, 0), 3.0)
    assert clusters.choose(unit(0.6, 1), 0.5) == 1
    assert clusters.choose(unit(0.6, 1), 1.5) == 1  # cosine to (0, 1) is 0.86: joins
    assert clusters.choose(unit(1, 0.9), 0.5) == 2  # cosine 0.74 and 0.67: short, so the nearest
    assert clusters.choose(unit(1, -1), 1.5) == 3


def test_centroids_are_running_means_weighted_by_duration_and_choose_changes_nothing():
    clusters = VoiceClusters(threshold=0.5)
    clusters.assign(unit(1, 0), 3.0)
    before = clusters.voices[0].total.copy()
    assert clusters.choose(unit(1, 1), 1.0) == 1
    assert np.array_equal(clusters.voices[0].total, before)
    clusters.assign(unit(1, 1), 1.0)
    expected = 3 * unit(1, 0) + unit(1, 1)
    assert np.allclose(clusters.voices[0].centroid, expected / np.linalg.norm(expected))
    assert clusters.voices[0].seconds == pytest.approx(4.0)


def test_speaker_error_counts_words_after_the_best_mapping():
    assert speaker_error(["a", "a", "b", "c"], [7, 7, 3, 1]) == 0.0
    assert speaker_error(list("aaaaabbbbb"), [1] * 5 + [2] * 4 + [1]) == pytest.approx(0.1)
    assert speaker_error(list("aabb"), [1, 2, 3, 4]) == pytest.approx(0.5)  # two voices split in four
    assert speaker_error(list("aabbcc"), [1] * 6) == pytest.approx(2 / 3)
    assert speaker_error([], []) == 0.0


# The settling rule, with made-up embeddings: a word's "audio" is its voice's code repeated, and a
# span's embedding is the direction of its codes' mix, so a turn's embedding is what its words say.
CODES = np.eye(4)


def code_embedding(audio: np.ndarray) -> np.ndarray:
    mix = CODES[np.asarray(audio, dtype=int)].sum(axis=0)
    return mix / np.linalg.norm(mix)


def word(code: int) -> np.ndarray:
    return np.full(10, code)


def test_a_turn_settles_once_it_has_closed_and_the_stream_ran_past_it():
    labeller = TurnLabeller(code_embedding, turn_gap=0.5, settle_after=2.0)
    for i in range(4):
        labeller.add_word(i * 0.5, i * 0.5 + 0.45, word(1))
    labeller.advance(1.95 + 1.99)
    assert labeller.settled == 0 and not labeller.is_settled(0)
    labeller.advance(1.95 + 2.0)
    assert labeller.settled == 4 and labeller.is_settled(3)
    assert labeller.labels() == [others_voice(1)] * 4


def test_words_committed_late_continue_the_turn_the_clock_closed():
    """A recognizer late under load commits a turn in one batch after the clock passed its first
    words: the turn is one, labelled by all of its words, not pieces too short to be a voice."""
    labeller = TurnLabeller(code_embedding, turn_gap=0.5, settle_after=2.0)
    for i in range(4):  # voice 1: two seconds, settled
        labeller.add_word(i * 0.5, i * 0.5 + 0.5, word(1))
    labeller.advance(5.0)
    labeller.add_word(6.0, 6.4, word(2))  # voice 2's first word ...
    labeller.advance(7.2)  # ... then the clock passes words not committed yet
    for t in (6.4, 6.8, 7.2):  # which come now, in one batch
        labeller.add_word(t, t + 0.4, word(2))
    labeller.advance(20.0)
    assert labeller.labels()[4:] == [others_voice(2)] * 4


def test_an_unsettled_label_may_change_and_a_settled_one_never_does():
    labeller = TurnLabeller(code_embedding, turn_gap=0.5, settle_after=2.0)
    for i in range(4):  # voice 1: two seconds
        labeller.add_word(i * 0.5, i * 0.5 + 0.5, word(1))
    labeller.advance(5.0)
    assert labeller.settled == 4
    # A new voice: after 0.4 s it is too short to found one, so it shows as the nearest ...
    labeller.add_word(6.0, 6.4, word(2))
    assert labeller.labels()[4] == others_voice(1) and not labeller.is_settled(4)
    # ... and once it has a second of speech it is a voice of its own: the label was corrected.
    for t in (6.4, 6.8, 7.2):
        labeller.add_word(t, t + 0.4, word(2))
    assert labeller.labels()[4:] == [others_voice(2)] * 4
    assert labeller.labels()[:4] == [others_voice(1)] * 4  # settled: unchanged
    labeller.advance(20.0)
    assert labeller.settled == 8
    labeller.add_word(21.0, 22.0, word(2))
    labeller.add_word(22.0, 23.5, word(1))
    assert labeller.labels()[:8] == [others_voice(1)] * 4 + [others_voice(2)] * 4


def test_settled_labels_never_change_over_a_long_random_stream():
    rng = random.Random(3)
    labeller = TurnLabeller(code_embedding, turn_gap=0.5, settle_after=1.5, max_turn_seconds=4.0)
    history: list[tuple[int, list[str]]] = []
    now, voice, changed = 0.0, 1, 0
    for _ in range(400):
        if rng.random() < 0.15:
            now += rng.uniform(0.5, 2.5)  # a pause, and often a new voice after it
            voice = rng.choice([0, 1, 2, 3])
        length = rng.uniform(0.1, 0.6)
        # Mostly the voice's own code, sometimes another's: embeddings that move as a turn grows.
        codes = [voice if rng.random() < 0.8 else rng.choice([0, 1, 2, 3]) for _ in range(5)]
        labeller.add_word(now, now + length, np.array(codes))
        now += length + rng.uniform(0.0, 0.3)
        if rng.random() < 0.3:
            labeller.advance(now)
        history.append((labeller.settled, labeller.labels()))
    for (settled, labels), (_, later) in zip(history, history[1:]):
        assert later[:settled] == labels[:settled]
        changed += labels[settled:] != later[settled : len(labels)]
    assert changed > 0  # unsettled labels did move: the rule was exercised
    assert [s for s, _ in history] == sorted(s for s, _ in history)
    labeller.advance(now + 10)
    assert labeller.settled == 400 and labeller.labels()[: history[-1][0]] == history[-1][1][: history[-1][0]]


def test_a_voice_change_without_a_pause_is_caught_at_the_turn_cut():
    labeller = TurnLabeller(code_embedding, turn_gap=0.5, settle_after=2.0, max_turn_seconds=8.0)
    for i in range(32):  # 16 s of words edge to edge: voice 1 for 8 s, then voice 2
        labeller.add_word(i * 0.5, i * 0.5 + 0.5, word(1 if i < 16 else 2))
    labeller.advance(30.0)
    assert labeller.labels() == [others_voice(1)] * 16 + [others_voice(2)] * 16


MORE_SENTENCES = (
    "thanks everyone that was a very useful discussion",
    "let us take five minutes and then come back to the roadmap",
    "we still need someone to review the design before friday",
    "i think we should move the launch to the second week of march",
)

# Real speech: three voices from three synthesizers taking turns, words timed evenly over each
# sentence (the recognizer's word times would be), the shipped encoder behind the labeller.
THREE_VOICES = (("espeak-ng", "en-us+m3"), ("flite", "slt"), ("festival", None))
ORDER = (0, 1, 2, 1, 0, 2, 0, 2, 1, 0, 1, 2)


@pytest.mark.needs_espeak
def test_alternating_voices_are_recovered_by_turn(encoder):
    labeller = TurnLabeller(encoder.embed)
    assert labeller.clusters.threshold == DEFAULT_THRESHOLD
    reference, now, history = [], 0.5, []
    for turn, speaker in enumerate(ORDER):
        tts, voice = THREE_VOICES[speaker]
        text = SENTENCES[turn % len(SENTENCES)]
        audio = speak(tts, voice, text)
        words = text.split()
        bounds = np.linspace(0, len(audio), len(words) + 1).astype(int)
        for a, b in zip(bounds, bounds[1:]):
            labeller.add_word(now + a / SAMPLE_RATE, now + b / SAMPLE_RATE, audio[a:b])
            reference.append(speaker)
        history.append((labeller.settled, labeller.labels()))
        now += len(audio) / SAMPLE_RATE + 0.8  # the pause before the next voice
    labeller.advance(now + 5)
    final = labeller.labels()
    assert labeller.settled == len(reference)
    for settled, labels in history:
        assert final[:settled] == labels[:settled]
    assert speaker_error(reference, final) <= 0.10, final


@pytest.mark.skipif(shutil.which("flite") is None, reason="flite is not installed (apt-get install flite)")
def test_one_flite_voice_stays_one_speaker_when_the_call_opens_with_a_short_turn(encoder):
    """A call that opens with a short turn founds the voice on a noisy embedding; the same voice's
    whole sentences that follow must join it, not start "Others 2"."""
    opening = "my connection dropped for a minute so i missed the last part"
    turns = [speak("flite", "slt", opening)[: int(1.2 * SAMPLE_RATE)]]  # "my connection dropped"
    turns += [speak("flite", "slt", text) for text in SENTENCES if text != opening]
    turns += [speak("flite", "slt", text) for text in MORE_SENTENCES]
    labeller, now = TurnLabeller(encoder.embed), 0.5
    for audio in turns:
        bounds = np.linspace(0, len(audio), max(2, round(len(audio) / SAMPLE_RATE * 3)) + 1).astype(int)
        for a, b in zip(bounds, bounds[1:]):  # words of about a third of a second, timed evenly
            labeller.add_word(now + a / SAMPLE_RATE, now + b / SAMPLE_RATE, audio[a:b])
        now += len(audio) / SAMPLE_RATE + 1.0
    labeller.advance(now + 5)
    assert set(labeller.labels()) == {others_voice(1)}
    assert len(labeller.clusters.voices) == 1
