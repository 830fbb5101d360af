"""Who among the others: voices found online by clustering speaker embeddings, and turn labels that
settle.

``VoiceClusters`` keeps one centroid per voice heard so far: the duration-weighted running mean of
the embeddings assigned to it. An embedding joins the most similar voice when the cosine similarity
reaches the threshold for its span's length, else it starts the next voice (numbers from 1, in
order of first hearing). A span too short to found a voice on (``min_new_voice_seconds``: its
embedding is noisy) joins the nearest voice whatever the similarity.

The threshold is ``threshold`` for spans of ``full_seconds`` or more, and ``short_margin`` lower
for a span of ``min_new_voice_seconds``, in a line between: the shorter the span, the further its
embedding strays from its voice's centroid (one flite voice's 1 s spans fall under 0.80 a quarter
of the time, its 2 s spans almost never), and a fixed threshold split one voice in two on a short
turn ("Others 2" for the same voice).

``TurnLabeller`` turns the others' words into labelled turns. Words arrive in order with their times
and audio; a turn is a run of words with no pause of ``turn_gap`` seconds or more, cut after
``max_turn_seconds`` of speech so that a voice change without a pause is caught at the next cut. A
turn is embedded from its words' audio alone (the pauses between them left out, as Resemblyzer trims
silence). Labels are provisional until the turn *settles*; a settled label never changes:

- a turn settles once it is closed (a pause of ``turn_gap``, or the cut) and the stream has run
  ``settle_after`` seconds past its last word, so the recognizer's late words have arrived;
- turns settle in order, and only a settled turn moves the centroids; the unsettled ones are
  labelled, each time, by clustering them in order on a copy of the settled voices. So when a turn
  settles, it keeps the label it last showed.

The thresholds, 0.75 from 2 s and 0.65 at 1 s, were chosen on project-made speech: nine synthetic
voices from four engines (``python -m training.speaker_measure``'s), seeded meetings of twelve
turns, each turn a sentence cut to a random share of it; the speaker error (words, after the best
mapping) and the meetings where more voices were found than spoke. A fixed 0.80 (the rule before)
against the ramp, error / meetings with a spurious voice:

    three voices, whole sentences:   0.80: 1.1 % / 0 %     ramp: 2.6 % / 0 %
    three voices, 40–100 % of one:   0.80: 3.7 % / 32 %    ramp: 2.6 % / 0 %
    three voices, 25–100 % of one:   0.80: 6.2 % / 55 %    ramp: 1.9 % / 8 %
    two voices, 25–100 % of one:     0.80: 3.4 % / 35 %    ramp: 1.3 % / 0 %
    one voice, 25–100 % of one:      0.80: 3.1 % / 28 %    ramp: 0.2 % / 5 %

The whole-sentence meetings lose a little where two espeak-ng variants of one engine sound alike
(0.81–0.84); a spurious voice is what a user sees, on every short turn. The study:
docs/experiments/2026-12-07-speaker-threshold-by-span.md.

An open turn is re-embedded for its provisional label only each ``reembed_seconds`` of new
speech (an embedding costs 7–14 ms per second of audio on one core), and once more when it closes.

Synchronous and deterministic: no threads, no clocks; the caller says how far the stream has run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from engine.speakers.labels import others_voice

__all__ = [
    "DEFAULT_THRESHOLD",
    "FULL_SECONDS",
    "SHORT_MARGIN",
    "TurnLabeller",
    "Voice",
    "VoiceClusters",
    "speaker_error",
]

DEFAULT_THRESHOLD = 0.75  # for spans of FULL_SECONDS or more
SHORT_MARGIN = 0.10  # lower for a span of min_new_voice_seconds
FULL_SECONDS = 2.0


@dataclass
class Voice:
    """One voice heard among the others: its number and its duration-weighted embedding sum."""

    number: int
    total: np.ndarray  # sum of embedding × seconds; its direction is the centroid's
    seconds: float

    @property
    def centroid(self) -> np.ndarray:
        norm = float(np.linalg.norm(self.total))
        return self.total / norm if norm > 0 else self.total


class VoiceClusters:
    """Online clustering of speaker embeddings into numbered voices."""

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        min_new_voice_seconds: float = 1.0,
        short_margin: float = SHORT_MARGIN,
        full_seconds: float = FULL_SECONDS,
    ):
        self.threshold = float(threshold)
        self.min_new_voice_seconds = float(min_new_voice_seconds)
        self.short_margin = float(short_margin)
        self.full_seconds = max(float(full_seconds), self.min_new_voice_seconds)
        self.voices: list[Voice] = []

    def threshold_for(self, duration: float) -> float:
        """The similarity a span of ``duration`` seconds must reach to join a voice."""
        if duration >= self.full_seconds or self.full_seconds == self.min_new_voice_seconds:
            return self.threshold
        shortfall = (self.full_seconds - max(duration, self.min_new_voice_seconds)) / (
            self.full_seconds - self.min_new_voice_seconds
        )
        return self.threshold - self.short_margin * shortfall

    def similarities(self, embedding: np.ndarray) -> np.ndarray:
        """Cosine similarity of ``embedding`` to each voice's centroid, in voice order."""
        if not self.voices:
            return np.zeros(0, dtype=np.float64)
        centroids = np.stack([voice.centroid for voice in self.voices])
        norm = float(np.linalg.norm(embedding))
        return centroids @ embedding / norm if norm > 0 else np.zeros(len(self.voices))

    def choose(self, embedding: np.ndarray, duration: float) -> int:
        """The voice number ``assign`` would give, without assigning."""
        scores = self.similarities(embedding)
        if len(scores) == 0:
            return 1
        best = int(np.argmax(scores))
        if scores[best] >= self.threshold_for(duration) or duration < self.min_new_voice_seconds:
            return self.voices[best].number
        return len(self.voices) + 1

    def assign(self, embedding: np.ndarray, duration: float) -> int:
        """The voice number (from 1) of a span's embedding; the voice's centroid takes it in,
        weighted by the span's ``duration`` in seconds."""
        number = self.choose(embedding, duration)
        weight = max(float(duration), 1e-3)  # a zero-length span still counts, a little
        vector = np.asarray(embedding, dtype=np.float64)
        if number > len(self.voices):
            self.voices.append(Voice(number, vector * weight, weight))
        else:
            voice = self.voices[number - 1]
            voice.total = voice.total + vector * weight
            voice.seconds += weight
        return number

    def copy(self) -> VoiceClusters:
        twin = VoiceClusters(self.threshold, self.min_new_voice_seconds, self.short_margin, self.full_seconds)
        twin.voices = [Voice(v.number, v.total.copy(), v.seconds) for v in self.voices]
        return twin


