"""Who spoke, as the captions show it: a meeting's speaker labels in the window and the overlay.

In a meeting every word carries a speaker id (``Word.speaker``: "me", "others", "others:N").
The caption view starts a new line with the speaker's name wherever the speaker changes
("Me: …", "Others 1: …"), the name in the speaker's colour (``app.theme.speaker_color``) and
in bold. The name is part of the text, not a decoration, so a screen reader reads "Me: …" and
Copy takes it. The overlay, which has less room, shows a compact label ("Me›", "Ana›", "O2›")
at the same changes, in the same colours. A one-source session (speaker "") shows no label.

Qt-light: only the labels' character formats need QtGui.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument

from app.captions.style import LABEL_PROPERTY
from app.theme import speaker_color
from engine import CaptionFold, SpeakerNames, Transcript, words_by_speaker

COMPACT_END = "›"  # after the overlay's compact name: "Me›"
COMPACT_MAX = 8  # letters of a one-word name the overlay shows whole


def compact_label(names: SpeakerNames, speaker: str) -> str:
    """The overlay's label: one token, no spaces (the overlay wraps at spaces). A short one-word
    name whole ("Me›", "Ana›"); a numbered name by its initial and number ("Others 2" → "O2›");
    else the first word, or initials when that is long too ("Ana María" → "Ana›")."""
    if not speaker:
        return ""
    words = names.name(speaker).split() or [speaker]
    if len(words) == 1 and len(words[0]) <= COMPACT_MAX:
        short = words[0]
    elif len(words) > 1 and words[-1].isdigit():
        short = "".join(w[0] for w in words[:-1]) + words[-1]
    elif len(words[0]) <= COMPACT_MAX:
        short = words[0]
    else:
        short = "".join(w[0] for w in words).upper()
    return f"{short}{COMPACT_END}"


def label_format(speaker: str, dark: bool, italic: bool = False) -> QTextCharFormat:
    """The character format of ``speaker``'s name on a dark or light background, marked as a label
    (``LABEL_PROPERTY``: the paragraph's direction is its words', not the name's)."""
    fmt = QTextCharFormat()
    fmt.setProperty(LABEL_PROPERTY, True)
    fmt.setForeground(QColor(speaker_color(speaker, dark)))
    fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


def partial_runs(
    partial: Iterable, last_speaker: str | None, names: SpeakerNames, show: Callable[[str], str]
) -> tuple[tuple[str, str], ...]:
    """The recognizer's unstable words as (text, speaker whose label it is, or None for words)
    runs after the text, whose last word was ``last_speaker``'s (None: no text yet). Each side's
    words continue its own line: the side that spoke last goes on where the text ends, any
    other starts a new line with its label. In a one-source session: " word word"."""
    runs: list[tuple[str, str | None]] = []
    line = last_speaker
    for speaker, words in words_by_speaker(partial, last_speaker):
        text = " ".join(show(w.text) for w in words)
        before = line is not None or bool(runs)
        if speaker == line or (not speaker and line is None):
            runs.append(((" " if before else "") + text, None))
        else:
            runs.append(("\n" if before else "", None))
            runs.append((names.line_label(speaker), speaker))
            runs.append((text, None))
        line = speaker
    return tuple(run for run in runs if run[0])


def labelled_paragraphs(
    transcript: Transcript, names: SpeakerNames, show: Callable[[str], str], rule
) -> list[str]:
    """The finished text's paragraphs (``rule``'s), a meeting's also broken where the speaker
    changes, each change starting with the speaker's label, as the live captions showed it."""
    paragraphs, speaker = [], None
    for segment in transcript.paragraphs(rule):
        words = transcript.segment_words(segment)
        text: list[str] = []
        for word in words:
            if word.heard.speaker != speaker and text:
                paragraphs.append(" ".join(text))
                text = []
            if word.heard.speaker != speaker:
                speaker = word.heard.speaker
                text.append(names.line_label(speaker).rstrip())
                text = [t for t in text if t]
            text.append(show(word.display))
        paragraphs.append(" ".join(text))
    return paragraphs


def label_speakers(names: SpeakerNames, speakers: Iterable[str]) -> dict[str, str]:
    """Each label of the finished text ("Me:") to its speaker id: how edits tell who spoke."""
    return {names.line_label(s).rstrip(): s for s in speakers if s}


def overlay_tail(
    fold: CaptionFold, names: SpeakerNames, show: Callable[[str], str] = str, settled_words: int = 200
) -> tuple[str, str, dict[str, str]]:
    """(settled text, open text, {compact label: speaker id}) for the overlay from ``fold`` (the
    caption feed's): the last ``settled_words`` settled words (more than the overlay's most lines
    hold), then the words still open and each side's unstable words, with a compact label where
    the speaker changes and before the first word passed (the overlay repeats the label in force
    on its top row, so it needs to know whose words begin the text)."""
    words, settled, partial = fold.words, fold.settled, fold.unstable
    first_open = len(words)
    while first_open > 0 and not settled[first_open - 1]:
        first_open -= 1
    start = max(0, first_open - settled_words)
    labels: dict[str, str] = {}
    previous = None

    def tokens(items: list[tuple[str, str]]) -> list[str]:
        nonlocal previous
        out = []
        for speaker, text in items:
            if speaker and speaker != previous:
                label = compact_label(names, speaker)
                labels[label] = speaker
                out.append(label)
            out.append(text)
            previous = speaker
        return out

    done = tokens([(w.heard.speaker, show(w.display)) for w in words[start:first_open]])
    pending = [(w.heard.speaker, show(w.display)) for w in words[first_open:]]
    last = words[-1].heard.speaker if words else None
    for speaker, group in words_by_speaker(partial, last):
        pending += [(speaker, show(w.text)) for w in group]
    return " ".join(done), " ".join(tokens(pending)), labels


def format_labels(
    document: QTextDocument, labels: dict[str, str], format_of: Callable[[str], QTextCharFormat]
) -> None:
    """Give each paragraph's leading label of ``document`` (``labels``: ``label_speakers``'s) its
    speaker's format, ``format_of(speaker)``, as the live captions draw it; the text stays as it is.
    The space after a label keeps the text's format, so what is typed after it is not a name."""
    ordered = sorted(labels.items(), key=lambda item: -len(item[0]))  # "Others 12:" before "Others 1:"
    cursor = QTextCursor(document)
    block = document.begin()
    while block.isValid():
        text = block.text()
        for label, speaker in ordered:
            if text == label or text.startswith(label + " "):
                cursor.setPosition(block.position())
                cursor.setPosition(block.position() + len(label), QTextCursor.MoveMode.KeepAnchor)
                cursor.mergeCharFormat(format_of(speaker))
                break
        block = block.next()


def relabel(text: str, old: SpeakerNames, new: SpeakerNames, speakers: Iterable[str]) -> str:
    """``text`` (finished paragraphs) with each paragraph's leading label of ``old`` names replaced
    by the same speaker's label of ``new`` names: a rename after Stop reaches the text shown,
    edits and all. Labels are matched longest first, so "Others 12:" is never read as "Others 1"."""
    swaps = sorted(
        ((old.line_label(s).rstrip(), new.line_label(s).rstrip()) for s in speakers if s),
        key=lambda pair: -len(pair[0]),
    )
    lines = []
    for line in text.split("\n"):
        for before, after in swaps:
            if line == before or line.startswith(before + " "):
                line = after + line[len(before) :]
                break
        lines.append(line)
    return "\n".join(lines)
