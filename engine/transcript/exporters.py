"""The render functions of TXT, JSON, SRT and WebVTT: a Transcript as the text of one file.

Every one takes the same arguments (``formats.Renderer``): the transcript, the ``SpeakerNames`` to
show a meeting's speakers by (default names when None), and the language spoken with whether the
words are an English translation of it, which only the formats that carry the language read
(``ExportFormat.carries_language``). TXT and SRT start a paragraph or a cue with "Name: " where the
speaker changes, WebVTT marks every cue with its voice (``<v Name>…</v>``), JSON keeps each word's
speaker id and maps the ids to names. A one-source transcript (speaker "") exports as it always did.
"""

from __future__ import annotations

import json

from engine.speakers.labels import SpeakerNames
from engine.transcript.cues import make_cues
from engine.transcript.transcript import Transcript

__all__ = ["to_json", "to_srt", "to_txt", "to_vtt", "translation_note"]


# ---------------------------------------------------------------- plain formats


def to_txt(
    t: Transcript, names: SpeakerNames | None = None, *, language: str | None = None, translated: bool = False
) -> str:
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


def translation_note(language: str | None) -> str:
    """What a translated export says of its words, so nobody takes them for the speakers' own:
    "English translation of German speech by Whisper, not the speakers' own words." (the spoken
    language named where known)."""
    from engine.recognizers.language_pack import language_title

    spoken = f" of {language_title(language)} speech" if language and language != "en" else ""
    return f"English translation{spoken} by Whisper, not the speakers' own words."


# ---------------------------------------------------------------- subtitle formats


def _timestamp(seconds: float, separator: str) -> str:
    ms = max(0, round(seconds * 1000))
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{ms:03d}"


def to_srt(
    t: Transcript, names: SpeakerNames | None = None, *, language: str | None = None, translated: bool = False
) -> str:
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
        blocks.append(f"NOTE\n{translation_note(language)}\n")
    for cue in make_cues(t):
        times = f"{_timestamp(cue.start, '.')} --> {_timestamp(cue.end, '.')}"
        text = _vtt_escape(cue.text)
        voice = _vtt_voice(names.name(cue.speaker))
        if voice:  # every cue says who speaks it: a player shows or styles it per cue
            text = f"<v {voice}>{text}</v>"
        blocks.append(f"{times}\n{text}\n")
    return "\n".join(blocks)