@dataclass
class _Turn:
    first: int  # position of its first word
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    audio: list[np.ndarray] = field(default_factory=list)
    closed: bool = False
    closed_by_clock: bool = False  # closed because time passed with no word, not by a word's gap
    number: int | None = None  # its voice, once settled
    embedding: np.ndarray | None = None
    embedded_words: int = 0  # how many words the cached embedding covers
    embedded_seconds: float = 0.0  # and how much speech

    @property
    def end(self) -> float:
        return self.ends[-1]

    @property
    def speech_seconds(self) -> float:
        return float(sum(e - s for s, e in zip(self.starts, self.ends)))


class TurnLabeller:
    """Labels the others' words "others:N" by turn; labels settle and then never change.

    ``embed`` maps 16 kHz audio to a speaker embedding (``SpeakerEncoder.embed``). Positions are the
    words' indices in arrival order; positions below ``settled`` have their final label."""

    def __init__(
        self,
        embed: Callable[[np.ndarray], np.ndarray],
        clusters: VoiceClusters | None = None,
        turn_gap: float = 0.5,
        settle_after: float = 2.0,
        max_turn_seconds: float = 8.0,
        reembed_seconds: float = 1.0,
    ):
        if settle_after < turn_gap:
            raise ValueError("settle_after must be at least turn_gap: a turn must close before it settles")
        self.embed = embed
        self.clusters = clusters if clusters is not None else VoiceClusters()
        self.turn_gap = float(turn_gap)
        self.settle_after = float(settle_after)
        self.max_turn_seconds = float(max_turn_seconds)
        self.reembed_seconds = float(reembed_seconds)
        self._turns: list[_Turn] = []
        self._words = 0
        self._now = 0.0
        self.settled = 0  # positions [0, settled) are settled

    def add_word(self, start: float, end: float, audio: np.ndarray) -> int:
        """Take the next word (its times in stream seconds, its audio); returns its position."""
        last = self._turns[-1] if self._turns else None
        if (
            last is not None
            and last.closed_by_clock
            and last.number is None
            and start - last.end < self.turn_gap
        ):
            # The clock ran past a pause that was only words not yet committed (a recognizer
            # late under load commits a turn's words in one batch): the turn goes on.
            last.closed = last.closed_by_clock = False
        if last is not None and not last.closed:
            if start - last.end >= self.turn_gap or last.speech_seconds >= self.max_turn_seconds:
                last.closed = True
        if last is None or last.closed:
            last = _Turn(first=self._words)
            self._turns.append(last)
        last.starts.append(float(start))
        last.ends.append(float(max(end, start)))
        last.audio.append(np.asarray(audio))
        self._words += 1
        self.advance(end)
        return self._words - 1

    def advance(self, now: float) -> None:
        """The stream has run to ``now`` seconds: close turns that paused, settle those due."""
        self._now = max(self._now, float(now))
        for turn in self._turns:
            if turn.number is not None:
                continue
            if not turn.closed and self._now - turn.end >= self.turn_gap:
                turn.closed = turn.closed_by_clock = True
            if not (turn.closed and self._now - turn.end >= self.settle_after):
                break  # turns settle in order
            turn.number = self._assign(turn, self.clusters)
            self.settled = turn.first + len(turn.starts)

    def is_settled(self, position: int) -> bool:
        return position < self.settled

    def labels(self, start: int = 0) -> list[str]:
        """The speaker id of every word from position ``start`` on: final below ``settled``,
        provisional above. Only the turns that hold those words are visited (a long meeting's
        settled turns are not), and the unsettled ones, all at the end, are clustered in order."""
        provisional = self.clusters.copy()
        origin = min(start, self.settled)  # every unsettled turn is clustered, in order
        first = len(self._turns)
        while first > 0 and self._turns[first - 1].first + len(self._turns[first - 1].starts) > origin:
            first -= 1
        labels: list[str] = []
        for turn in self._turns[first:]:
            number = turn.number if turn.number is not None else self._assign(turn, provisional)
            labels += [others_voice(number)] * len(turn.starts)
        skip = start - self._turns[first].first if first < len(self._turns) else 0
        return labels[skip:]

    def _assign(self, turn: _Turn, clusters: VoiceClusters) -> int:
        embedding = self._embedding(turn)
        if embedding is None:  # no audio to tell by: the newest voice, else the first
            return clusters.voices[-1].number if clusters.voices else 1
        return clusters.assign(embedding, turn.speech_seconds)

    def _embedding(self, turn: _Turn) -> np.ndarray | None:
        stale = turn.embedded_words != len(turn.audio)
        grown = turn.speech_seconds - turn.embedded_seconds >= self.reembed_seconds
        if stale and (turn.closed or grown or turn.embedded_words == 0):
            audio = np.concatenate([np.ravel(a) for a in turn.audio])
            turn.embedding = np.asarray(self.embed(audio)) if len(audio) else None
            turn.embedded_words, turn.embedded_seconds = len(turn.audio), turn.speech_seconds
        return turn.embedding


def speaker_error(reference: Sequence[object], hypothesis: Sequence[object]) -> float:
    """The share of words whose hypothesis label is wrong after the best one-to-one mapping of
    hypothesis labels onto reference labels (a hypothesis voice left unmapped counts as wrong)."""
    if len(reference) != len(hypothesis):
        raise ValueError("one hypothesis label per reference word")
    if not reference:
        return 0.0
    refs, hyps = sorted(set(reference), key=str), sorted(set(hypothesis), key=str)
    counts = np.zeros((len(hyps), len(refs)), dtype=np.int64)
    for r, h in zip(reference, hypothesis):
        counts[hyps.index(h), refs.index(r)] += 1
    # Brute force over the injective maps of the smaller side: a meeting has a handful of voices.
    if len(hyps) >= len(refs):
        best = max(
            sum(counts[h, r] for r, h in enumerate(p)) for p in permutations(range(len(hyps)), len(refs))
        )
    else:
        best = max(
            sum(counts[h, r] for h, r in enumerate(p)) for p in permutations(range(len(refs)), len(hyps))
        )
    return 1.0 - best / len(reference)
