"""The Markdown export: a transcript as a meeting's notes.

A title line, then the paragraphs of the text (the same ``ParagraphRule`` as every export). A
meeting's speakers head their turns (``## Ana``) where the speaker changes; each paragraph starts
with the time it was said (``**[1:05]**``) where its first word has one, and is plain where it has
none. The words are escaped so a caption never turns into formatting: "*nix" or "#1" stay as said.
"""

from __future__ import annotations

import re

from engine.elapsed import format_elapsed
from engine.speakers.labels import SpeakerNames
from engine.transcript.exporters import translation_note
from engine.transcript.transcript import Transcript

__all__ = ["escape_markdown", "to_markdown"]

# Characters that start emphasis, code, links, HTML, entities, headings, tables or strikethrough
# anywhere in a line (CommonMark and its GitHub extensions); a backslash makes each one literal.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")
# What makes a line a list item or a thematic break, only at the line's start (the blank line
# between blocks rules out a setext underline).
_LINE_START = re.compile(r"^(\d{1,9})([.)])(?=\s|$)|^([-+])")


def escape_markdown(text: str) -> str:
    """``text`` as one line of Markdown that shows exactly ``text`` (spaces collapsed)."""
    line = _INLINE_SPECIAL.sub(r"\\\1", " ".join(text.split()))
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", line)


def to_markdown(
    t: Transcript, names: SpeakerNames | None = None, *, language: str | None = None, translated: bool = False
) -> str:
    """``names``: what a meeting's speaker headings say (default names when None). ``translated``:
    a line under the title says the words are an English translation (of ``language``, where
    known), so nobody takes them for the speakers' own."""
    names = names or SpeakerNames()
    blocks = ["# Meeting notes" if t.speakers() else "# Transcript"]
    if translated:
        blocks.append(f"*{escape_markdown(translation_note(language))}*")
    speaker = None
    for paragraph in t.paragraphs():
        first = t.words[paragraph.start_index]
        if first.speaker != speaker and first.speaker:
            blocks.append(f"## {escape_markdown(names.name(first.speaker))}")
        speaker = t.words[paragraph.last_index].speaker
        text = escape_markdown(t.segment_text(paragraph))
        blocks.append(text if first.start is None else f"**[{format_elapsed(first.start)}]** {text}")
    return "\n\n".join(blocks) + "\n"
