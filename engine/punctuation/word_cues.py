"""What a recognizer's words carry beyond their text, as numbers the tagger reads beside them.

Speakers mark punctuation with time: a pause after the word, a word drawn out before a
boundary (pre-boundary lengthening), a change of pace. And a recognizer that writes its own
marks (Whisper) gives a hint of where they fall. Silva, Theobald and Apostoloff, *Multimodal
punctuation prediction with contextual dropout*, found acoustic cues worth most on commas,
where text alone is least sure; Faber, *Punctuation Prediction for Speech Data*, uses pause
durations. ``word_cues`` turns any recognizer's word times (Vosk, Whisper, PocketSphinx alike)
into one row of ``CUE_NAMES`` per word; ``build_window`` places each row on its word's tokens,
and a model trained with them adds a projection of the row to its token embeddings.

Every cue is 0 when it is unknown, so bare text (no times, no hints) is the all-zero input
that a model trained with text-only windows in its mix reads as it always did.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.prosody.features import PROSODY_FIELDS
from engine.punctuation.recognizer_marks import written_marks
from engine.words import Word

CUE_NAMES = (
    "timed",  # the word has start and end times
    "pause",  # the gap after the word, log-scaled: 0 at 0 s, 1 at PAUSE_SCALE_MAX
    "pause_known",  # the gap after the word is known (a next word has come, or silence began)
    "pause_over_0.15",  # the same gap in bins: a projection of one log-scaled number is a line,
    "pause_over_0.35",  # and the difference between a breath and a sentence end is not
    "pause_over_0.7",
    "lengthening",  # log of the word's time per letter against the speaker's recent pace
    "rate",  # log of the speaker's recent time per letter against a typical one
    "hinted",  # the recognizer wrote this word with its own marks and capitals
    "hint_comma",
    "hint_period",
    "hint_question",
    "hint_capital",  # the recognizer capitalised the word
    # From the audio (``engine.prosody``), against the speaker's recent voice; 0 where unmeasured.
    "prosody_known",  # the word's audio was measured
    "pause_before",  # the gap before the word, scaled as "pause" (a phrase's first word)
    "final_lengthening",  # log of the final syllable's length against the speaker's recent ones
    "f0_slope_end",  # pitch movement over the word's end (falls end statements, rises ask)
    "f0_end_level",  # the word's final pitch against the speaker's recent median pitch
    "pitch_reset",  # the next word's first pitch against this word's last (a new phrase starts high)
    "energy_drop",  # the word's last frames against its loudest
    "silence",  # the quiet heard before the next word, scaled as "pause" (else the recognizer's gap)
    "silence_over_0.15",  # the same in "pause"'s bins: the recognizer's times place a pause,
    "silence_over_0.35",  # the audio measures it
    "silence_over_0.7",
    "silence_relative",  # the same silence against the speaker's recent long pauses: voices differ
    "silence_relative_over_0.5",  # in how long they pause, and a sentence's pause is long for
    "silence_relative_over_0.8",  # the voice that makes it
)
CUE_COUNT = len(CUE_NAMES)
_INDEX = {name: k for k, name in enumerate(CUE_NAMES)}
PAUSE_BINS = (0.15, 0.35, 0.7)
PAUSE_SCALE_MAX = 3.0  # seconds: a longer gap says nothing more
# A typical time per letter (letters + 2, so that short words are not all vowel), in seconds;
# only a reference point for "rate", which the model reads relative to it.
TYPICAL_SECONDS_PER_LETTER = 0.055
PACE_WORDS = 8  # the speaker's recent pace: the median over this many words up to this one
LOG_LIMIT = 1.5  # lengthening and rate are clipped to +-this: a mis-timed word is not evidence
# Scales that bring the audio measures to about +-1 (semitones, semitones per second, dB); each is
# clipped to +-PROSODY_LIMIT, since one mis-tracked pitch must not outweigh the words.
SEMITONES = 6.0
SLOPE_SCALE = 30.0
DROP_SCALE = 20.0
PROSODY_LIMIT = 2.0
PITCH_WORDS = 16  # the speaker's recent pitch and final syllables: over this many words
# The speaker's recent long pauses: the silences of at least LONG_SILENCE seconds after the last
# SILENCE_WORDS words before a word (a read sentence holds a few); TYPICAL_LONG_SILENCE stands in
# until one is heard.
SILENCE_WORDS = 32
LONG_SILENCE = 0.1
TYPICAL_LONG_SILENCE = 0.4
RELATIVE_BINS = (0.5, 0.8)
RELATIVE_LIMIT = 3.0
# The words before a word that its cues read (pace, pitch, final syllables, long pauses): with this
# many before it, a word's row is the same whatever came earlier.
HISTORY_WORDS = max(PACE_WORDS, PITCH_WORDS, SILENCE_WORDS)
_UNMEASURED = (np.nan,) * len(PROSODY_FIELDS)  # a word's ``prosody`` where nobody measured it


def letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text) + 2


def seconds_per_letter(words: Sequence[Word], letter_counts: Sequence[int] | None = None) -> np.ndarray:
    """Each timed word's duration per letter (``letters`` of its text, or ``letter_counts``
    given); NaN where a word has no times."""
    out = np.full(len(words), np.nan)
    for j, w in enumerate(words):
        if w.start is not None and w.end is not None:
            count = letter_counts[j] if letter_counts is not None else letters(w.text)
            out[j] = max(w.end - w.start, 0.02) / count
    return out


def recent_median(values: np.ndarray, count: int) -> np.ndarray:
    """The median of the non-NaN values among the last ``count`` up to each position (NaN where
    there are none): only what was already heard, so a word's cue never moves when later words
    arrive."""
    n = len(values)
    if not n:
        return np.zeros(0)
    padded = np.concatenate([np.full(count - 1, np.nan), values])
    # [n, count] by one gather: on the short runs the live decoder hands over (about 20 words),
    # numpy's per-call overhead is the cost, and a sliding-window view costs more calls.
    recent = padded[np.arange(n)[:, None] + np.arange(count)]
    ordered = np.sort(recent, axis=1)  # NaN sorts last
    found = count - np.isnan(ordered).sum(axis=1)
    rows = np.arange(n)
    low, high = np.maximum(found - 1, 0) // 2, np.minimum(found // 2, count - 1)
    out = (ordered[rows, low] + ordered[rows, high]) / 2
    return np.where(found > 0, out, np.nan)


def recent_pace(per_letter: np.ndarray) -> np.ndarray:
    """The median time per letter over the last ``PACE_WORDS`` timed words up to each word."""
    return recent_median(per_letter, PACE_WORDS)


def written_hint(written: str) -> tuple[str, bool] | None:
    """(mark, capitalised) as a recognizer wrote a word, or None when it wrote nothing of its own."""
    if not written.strip():
        return None
    mark, case, _ = written_marks(Word(written.strip(), written=written))
    return mark, case != "lower"


def word_cues(
    words: Sequence[Word],
    pause_after_last: bool = False,
    hints: bool = True,
    letter_counts: Sequence[int] | None = None,
) -> np.ndarray:
    """One row of ``CUE_NAMES`` per word, float32 [len(words), CUE_COUNT].

    The gap after the last word is unknown (the next word may be on its way) unless
    ``pause_after_last`` says that a silence has begun; it then counts as ``PAUSE_SCALE_MAX``.
    ``hints`` False ignores what the recognizer wrote (the engine alone). ``letter_counts``
    (``letters`` per word) stands in for the words' text where only their lengths are known
    (training windows carry token ids)."""
    n = len(words)
    cues = np.zeros((n, CUE_COUNT), dtype=np.float32)
    if not n:
        return cues
    per_letter = seconds_per_letter(words, letter_counts)
    pace = recent_pace(per_letter)
    timed = ~np.isnan(per_letter)
    cues[:, _INDEX["timed"]] = timed
    with np.errstate(invalid="ignore", divide="ignore"):
        lengthening = np.clip(np.log(per_letter / pace), -LOG_LIMIT, LOG_LIMIT)
        rate = np.clip(np.log(pace / TYPICAL_SECONDS_PER_LETTER), -LOG_LIMIT, LOG_LIMIT)
    cues[:, _INDEX["lengthening"]] = np.where(timed, lengthening, 0.0)
    cues[:, _INDEX["rate"]] = np.where(timed, rate, 0.0)
    gaps = np.full(n, np.nan)
    for j in range(n - 1):
        here, after = words[j], words[j + 1]
        if here.end is not None and after.start is not None:
            gaps[j] = max(0.0, after.start - here.end)
    if pause_after_last and words[-1].end is not None:
        gaps[-1] = PAUSE_SCALE_MAX
    known = ~np.isnan(gaps)
    cues[:, _INDEX["pause_known"]] = known
    g = np.where(known, np.minimum(gaps, PAUSE_SCALE_MAX), 0.0)
    cues[:, _INDEX["pause"]] = np.log1p(g / 0.05) / np.log1p(PAUSE_SCALE_MAX / 0.05)
    for name, edge in zip(("pause_over_0.15", "pause_over_0.35", "pause_over_0.7"), PAUSE_BINS):
        cues[:, _INDEX[name]] = known & (g >= edge)
    cues[1:, _INDEX["pause_before"]] = cues[:-1, _INDEX["pause"]] * known[:-1]
    silence = gaps  # where no silence was heard (a journal's words keep no audio), the times' gap
    if any(w.prosody for w in words):
        silence = prosody_cues(words, cues, silence)
    set_silence(cues, silence)
    if hints:
        for j, w in enumerate(words):
            hint = written_hint(w.written) if w.written else None
            if hint is not None:
                set_hint(cues[j], *hint)
    return cues


def prosody_cues(words: Sequence[Word], cues: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Fill the audio's columns of ``cues`` from each word's ``prosody`` (``PROSODY_FIELDS``).
    Returns the silence after each word: heard before the next word where it was measured, else
    ``gaps`` (the recognizer's, NaN where unknown)."""
    n = len(words)
    measured = np.array([bool(w.prosody) for w in words])
    table = np.array([w.prosody or _UNMEASURED for w in words], dtype=np.float64).reshape(n, -1)
    columns_of = {name: table[:, k] for k, name in enumerate(PROSODY_FIELDS)}
    f0_start, f0_end, slope = columns_of["f0_start"], columns_of["f0_end"], columns_of["f0_slope_end"]
    drop, final = columns_of["energy_drop_db"], columns_of["final_syllable"]
    # One numpy call per step where it can be: the live decoder calls this once per word.
    pitch = np.where(
        np.isnan(f0_start), f0_end, np.where(np.isnan(f0_end), f0_start, (f0_start + f0_end) / 2)
    )
    voice = recent_median(pitch, PITCH_WORDS)
    typical_final = recent_median(final, PITCH_WORDS)
    reset = np.full(n, np.nan)
    reset[:-1] = f0_start[1:] - f0_end[:-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.column_stack(
            [
                np.log(np.maximum(final, 0.01) / np.maximum(typical_final, 0.01)),  # final_lengthening
                slope / SLOPE_SCALE,  # f0_slope_end
                (f0_end - voice) / SEMITONES,  # f0_end_level
                reset / SEMITONES,  # pitch_reset
                drop / DROP_SCALE,  # energy_drop
            ]
        )
    cues[:, _INDEX["prosody_known"]] = measured
    cues[:, _PROSODY_COLUMNS] = np.where(
        np.isnan(values), 0.0, np.clip(values, -_PROSODY_LIMITS, _PROSODY_LIMITS)
    )
    heard = np.full(n, np.nan)
    heard[:-1] = columns_of["silence_before"][1:]
    return np.where(np.isnan(heard), gaps, heard)


def set_silence(cues: np.ndarray, silence: np.ndarray) -> None:
    """The silence columns from the silence after each word, in seconds (NaN: not known yet),
    scaled and binned as the pause is."""
    known = ~np.isnan(silence)
    quiet = np.where(known, np.clip(silence, 0.0, PAUSE_SCALE_MAX), 0.0)
    cues[:, _INDEX["silence"]] = np.log1p(quiet / 0.05) / np.log1p(PAUSE_SCALE_MAX / 0.05)
    for name, edge in zip(("silence_over_0.15", "silence_over_0.35", "silence_over_0.7"), PAUSE_BINS):
        cues[:, _INDEX[name]] = known & (quiet >= edge)
    # The long pauses heard before each word's own (so a pause is not measured against itself).
    long_before = np.full(len(silence), np.nan)
    long_before[1:] = np.where(known[:-1] & (quiet[:-1] >= LONG_SILENCE), quiet[:-1], np.nan)
    typical = recent_median(long_before, SILENCE_WORDS)
    typical = np.where(np.isnan(typical), TYPICAL_LONG_SILENCE, typical)
    relative = np.where(known, np.minimum(quiet / typical, RELATIVE_LIMIT), 0.0)
    cues[:, _INDEX["silence_relative"]] = relative / RELATIVE_LIMIT
    for name, edge in zip(("silence_relative_over_0.5", "silence_relative_over_0.8"), RELATIVE_BINS):
        cues[:, _INDEX[name]] = known & (relative >= edge)


_PROSODY_COLUMNS = [
    _INDEX[n] for n in ("final_lengthening", "f0_slope_end", "f0_end_level", "pitch_reset", "energy_drop")
]
_PROSODY_LIMITS = np.array([LOG_LIMIT, PROSODY_LIMIT, PROSODY_LIMIT, PROSODY_LIMIT, PROSODY_LIMIT])


def set_hint(row: np.ndarray, mark: str, capital: bool) -> None:
    """Write a recognizer's mark and capital into one word's cue row (training draws them too)."""
    row[_INDEX["hinted"]] = 1.0
    if mark != "none":
        row[_INDEX[f"hint_{mark}"]] = 1.0
    row[_INDEX["hint_capital"]] = float(capital)


def cue_index(name: str) -> int:
    return _INDEX[name]
