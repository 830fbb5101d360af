"""Exporters: a Transcript to TXT, JSON, SRT and WebVTT.

Subtitle layout follows common broadcast guidelines: at most two lines of at
most 42 characters, at most 7 seconds on screen, and a cue never carries the
end of one sentence together with the start of the next (a reader should not
have to re-parse a sentence boundary in the middle of a cue).

A meeting's words carry who spoke (``TranscriptWord.speaker``); every exporter takes the
``SpeakerNames`` to show them by (default names when None). TXT and SRT start a paragraph or a
cue with "Name: " where the speaker changes, WebVTT marks every cue with its voice
(``<v Name>…</v>``), JSON keeps each word's speaker id and maps the ids to names. A cue never
carries two speakers. A one-source transcript (speaker "") exports as it always did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from engine.files.atomic import atomic_write_text
from engine.speakers.labels import SpeakerNames
from engine.transcript.transcript import Segment, Transcript, TranscriptWord

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


# ---------------------------------------------------------------- plain formats


def to_txt(t: Transcript, names: SpeakerNames | None = None) -> str:
    text = t.text(names=names)
    return text + "\n" if text else ""


def to_json(
    t: Transcript, names: SpeakerNames | None = None, *, language: str | None = None, translated: bool = False
) -> str:
    """``language`` (the spoken one) and ``translated`` (the words are an English translation of
    it) are written where either is known, so a reader can tell German words from English ones."""
    data = t.to_dict(names)
    if language is not None or translated:
        head = {k: data.pop(k) for k in ("format", "version")}
        data = {**head, "language": language, "translated": translated, **data}
    # ensure_ascii=False: the file is UTF-8, and "café" should stay readable in it.
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------- cue layout


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
            "This transcript has no word timings, which subtitles need; "
            "export as TXT or JSON, or transcribe from audio to get SRT or VTT."
        )


# ---------------------------------------------------------------- subtitle formats


def _timestamp(seconds: float, separator: str) -> str:
    ms = max(0, round(seconds * 1000))
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{ms:03d}"


def to_srt(t: Transcript, names: SpeakerNames | None = None) -> str:
    blocks = []
    for index, cue in enumerate(make_cues(t, names=names or SpeakerNames()), start=1):
        times = f"{_timestamp(cue.start, ',')} --> {_timestamp(cue.end, ',')}"
        blocks.append(f"{index}\n{times}\n{cue.text}\n")
    return "\n".join(blocks)


def _vtt_escape(text: str) -> str:
    # WebVTT cue text is markup: a bare "<" or "&" would start a tag or an entity.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _vtt_voice(name: str) -> str:
    """A speaker's name as a voice tag's annotation: one line, no bare "&" or ">" (the WebVTT
    grammar of a start tag annotation); "<" is escaped too, as everywhere in cue text."""
    return _vtt_escape(" ".join(name.split()))


def to_vtt(
    t: Transcript, names: SpeakerNames | None = None, *, language: str | None = None, translated: bool = False
) -> str:
    """``translated``: a NOTE after the header says the captions are an English translation (of
    ``language``, where known), so nobody takes them for the speaker's own words."""
    names = names or SpeakerNames()
    blocks = ["WEBVTT\n"]
    if translated:
        from engine.recognizers.language_pack import language_title

        spoken = f" of {language_title(language)} speech" if language and language != "en" else ""
        blocks.append(f"NOTE\nEnglish translation{spoken} by Whisper, not the speakers' own words.\n")
    for cue in make_cues(t):
        times = f"{_timestamp(cue.start, '.')} --> {_timestamp(cue.end, '.')}"
        text = _vtt_escape(cue.text)
        voice = _vtt_voice(names.name(cue.speaker))
        if voice:  # every cue says who speaks it: a player shows or styles it per cue
            text = f"<v {voice}>{text}</v>"
        blocks.append(f"{times}\n{text}\n")
    return "\n".join(blocks)


# ---------------------------------------------------------------- files

# Each takes the transcript and the speaker names (None: the defaults); those that say the language
# (``ABOUT_LANGUAGE``) also take ``language`` and ``translated``.
FORMATS: dict[str, Callable[[Transcript, SpeakerNames | None], str]] = {
    "txt": to_txt,
    "srt": to_srt,
    "vtt": to_vtt,
    "json": to_json,
}


ABOUT_LANGUAGE = ("json", "vtt")


def format_from_path(path: str | os.PathLike[str]) -> str | None:
    """The format named by the file's extension ("talk.SRT" -> "srt"), or None if unknown."""
    fmt = Path(path).suffix.lower().lstrip(".")
    return fmt if fmt in FORMATS else None


SENTENCE_END_TEXT = (".", "!", "?", "…")


def ended(t: Transcript) -> Transcript:
    """``t`` with a sentence-final mark on its last word: the end of a session is the end of a
    sentence. ``repunctuate`` already picks period or question by the model; a transcript that
    did not go through it (a live one, a recovered journal) gets a period."""
    # A user's edit can end the text itself: "thanks!" keeps its "!" in the word's form.
    if not t.words or t.words[-1].ends_sentence or t.words[-1].word.endswith(SENTENCE_END_TEXT):
        return t
    words = list(t.words)
    words[-1] = replace(words[-1], mark="period")
    return replace(t, words=words)


def render(
    t: Transcript,
    fmt: str,
    end_sentence: bool = True,
    names: SpeakerNames | None = None,
    language: str | None = None,
    translated: bool = False,
) -> str:
    """The text of ``t`` in ``fmt`` (a key of FORMATS), its last sentence ended (``ended``) unless
    ``end_sentence`` is False: words of a language the punctuation model does not know pass
    through unmarked, and a period after the last one would be the one English mark among them.
    ``names``: the names a meeting's speakers are shown by (None: the defaults). ``language``
    (spoken) and ``translated`` (English captions of it): in the JSON, and a VTT's NOTE."""
    about = {"language": language, "translated": translated} if fmt in ABOUT_LANGUAGE else {}
    return FORMATS[fmt](ended(t) if end_sentence else t, names, **about)


def export(
    t: Transcript,
    fmt: str | None,
    path: str | os.PathLike[str],
    end_sentence: bool = True,
    names: SpeakerNames | None = None,
    language: str | None = None,
    translated: bool = False,
) -> Path:
    """Write ``t`` to ``path`` in ``fmt`` (guessed from the extension when None). Returns the path.
    ``end_sentence``, ``names``, ``language`` and ``translated``: as for ``render``.

    The text is rendered before the file is touched, so a transcript that
    cannot be exported leaves an existing file exactly as it was.
    """
    if fmt is None:
        fmt = format_from_path(path)
        if fmt is None:
            raise ExportError(
                f"Cannot tell the export format from {Path(path).name!r}; "
                f"use one of the extensions: {', '.join('.' + f for f in FORMATS)}."
            )
    key = fmt.lower().lstrip(".")
    if key not in FORMATS:
        raise ExportError(f"Unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}.")
    text = render(t, key, end_sentence, names, language, translated)
    atomic_write_text(path, text)
    return Path(path)
