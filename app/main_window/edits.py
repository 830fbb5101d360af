"""Edits to a finished transcript, carried back onto its words so exports keep them.

After a session the window shows the transcript as editable text. Subtitles need every
word's time, and the text box knows none, so an edit is re-tokenised and aligned to the
transcript it started from (``difflib`` over the words, compared without case or
punctuation):

* a word that matches keeps its times and confidence; its mark and case come from the
  text as edited (so fixing a comma or a capital is kept);
* words typed in place of others share the replaced words' time span evenly;
* inserted words get the silence between their neighbours (or sit at a neighbour's edge);
* deleted words are gone.

Marks: a trailing "," ";" or ":" is a comma, "." a period, "?" a question (the marks the
transcript knows); anything else that no mark can say, such as "!", quotes or "…", stays in
the word's explicit spelling (``form``), so TXT exports keep it exactly as typed (an "!"
then does not end a subtitle cue's sentence). Case becomes
lower/capitalized/upper, or an explicit form ("iPhone").
Paragraph breaks are not kept: transcripts derive paragraphs from pauses.

Speakers: a meeting's finished text starts a line with the speaker's label ("Me:") where the
speaker changes. Given the labels shown (``labels``), a label at the start of a line is not a
word: it says whose the words after it are, so moving a line to another speaker (typing "Ana:"
over "Me:") is kept too. A word keeps its speaker where no label says otherwise.

Qt-free, so it is tested without a display.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from engine import Transcript, TranscriptWord, apply_case

_MARKS = {",": "comma", ";": "comma", ":": "comma", ".": "period", "?": "question"}
_CORE = re.compile(r"[\w'’-]+")


def normalise(token: str) -> str:
    """What two spellings of one word share: letters and digits, lowercased."""
    return "".join(_CORE.findall(token)).lower().replace("’", "'")


def parse_token(token: str) -> TranscriptWord:
    """One whitespace-separated token as typed, as a word with its mark and case (no times)."""
    mark, body = "none", token
    if body and body[-1] in _MARKS and len(body) > 1 and body[-2] not in ".?!,;:":
        mark, body = _MARKS[body[-1]], body[:-1]
    text = normalise(body) or body.lower()
    case = "lower"
    if body == apply_case(text, "capitalized") and body != text:
        case = "capitalized"
    elif body == text.upper() and body != text:
        case = "upper"
    form = None if apply_case(text, case) == body else body
    return TranscriptWord(text, mark=mark, case=case, form=form)


def labelled_tokens(edited_text: str, labels: Mapping[str, str]) -> tuple[list[str], list[str | None]]:
    """(the words of ``edited_text``, the speaker each follows a label of, or None), a label
    (a key of ``labels``, e.g. "Me:") at the start of a line taken as a speaker, not as words."""
    tokens: list[str] = []
    speakers: list[str | None] = []
    speaker = None
    longest_first = sorted(labels, key=len, reverse=True)
    for line in edited_text.splitlines():
        text = line.strip()
        label = next((lab for lab in longest_first if text.startswith(lab)), None)
        if label is not None:
            speaker, text = labels[label], text[len(label) :]
        words = text.split()
        tokens += words
        speakers += [speaker] * len(words)
    return tokens, speakers


def apply_edits(
    baseline: Transcript,
    edited_text: str,
    display: Callable[[str], str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> Transcript:
    """``baseline`` with ``edited_text``'s words, marks and case, and times kept where words match.

    ``display`` maps a baseline word to how the editor showed it (the profanity mask), so a
    word left as shown matches its original and keeps the original spelling in the export.
    ``labels``: the speaker labels the text was shown with ("Me:" → "me"), see the module docstring.
    """
    old = baseline.words
    shown = [display(w.display) if display else w.display for w in old]
    tokens, speakers = labelled_tokens(edited_text, labels or {})
    new_keys = [normalise(t) for t in tokens]
    old_keys = [normalise(s) for s in shown]
    out: list[TranscriptWord] = []
    matcher = difflib.SequenceMatcher(a=old_keys, b=new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            continue
        parsed = []
        for j in range(j1, j2):
            if tag == "equal" and display and tokens[j] == shown[i1 + j - j1]:
                parsed.append(_copy(old[i1 + j - j1]))  # untouched (possibly masked): keep the original
            else:
                parsed.append(parse_token(tokens[j]))
        if tag == "equal":
            for k, word in enumerate(parsed):
                _take_times(word, old[i1 + k])
        elif tag == "replace":
            _spread(parsed, old[i1].start, old[i2 - 1].end, [old[i].confidence for i in range(i1, i2)])
        else:  # insert: the gap between the neighbours
            before = out[-1].end if out else None
            after = old[i1].start if i1 < len(old) else None
            start = before if before is not None else after
            end = after if after is not None else before
            _spread(parsed, start, end, [1.0])
        for k, word in enumerate(parsed):
            speaker = speakers[j1 + k] if speakers[j1 + k] is not None else _speaker_near(old, i1 + k)
            if word.heard.speaker != speaker:
                word.heard = replace(word.heard, speaker=speaker)
        out.extend(parsed)
    return Transcript(out)


def _speaker_near(old: list[TranscriptWord], i: int) -> str:
    """The speaker of the baseline word at (or, past the end, before) ``i``; "" without one."""
    if not old:
        return ""
    return old[min(i, len(old) - 1)].heard.speaker


def _copy(word: TranscriptWord) -> TranscriptWord:
    return replace(word, settled=False)  # the whole word, not taken as settled: no edited word is


def _take_times(word: TranscriptWord, source: TranscriptWord) -> None:
    word.start, word.end, word.confidence = source.start, source.end, source.confidence
    if word.text == normalise(source.text):
        word.text = source.text  # the recognizer's spelling, e.g. with its apostrophe


def _spread(words: list[TranscriptWord], start: float | None, end: float | None, confidences) -> None:
    if start is None or end is None:
        return  # the baseline had no times here; exports that need them will say so
    end = max(end, start)
    step = (end - start) / max(1, len(words))
    for k, word in enumerate(words):
        word.start, word.end = round(start + k * step, 3), round(start + (k + 1) * step, 3)
        word.confidence = 1.0  # typed by a person
