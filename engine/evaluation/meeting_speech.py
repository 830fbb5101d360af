"""A synthetic meeting made of project-made speech, for ``engine.evaluation.meeting``.

Turns of the dev conversation file (``dev/chitchat.txt``, never trained on) are read by one voice
for Me and two or three voices for the others, who take turns. Two tracks come out, as the two
sides of a call would be heard:

- **the others' track**: the others' turns, as the meeting application plays them;
- **the microphone's track**: Me's turns, plus the others' track as the microphone hears it
  through the speakers (no headset): ``echo_db`` down and ``echo_delay`` late.

A few turns start before the previous one ended (``overlaps``): people talk over each other.
``double_talk`` of Me's turns start halfway through the others' turn before them, so both talk at
once for seconds (what the echo guard must not take for echo). Every turn keeps its words, its
speaker and its time, so a transcript can be scored against who said what, and when.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.evaluation.e2e_speech import SAMPLE_RATE, speak_with
from engine.speakers.labels import ME, others_voice

__all__ = ["Meeting", "Turn", "VOICES", "make_meeting"]

# speaker -> (TTS engine, voice, words per minute or None for the engine's own pace)
VOICES = {
    ME: ("piper", None, None),  # the neural voice: the user, close to a person's prosody
    others_voice(1): ("flite", "slt", None),
    others_voice(2): ("festival", None, None),
    others_voice(3): ("espeak-ng", "en-us+f3", 150),
}
SPEAKABLE = re.compile(r"^[a-z]+(?:'[a-z]+)*$")


@dataclass(frozen=True)
class Turn:
    speaker: str  # a speaker id of ``engine.speakers.labels``
    text: str
    start: float  # seconds from the start of both tracks
    end: float

    @property
    def words(self) -> list[str]:
        return [w.strip(".,?!").lower() for w in self.text.split()]


@dataclass
class Meeting:
    me_track: np.ndarray  # 16 kHz mono int16: what the microphone hears (with the echo)
    others_track: np.ndarray  # what the meeting application plays
    turns: list[Turn] = field(default_factory=list)
    me_alone: np.ndarray | None = None  # Me's turns without the echo: "captioned alone"

    @property
    def seconds(self) -> float:
        return len(self.others_track) / SAMPLE_RATE


def _conversation_turns(count: int, seed: int, min_words: int = 8, max_words: int = 22) -> list[str]:
    """``count`` lines of the dev conversation whose every word a voice can say."""
    lines = (dev_corpus() / "chitchat.txt").read_text(encoding="utf-8").splitlines()
    fit = []
    for line in lines:
        words = [w.strip(".,?!").lower() for w in line.split()]
        if min_words <= len(words) <= max_words and all(SPEAKABLE.match(w) for w in words):
            fit.append(line.strip())
    return random.Random(seed).sample(fit, count)


def make_meeting(
    turns: int = 12,
    voices: int = 2,
    seed: int = 0,
    gap: float = 0.8,
    overlaps: int = 2,
    echo_db: float = -10.0,
    echo_delay: float = 0.06,
    double_talk: int = 0,
) -> Meeting:
    """A meeting of ``turns`` turns: Me every third turn, the others' ``voices`` voices in turn
    between; ``overlaps`` of the turns start 0.6 s before the previous one ends; the first
    ``double_talk`` of Me's turns start halfway through the others' turn before them."""
    texts = _conversation_turns(turns, seed)
    others = [others_voice(n) for n in range(1, voices + 1)]
    rng = random.Random(seed + 1)
    overlapping = set(rng.sample(range(1, turns), min(overlaps, turns - 1)))
    talking_over = set(range(1, turns, 3)[:double_talk])  # Me's turns (every third, from the second)
    clips, placed, at, voice_turn = [], [], 0.5, 0
    for k, text in enumerate(texts):
        if k % 3 == 1:
            speaker = ME
        else:
            speaker = others[voice_turn % len(others)]
            voice_turn += 1
        tts, voice, speed = VOICES[speaker]
        clip = speak_with(tts, text, voice, speed)
        voiced = np.flatnonzero(np.abs(clip) > 200)  # the engines pad their clips with silence
        clip = clip[voiced[0] : voiced[-1] + 1] if len(voiced) else clip
        if k in talking_over and placed:
            at = (placed[-1].start + placed[-1].end) / 2
        elif k in overlapping and placed:
            at = max(placed[-1].start + 0.5, placed[-1].end - 0.6)
        duration = len(clip) / SAMPLE_RATE
        placed.append(Turn(speaker, text, at, at + duration))
        clips.append(clip)
        at = max(turn.end for turn in placed) + gap  # after a turn talked over, after both
    total = int((at + 2.0) * SAMPLE_RATE)
    me, others_track = np.zeros(total, np.float32), np.zeros(total, np.float32)
    for turn, clip in zip(placed, clips):
        track = me if turn.speaker == ME else others_track
        start = int(turn.start * SAMPLE_RATE)
        track[start : start + len(clip)] += clip.astype(np.float32)
    delay = int(echo_delay * SAMPLE_RATE)
    echo = np.zeros(total, np.float32)
    echo[delay:] = others_track[: total - delay] * 10 ** (echo_db / 20)
    return Meeting(_int16(me + echo), _int16(others_track), placed, _int16(me))


def _int16(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)
