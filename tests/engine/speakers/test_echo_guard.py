"""The echo guard on a real microphone signal: the others' words come back are hidden, by their
text or, when Whisper wrote them otherwise, by how faint they are; the user's words stay."""

import numpy as np
import pytest

from engine.speakers.echo_guard import EchoGuard
from engine.words import Word
from tests.speech import espeak

RATE = 16_000


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    audio, rate = espeak("one two three four five", tmp_path_factory.mktemp("guard") / "c.wav")
    audio = np.interp(np.arange(0, len(audio), rate / RATE), np.arange(len(audio)), audio).astype(np.float32)
    voiced = np.flatnonzero(np.abs(audio) > 500)
    return audio[voiced[0] : voiced[-1]]  # the words' times below span the speech, as a recognizer's do


def microphone(clip, parts, seconds=12.0):
    """The microphone's signal: ``clip`` at (start, gain in dB) for each part."""
    mic = np.zeros(int(seconds * RATE), np.float32)
    for at, db in parts:
        start = int(at * RATE)
        mic[start : start + len(clip)] += clip * 10 ** (db / 20)
    return np.clip(mic, -32768, 32767).astype(np.int16)


def words(start, end, texts):
    step = (end - start) / len(texts)
    return [Word(t, start + k * step, start + (k + 1) * step) for k, t in enumerate(texts)]


@pytest.mark.needs_espeak
def test_faint_words_during_the_others_are_echo_and_the_users_own_stay(clip):
    seconds = len(clip) / RATE
    # The user alone at 0 dB, the others' echo 30 dB down (what a canceller leaves), then the user
    # talking over the others at full voice.
    mic = microphone(clip, [(0.5, 0), (4.0, -30), (8.0, 0)])
    guard = EchoGuard()
    for at in range(0, len(mic), 1600):
        guard.hear_me(mic[at : at + 1600], at)
    guard.heard_others(words(4.0, 4.0 + seconds, ["we", "agreed", "on", "the", "plan"]))
    theirs = words(8.0, 8.0 + seconds, ["and", "then", "we", "left", "early"])
    guard.heard_others(theirs)
    mine = words(0.5, 0.5 + seconds, ["one", "two", "three", "four", "five"])
    assert not any(guard.is_echo(w) for w in mine)  # the others were quiet: never echo
    garbled = words(4.0, 4.0 + seconds, ["weak", "reed", "gone", "a", "plant"])  # no text matches
    assert all(guard.is_echo(w) for w in garbled) and guard.hidden_by_level == 5
    over = words(8.0, 8.0 + seconds, ["one", "two", "three", "four", "five"])
    assert not any(guard.is_echo(w) for w in over)  # the user talking over the others
    left = theirs[3]  # the others' own word, heard back 60 ms late: hidden by its text
    assert guard.is_echo(Word("left", left.start + 0.06, left.end + 0.06))
    assert guard.hidden == 6


@pytest.mark.needs_espeak
def test_before_the_user_was_heard_alone_words_heard_only_during_the_others_are_echo(clip):
    """A call starts with the others talking, and the canceller's first seconds leave the most
    echo: until the user has spoken with the others quiet, a word heard only while they speak is
    taken for theirs. Once the user's own level is known, the level rule judges."""
    seconds = len(clip) / RATE
    mic = microphone(clip, [(0.5, -20), (4.0, 0), (8.0, -30)])
    guard = EchoGuard()
    for at in range(0, len(mic), 1600):
        guard.hear_me(mic[at : at + 1600], at)
    guard.heard_others(words(0.5, 0.5 + seconds, ["we", "agreed", "on", "the", "plan"]))
    guard.heard_others(words(8.0, 8.0 + seconds, ["and", "then", "we", "left", "early"]))
    first = words(0.5, 0.5 + seconds, ["weak", "reed", "gone", "a", "plant"])  # before the user spoke
    assert all(guard.is_echo(w) for w in first)
    mine = words(4.0, 4.0 + seconds, ["one", "two", "three", "four", "five"])  # the others quiet
    assert not any(guard.is_echo(w) for w in mine)
    later = words(8.0, 8.0 + seconds, ["an", "ten", "wee", "lift", "early"])[:4]
    assert all(guard.is_echo(w) for w in later)  # 30 dB under the user's level now known
    loud = microphone(clip, [(0.5, 0)])
    guard = EchoGuard()
    for at in range(0, len(loud), 1600):
        guard.hear_me(loud[at : at + 1600], at)
    guard.heard_others(words(0.5, 0.5 + seconds, ["we", "agreed", "on", "the", "plan"]))
    # Not yet known, the user talking over the others at the very start is hidden too: the cost
    # of the rule, a few words once per call.
    assert all(guard.is_echo(w) for w in words(0.5, 0.5 + seconds, ["one", "two", "three", "four", "five"]))


@pytest.mark.needs_espeak
def test_once_the_echos_level_is_known_the_user_talking_over_the_others_at_the_start_stays(clip):
    """Before the user was heard alone, the echo itself tells how loud it is: the Me words hidden
    by their text are the others heard again. The user talking over the others is much louder,
    and stays; a garbled echo at the echo's level is still hidden."""
    seconds = len(clip) / RATE
    mic = microphone(clip, [(0.56, -10), (4.0, 0), (8.06, -10)])
    guard = EchoGuard()
    for at in range(0, len(mic), 1600):
        guard.hear_me(mic[at : at + 1600], at)
    said = ["one", "two", "three", "four", "five"]
    guard.heard_others(words(0.5, 0.5 + seconds, said))
    guard.heard_others(words(4.0, 4.0 + seconds, ["we", "agreed", "on", "the", "plan"]))
    guard.heard_others(words(8.0, 8.0 + seconds, ["and", "then", "we", "left", "early"]))
    echoed = words(0.56, 0.56 + seconds, said)
    assert all(guard.is_echo(w) for w in echoed) and guard.hidden_by_level == 0  # by their text
    over = words(4.0, 4.0 + seconds, said)  # the user, at full voice, while the others speak
    assert not any(guard.is_echo(w) for w in over)
    garbled = words(8.06, 8.06 + seconds, ["an", "ten", "wee", "lift", "oddly"])
    assert all(guard.is_echo(w) for w in garbled) and guard.hidden_by_level == 5
