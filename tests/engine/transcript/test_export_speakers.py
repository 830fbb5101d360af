"""A meeting's transcript in every export: who spoke, by the names the user gave them."""

from __future__ import annotations

import html
import json

import srt
import webvtt

from engine.speakers.labels import SpeakerNames
from engine.transcript.export import FORMATS, export, make_cues, render, to_json, to_srt, to_txt, to_vtt
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word

# (text, speaker, start, end, case, mark): a two-sided meeting; the sentence "Sure thing yes." runs
# from one voice of the others into another, so its cues must split there.
MEETING = [
    ("hello", "me", 0.0, 0.4, "capitalized", "none"),
    ("there", "me", 0.5, 0.9, "lower", "period"),
    ("hi", "others:1", 1.5, 1.8, "capitalized", "comma"),
    ("how", "others:1", 1.9, 2.1, "lower", "none"),
    ("are", "others:1", 2.2, 2.4, "lower", "none"),
    ("you", "others:1", 2.5, 2.8, "lower", "question"),
    ("sure", "others:1", 3.0, 3.3, "capitalized", "none"),
    ("thing", "others:1", 3.4, 3.7, "lower", "none"),
    ("yes", "others:2", 3.8, 4.1, "capitalized", "period"),
    ("fine", "me", 5.0, 5.4, "capitalized", "period"),
]


def meeting(rows=MEETING) -> Transcript:
    return Transcript(
        [
            TranscriptWord(heard=Word(text, start, end, speaker=speaker), case=case, mark=mark)
            for text, speaker, start, end, case, mark in rows
        ]
    )


def one_source() -> Transcript:
    return meeting([(text, "", start, end, case, mark) for text, _, start, end, case, mark in MEETING])


def test_txt_starts_a_paragraph_with_the_name_where_the_speaker_changes():
    assert to_txt(meeting()) == (
        "Me: Hello there.\n\nOthers: Hi, how are you? Sure thing\n\nOthers 2: Yes.\n\nMe: Fine.\n"
    )


def test_txt_shows_the_users_renames():
    names = SpeakerNames(me="Myself", renamed={"others:1": "Ana"})
    assert to_txt(meeting(), names) == (
        "Myself: Hello there.\n\nAna: Hi, how are you? Sure thing\n\nOthers 2: Yes.\n\nMyself: Fine.\n"
    )


def test_a_long_turn_names_its_speaker_once_however_many_paragraphs_it_takes():
    rows = [("so", "others:1", 0.0, 0.2, "capitalized", "period")] * 7 + [
        ("ok", "me", 2.0, 2.2, "capitalized", "period")
    ]
    timed = [
        (text, speaker, k * 0.3, k * 0.3 + 0.2, case, mark)
        for k, (text, speaker, _, _, case, mark) in enumerate(rows)
    ]
    # Six sentences make a paragraph (``ParagraphRule``): the seventh goes on, unlabelled.
    assert to_txt(meeting(timed)) == ("Others: So. So. So. So. So. So.\n\nSo.\n\nMe: Ok.\n")


def test_srt_names_the_first_cue_of_each_turn_and_never_mixes_two_speakers_in_a_cue():
    assert to_srt(meeting()) == (
        "1\n00:00:00,000 --> 00:00:00,900\nMe: Hello there.\n\n"
        "2\n00:00:01,500 --> 00:00:02,800\nOthers: Hi, how are you?\n\n"
        "3\n00:00:03,000 --> 00:00:03,700\nSure thing\n\n"
        "4\n00:00:03,800 --> 00:00:04,300\nOthers 2: Yes.\n\n"
        "5\n00:00:05,000 --> 00:00:05,500\nMe: Fine.\n"
    )
    assert [s.content for s in srt.parse(to_srt(meeting(), SpeakerNames(renamed={"others:2": "Ana"})))][
        3
    ] == ("Ana: Yes.")


