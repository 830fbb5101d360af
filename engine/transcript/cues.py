"""Subtitle cues: a transcript laid out as the timed blocks SRT and WebVTT show.

The layout follows common broadcast guidelines: at most two lines of at most 42 characters, at
most 7 seconds on screen, and a cue never carries the end of one sentence together with the start
of the next (a reader should not have to re-parse a sentence boundary in the middle of a cue). A
cue never carries two speakers either: a meeting's cue holds one speaker's words.

``ExportError`` lives here, below every format: laying out cues is the one way rendering can fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.speakers.labels import SpeakerNames
from engine.transcript.transcript import Segment, Transcript, TranscriptWord

__all__ = ["MIN_CUE_DURATION", "Cue", "ExportError", "balance_lines", "make_cues", "wrap_tokens"]

MIN_CUE_DURATION = 0.5  # seconds; shorter cues flash by unread
# A silence this long after a word makes it as good a place to cut a cue as a comma.
_BREAK_PAUSE = 0.5
# Cost of cutting a long sentence where there is neither a comma nor a pause.
# Larger than the typical gain from balancing, smaller than one extra cue.
_WEAK_BREAK_COST = 0.3


class ExportError(ValueError):
    """The transcript cannot be written in the requested format; the message says what to do."""


@dataclass
class Cue:
    """One subtitle: shown from ``start`` to ``end`` seconds, ``lines`` top to bottom."""

    start: float
    end: float
    lines: list[str]
    span: Segment | None = None  # the transcript words this cue shows
    speaker: str = ""  # who speaks its words (one speaker a cue); "" in a one-source transcript

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def wrap_tokens(tokens: Sequence[str], width: int) -> list[list[str]]:
    """Greedy word wrap; a token longer than ``width`` stands alone on its line."""
    lines: list[list[str]] = []
    length = 0
    for token in tokens:
        if lines and length + 1 + len(token) <= width:
            lines[-1].append(token)
            length += 1 + len(token)
        else:
            lines.append([token])
            length = len(token)
    return lines


def balance_lines(tokens: Sequence[str], max_chars: int, max_lines: int) -> list[str] | None:
    """Wrap ``tokens`` into as few lines as possible, then make those lines as even as possible.

    Returns None when the tokens need more than ``max_lines`` lines.
    Balancing: the smallest width that still wraps into the same number of
    lines gives the most even split (greedy wrapping needs fewer lines as the
    width grows, so a binary search finds it).
    """
    count = len(wrap_tokens(tokens, max_chars))
    if count > max_lines:
        return None
    lo, hi = 1, max_chars
    while lo < hi:
        mid = (lo + hi) // 2
        if len(wrap_tokens(tokens, mid)) <= count:
            hi = mid
        else:
            lo = mid + 1
    return [" ".join(line) for line in wrap_tokens(tokens, lo)]


def make_cues(
    t: Transcript,
    max_chars: int = 42,
    max_lines: int = 2,
    max_duration: float = 7.0,
    names: SpeakerNames | None = None,
) -> list[Cue]:
    """Lay the transcript out as subtitle cues. Needs word timings (raises ExportError otherwise).

    A cue holds one speaker's words. With ``names``, the first cue after a change of speaker
    starts with the speaker's name ("Me: "), laid out as part of its first word (so the name
    never ends a line alone)."""
    if max_chars < 1 or max_lines < 1 or max_duration <= 0:
        raise ValueError("max_chars and max_lines must be at least 1, max_duration positive")
    _require_times(t)
    tokens = [w.display for w in t.words]
    if names is not None:
        for i in _turn_starts(t.words):
            tokens[i] = names.line_label(t.words[i].speaker) + tokens[i]
    spans: list[Segment] = []
    for sentence in t.sentences():
        for part in _one_speaker_parts(t.words, sentence):
            spans.extend(_split_sentence(t.words, tokens, part, max_chars, max_lines, max_duration))

    cues = []
    for span in spans:
        words = t.segment_words(span)
        lines = balance_lines(tokens[span.start_index : span.end_index], max_chars, max_lines)
        assert lines is not None  # _split_sentence only returns spans that fit
        end = max(w.end for w in words)  # type: ignore[type-var]
        cues.append(Cue(words[0].start, end, lines, span, words[0].speaker))  # type: ignore[arg-type]
    _fix_times(cues, max_duration)
    return cues


def _turn_starts(words: list[TranscriptWord]) -> list[int]:
    """Where a speaker's turn starts: the first word, and each word whose speaker differs from the
    one before it (one-source words, speaker "", start none)."""
    return [i for i, w in enumerate(words) if w.speaker and (i == 0 or words[i - 1].speaker != w.speaker)]


def _one_speaker_parts(words: list[TranscriptWord], sentence: Segment) -> list[Segment]:
    """``sentence`` cut where the speaker changes (a cue never carries two speakers)."""
    cuts = [
        i for i in sentence.indices() if i > sentence.start_index and words[i].speaker != words[i - 1].speaker
    ]
    bounds = [sentence.start_index, *cuts, sentence.end_index]
    return [Segment(a, b) for a, b in zip(bounds, bounds[1:])]


def _split_sentence(
    words: list[TranscriptWord],
    tokens: list[str],
    sentence: Segment,
    max_chars: int,
    max_lines: int,
    max_duration: float,
) -> list[Segment]:
    """Cut one sentence into the fewest cues that fit, preferring even cues cut at commas or pauses.

    Dynamic programming over cut points: best[k] is the cheapest layout of the
    sentence's first k words, with cost (number of cues, penalty) compared as a
    tuple so that fewer cues always win and the penalty only picks among them.
    """
    base = sentence.start_index
    n = len(sentence)
    lengths = [len(tokens[base + k]) for k in range(n)]  # each word as the cue shows it
    capacity = max_chars * max_lines
    inf = (float("inf"), float("inf"))
    best: list[tuple[float, float]] = [(0, 0.0)] + [inf] * n
    back = [0] * (n + 1)
    for i in range(n):
        if best[i] == inf:
            continue
        lines, line_len, chars = 1, -1, -1
        for j in range(i, n):  # candidate cue: words i..j of the sentence
            # Extend the greedy wrap by one token (the same rule as wrap_tokens).
            if line_len < 0:
                line_len = lengths[j]
            elif line_len + 1 + lengths[j] <= max_chars:
                line_len += 1 + lengths[j]
            else:
                lines, line_len = lines + 1, lengths[j]
            chars += 1 + lengths[j]
            if lines > max_lines:
                break
            # A single word always makes a cue, however long it lasts: a word
            # cannot be split, and _fix_times clips its display time.
            if j > i and words[base + j].end - words[base + i].start > max_duration:  # type: ignore[operator]
                break
            slack = 1.0 - min(1.0, chars / capacity)
            penalty = slack * slack
            if j < n - 1 and not _good_break(words, base + j):
                penalty += _WEAK_BREAK_COST
            cost = (best[i][0] + 1, best[i][1] + penalty)
            if cost < best[j + 1]:
                best[j + 1], back[j + 1] = cost, i
    spans: list[Segment] = []
    k = n
    while k > 0:
        spans.append(Segment(base + back[k], base + k))
        k = back[k]
    return spans[::-1]


def _good_break(words: list[TranscriptWord], i: int) -> bool:
    """A cue may end after word i without hurting reading: a comma, or a pause follows it."""
    if words[i].mark == "comma":
        return True
    nxt = i + 1
    return nxt < len(words) and words[nxt].start - words[i].end >= _BREAK_PAUSE  # type: ignore[operator]


def _fix_times(cues: list[Cue], max_duration: float) -> None:
    """Round to milliseconds and make the cues play in order without overlap.

    Rounding here rather than in the writers means the cue list and the written
    file agree exactly, and the clipping below is done on the values written.
    """
    previous_start = 0.0
    for cue in cues:
        # Word times from a recognizer can jitter backwards; a subtitle file must not.
        cue.start = max(round(cue.start, 3), previous_start)
        previous_start = cue.start
    for k, cue in enumerate(cues):
        end = max(cue.end, cue.start + MIN_CUE_DURATION)
        end = min(end, cue.start + max_duration)
        if k + 1 < len(cues):
            end = min(end, cues[k + 1].start)
        cue.end = max(round(end, 3), cue.start)


def _require_times(t: Transcript) -> None:
    if not t.has_times:
        raise ExportError(
            "This transcript has no word timings, which subtitle cues need; "
            "transcribe from audio to get them."
        )
