"""Training windows from recognized speech: Whisper's own words of Piper readings
(``training.piper_speech``), with their real times, prosody and reference labels.

Text windows teach the language; these teach what a live session's evidence looks like: the words
a recognizer really heard (misheard and inserted ones included, their labels ignored), the gaps
it really timed, and the prosody measured on the audio under its times by the engine's own code
(``engine.prosody.tracker.annotate_recording``, then ``word_cues``), exactly as a session
computes them. A window ends at a random recognized word, and its cues are computed the way the
streaming decoder computes them at that moment: the gap after the newest word (and the pitch
reset to the next one) unknown unless a silence has begun.

Contextual dropout (Silva, Theobald and Apostoloff, *Multimodal punctuation prediction with
contextual dropout*) applies to the audio too: some windows lose the audio's columns, some lose
every cue and every ``[PAUSE]`` (bare text), so that a model reading prosody still punctuates
typed text and journals as well as one that never heard any.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.prosody.tracker import annotate_recording
from engine.punctuation.model_inputs import (
    DEFAULT_PAUSE_THRESHOLD,
    SpecialIds,
    WordTokenizer,
    build_window,
    pauses_from_times,
)
from engine.punctuation.word_cues import CUE_COUNT, CUE_NAMES, PACE_WORDS, cue_index, word_cues
from engine.words import CASE_LABELS, PUNCT_LABELS, SENTENCE_END_MARKS, Word
from training.dataset import IGNORE, Labelled, labelled

AUDIO_CUES = tuple(CUE_NAMES[cue_index("prosody_known") :])
_AUDIO = np.array([cue_index(n) for n in AUDIO_CUES if n != "pause_before"])


@dataclass
class SpeechDropout:
    audio: float = 0.3  # share of windows whose audio columns are zeroed (times and pauses kept)
    bare: float = 0.15  # share of windows with no cues and no [PAUSE] at all (text input)
    last_gap_known: float = 0.3  # a silence has begun after the newest word
    future: float = 0.15  # the last 1-2 words become the drop token


@dataclass
class Reading:
    words: list[Word]
    marks: np.ndarray  # PUNCT_LABELS index, IGNORE for an inserted word
    cases: np.ndarray  # CASE_LABELS index, IGNORE for an inserted or sentence-initial word
    ids: list[tuple[int, ...]]


def reading_from_rows(rows: list[dict], audio: np.ndarray, tokenizer: WordTokenizer) -> Reading:
    """One saved reading (``piper_speech``'s rows and audio) as words with prosody and labels."""
    words = [Word(r["text"], r["start"], r["end"], written=r.get("written") or "") for r in rows]
    words = annotate_recording(audio, words)
    marks = np.full(len(rows), IGNORE, dtype=np.int64)
    cases = np.full(len(rows), IGNORE, dtype=np.int64)
    previous_mark, previous_excerpt = "period", None
    for j, r in enumerate(rows):
        if r["ref_mark"] is not None:
            marks[j] = PUNCT_LABELS.index(r["ref_mark"])
            initial = previous_mark in SENTENCE_END_MARKS or r["excerpt"] != previous_excerpt
            if not initial:  # the decoder derives a sentence's first capital from the marks
                cases[j] = CASE_LABELS.index(r["ref_case"])
            previous_mark = r["ref_mark"]
        previous_excerpt = r["excerpt"]
    return Reading(words, marks, cases, tokenizer.encode_words([w.text for w in words]))


def load_speech(folder, tokenizer: WordTokenizer) -> list[Reading]:
    from training.piper_speech import load_readings

    out = []
    for data, audio_path in load_readings(folder):
        if data["words"]:
            out.append(reading_from_rows(data["words"], np.load(audio_path), tokenizer))
    return out


class SpeechWindows:
    """Windows ending at a random recognized word of the readings, built as ``WindowMaker``'s are."""

    def __init__(self, readings: list[Reading], special: SpecialIds, dropout: SpeechDropout | None = None):
        if not readings:
            raise ValueError("no recognized speech to make windows from")
        self.readings, self.special = readings, special
        self.dropout = dropout or SpeechDropout()
        sizes = np.array([len(r.words) for r in readings])
        self._cumulative = np.cumsum(sizes)

    @property
    def words(self) -> int:
        return int(self._cumulative[-1])

    def make(self, window: int, rng: np.random.Generator) -> Labelled:
        at = int(rng.integers(self.words))
        k = int(np.searchsorted(self._cumulative, at, side="right"))
        reading = self.readings[k]
        end = at - (int(self._cumulative[k - 1]) if k else 0)
        lo = max(0, end - window)  # each word is >= 1 token: enough words
        context = max(0, lo - PACE_WORDS)  # the pace's and the voice's history, as live
        drop = self.dropout
        bare = rng.random() < drop.bare
        silence = rng.random() < drop.last_gap_known
        ids = list(reading.ids[lo : end + 1])
        marks, cases = reading.marks[lo : end + 1].copy(), reading.cases[lo : end + 1].copy()
        if rng.random() < drop.future and len(ids) > 3:
            for j in range(1, int(rng.integers(1, 3)) + 1):
                ids[-j], marks[-j], cases[-j] = (self.special.drop,), IGNORE, IGNORE
        flags, rows = None, np.zeros((len(ids), CUE_COUNT), dtype=np.float32)
        if not bare:
            # The words as the decoder holds them at this moment: nothing after the newest.
            heard = reading.words[context : end + 1]
            rows = word_cues(heard, pause_after_last=silence, hints=False)[lo - context :]
            if rng.random() < drop.audio:
                rows[:, _AUDIO] = 0.0
            flags = pauses_from_times(reading.words[lo : end + 1], DEFAULT_PAUSE_THRESHOLD)
            flags[-1] = silence  # the gap after the newest word is known once a silence has begun
        built = build_window(ids, len(ids) - 1, self.special, flags, window, rows)
        return labelled(built, marks, cases)