def test_a_name_counts_in_the_line_length_of_its_cue():
    rows = [
        (w, "others:3", k * 0.3, k * 0.3 + 0.2, "lower", "none")
        for k, w in enumerate("one two three four".split())
    ]
    names = SpeakerNames(renamed={"others:3": "Maximilian Featherstonehaugh-Smythe"})  # 35 letters
    [cue] = make_cues(meeting(rows), names=names)
    assert cue.lines == ["Maximilian Featherstonehaugh-Smythe: one", "two three four"]
    assert cue.speaker == "others:3"


def test_vtt_marks_every_cue_with_its_voice():
    assert to_vtt(meeting()) == (
        "WEBVTT\n\n"
        "00:00:00.000 --> 00:00:00.900\n<v Me>Hello there.</v>\n\n"
        "00:00:01.500 --> 00:00:02.800\n<v Others>Hi, how are you?</v>\n\n"
        "00:00:03.000 --> 00:00:03.700\n<v Others>Sure thing</v>\n\n"
        "00:00:03.800 --> 00:00:04.300\n<v Others 2>Yes.</v>\n\n"
        "00:00:05.000 --> 00:00:05.500\n<v Me>Fine.</v>\n"
    )


def test_a_vtt_voice_name_is_escaped_to_one_line(tmp_path):
    names = SpeakerNames(renamed={"others:1": "Ana <&>\nBo"})
    text = to_vtt(meeting(), names)
    assert "<v Ana &lt;&amp;&gt; Bo>Hi, how are you?</v>" in text
    path = tmp_path / "meeting.vtt"
    path.write_text(text, encoding="utf-8")
    captions = webvtt.read(str(path))
    # The annotation holds character references (the WebVTT grammar), which the reader leaves as written.
    assert [html.unescape(c.voice) for c in captions] == ["Me", "Ana <&> Bo", "Ana <&> Bo", "Others 2", "Me"]
    assert [c.text for c in captions][1] == "Hi, how are you?"


def test_json_keeps_each_words_speaker_and_maps_the_ids_to_names():
    data = json.loads(to_json(meeting(), SpeakerNames(renamed={"others:2": "Ana"})))
    assert data["speakers"] == {"me": "Me", "others:1": "Others", "others:2": "Ana"}
    assert [w["speaker"] for w in data["words"]] == [row[1] for row in MEETING]
    assert data["words"][8] == {
        "word": "yes",
        "display": "Yes.",
        "start": 3.8,
        "end": 4.1,
        "confidence": 1.0,
        "mark": "period",
        "case": "capitalized",
        "form": None,
        "speaker": "others:2",
    }
    assert data["text"].startswith("Me: Hello there.\n\nOthers: Hi,")
    assert [w.speaker for w in Transcript.from_dict(data).words] == [row[1] for row in MEETING]


def test_export_and_render_take_the_names(tmp_path):
    names = SpeakerNames(renamed={"me": "Sam"})
    for fmt in FORMATS:
        path = export(meeting(), fmt, tmp_path / f"meeting.{fmt}", names=names)
        assert path.read_text(encoding="utf-8") == render(meeting(), fmt, names=names), fmt
        assert "Sam" in path.read_text(encoding="utf-8"), fmt


def test_one_source_exports_are_unchanged_whatever_the_names():
    t = one_source()
    assert to_txt(t) == "Hello there. Hi, how are you? Sure thing Yes. Fine.\n"
    names = SpeakerNames(me="Sam", renamed={"others:1": "Ana"})
    for fmt, exporter in FORMATS.items():
        assert exporter.render(t, names) == exporter.render(t, None), fmt
    assert "speakers" not in json.loads(to_json(t)) and '"speaker"' not in to_json(t)
    assert "<v" not in to_vtt(t) and "Me" not in to_srt(t) and "Others" not in to_srt(t)
    assert [c.text for c in make_cues(t)] == ["Hello there.", "Hi, how are you?", "Sure thing Yes.", "Fine."]
