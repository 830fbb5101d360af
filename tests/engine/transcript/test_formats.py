"""The export formats' registry, the command line's choices drawn from it, and the Markdown export
(a meeting's notes): transcripts built here, no speech model."""

from __future__ import annotations

import re

import pytest

from engine.cli.main import build_parser
from engine.speakers.labels import SpeakerNames
from engine.transcript.export import ExportError, render, to_markdown
from engine.transcript.formats import DEFAULT, FORMATS, NAMES, export_format, format_from_path
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word

# Characters that are formatting somewhere in a line of Markdown (CommonMark and GitHub's).
SPECIAL = set("\\`*_[]<>#|~&")
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before punctuation


def said(words: list[tuple[str, str, float | None]], marks: dict[int, str] | None = None) -> Transcript:
    """(text, speaker, start) each; a word lasts 0.4 s."""
    return Transcript(
        [
            TranscriptWord(
                heard=Word(text, start, None if start is None else start + 0.4, speaker=speaker),
                mark=(marks or {}).get(k, "none"),
            )
            for k, (text, speaker, start) in enumerate(words)
        ]
    )


def literal(line: str) -> str:
    """What ``line`` shows where it is plain text: its escapes undone. Fails where a character
    would be formatting: a special one left unescaped, or a list marker starting the line."""
    bare = ESCAPED.sub("", line)
    assert not SPECIAL & set(bare), line
    assert not re.match(r"(\d+[.)]|[-+])(\s|$)", line), line
    return ESCAPED.sub(r"\1", line)


# ---- the registry -------------------------------------------------------------------------------
def test_every_format_has_its_own_extension_and_a_dialog_filter_naming_it():
    extensions = [f.extension for f in FORMATS.values()]
    assert len(set(extensions)) == len(extensions) == len(NAMES)
    assert DEFAULT.name in NAMES
    for name, fmt in FORMATS.items():
        assert fmt.name == name and fmt.extension.startswith(".")
        assert format_from_path(f"notes/Talk{fmt.extension.upper()}") == name
        assert export_format(fmt.extension.upper()) is fmt
        assert fmt.dialog_filter == f"{fmt.label} (*{fmt.extension})"
    assert format_from_path("talk.docx") is None
    with pytest.raises(ExportError, match="Unknown export format 'docx'; choose one of: txt, srt"):
        export_format("docx")


def test_only_the_formats_that_carry_the_language_say_it():
    t = said([("guten", "", 0.0), ("tag", "", 0.5)], {1: "period"})
    for name, fmt in FORMATS.items():
        plain = fmt.render(t)
        about = fmt.render(t, language="de", translated=True)
        assert (about != plain) == fmt.carries_language, name
        if fmt.carries_language:
            assert "German" in about or '"language": "de"' in about, name


def test_a_format_that_needs_times_refuses_untimed_words_naming_the_formats_that_do_not():
    t = said([("no", "", None), ("times", "", None)], {1: "period"})
    untimed = [f.title for f in FORMATS.values() if not f.needs_times]
    assert "Markdown" in untimed and "SRT" not in untimed
    for name, fmt in FORMATS.items():
        if not fmt.needs_times:
            assert "times" in fmt.render(t), name
            continue
        with pytest.raises(ExportError, match=f"no word timings, which {fmt.title} needs") as raised:
            fmt.render(t)
        assert all(title in str(raised.value) for title in untimed), str(raised.value)


def format_choices(parser, *path: str) -> tuple[list[str], str | None]:
    """The choices and default of ``--format`` on the subcommand ``path`` ("history", "export")."""
    for name in path:
        (sub,) = [a for a in parser._actions if a.dest in ("command", "action")]
        parser = sub.choices[name]
    (option,) = [a for a in parser._actions if "--format" in a.option_strings]
    return list(option.choices), option.default


def test_the_command_line_offers_every_format_and_nothing_else():
    parser = build_parser()
    assert format_choices(parser, "transcribe") == (list(NAMES), None)
    assert format_choices(parser, "history", "export") == (list(NAMES), None)
    assert format_choices(parser, "recover") == (list(NAMES), DEFAULT.name)
    for command in (["transcribe", "a.wav"], ["recover"], ["history", "export", "x", "-o", "x.txt"]):
        assert parser.parse_args([*command, "--format", "md"]).format == "md"


# ---- Markdown: a meeting's notes ----------------------------------------------------------------
def test_markdown_heads_each_turn_with_its_speaker_and_each_paragraph_with_its_time():
    t = said(
        [
            ("hello", "me", 0.0),
            ("there", "me", 0.5),
            ("hi", "others:1", 12.0),
            ("how", "others:1", 12.5),
            ("are", "others:1", 13.0),
            ("you", "others:1", 13.5),
            ("later", "others:1", 3725.0),  # past the paragraph pause: a new paragraph, same turn
            ("fine", "me", 3730.0),
        ],
        {1: "period", 2: "comma", 5: "question", 6: "period", 7: "period"},
    )
    assert to_markdown(t, SpeakerNames(renamed={"others:1": "Ana"})) == (
        "# Meeting notes\n\n"
        "## Me\n\n**[0:00]** hello there.\n\n"
        "## Ana\n\n**[0:12]** hi, how are you?\n\n**[1:02:05]** later.\n\n"
        "## Me\n\n**[1:02:10]** fine.\n"
    )
    assert f"## {SpeakerNames().name('others:1')}\n" in to_markdown(t)  # the default names by default


def test_markdown_keeps_every_word_literal():
    words = [
        "*nix",
        "#1",
        "_init_",
        "[link](x)",
        "<b>",
        "a|b",
        "~~gone~~",
        "AT&amp;T",
        "`code`",
        "back\\slash",
    ]
    lines = ["1. first", "- dash", "+ plus", "2020) closed"]  # what would start a list or a break
    t = said([(w, "", 0.5 * k) for k, w in enumerate(words)])
    stamped = to_markdown(t).splitlines()[-1]
    assert stamped.startswith("**[0:00]** ")
    assert literal(stamped.removeprefix("**[0:00]** ")) == " ".join(words)
    for text in lines:
        untimed = said([(w, "", None) for w in text.split()])
        paragraph = to_markdown(untimed).splitlines()[-1]
        assert literal(paragraph) == text, paragraph
    heading = to_markdown(said([("hi", "me", 0.0)]), SpeakerNames(me="#1 *fan*")).splitlines()[2]
    assert heading.startswith("## ") and literal(heading.removeprefix("## ")) == "#1 *fan*"


def test_one_source_markdown_without_times_is_plain_paragraphs():
    t = said(
        [("hello", "", None), ("there", "", None), ("general", "", None), ("kenobi", "", None)], {1: "period"}
    )
    text = render(t, "md")  # the last sentence ended, as in every export
    assert text == "# Transcript\n\nhello there. general kenobi.\n"
    assert "**[" not in text and "##" not in text


def test_translated_markdown_says_so_under_its_title():
    t = said([("good", "", 0.0), ("morning", "", 0.4)], {1: "period"})
    lines = to_markdown(t, language="de", translated=True).splitlines()
    assert lines[0] == "# Transcript"
    assert (
        literal(lines[2].strip("*"))
        == "English translation of German speech by Whisper, not the speakers' own words."
    )
