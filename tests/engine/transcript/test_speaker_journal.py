"""Who spoke, kept live and on disk: the transcript builder and the journal take speaker labels
(corrected until their turn settles, never after), and a recovered session keeps them and the
names the user gave the speakers."""

from __future__ import annotations

import json
import logging

from engine.events import Appended, Retracted, Settled, SpeakersLabelled, Withdrawn
from engine.speakers.labels import SpeakerNames
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.export import to_txt
from engine.transcript.journal import JournalWriter, read_journal, recover
from engine.transcript.speaker_labels import names_to_dict
from engine.words import Word


def words(*spoken: tuple[str, str]) -> list[Word]:
    return [Word(text, k * 0.5, k * 0.5 + 0.4, speaker=speaker) for k, (text, speaker) in enumerate(spoken)]


MEETING = words(("hello", "me"), ("there", "me"), ("hi", "others"), ("you", "others"))


def appended(spoken: list[Word]) -> list[Appended]:
    return [Appended(k, w) for k, w in enumerate(spoken)]


def settled(*positions: int, mark: str = "none") -> list[Settled]:
    return [Settled(p, mark, "lower", 1, MEETING[p].text) for p in positions]


# ---- the transcript builder ------------------------------------------------------------------
def test_the_builder_takes_labels_and_corrections_until_they_settle(caplog):
    builder = TranscriptBuilder()
    builder.apply(appended(MEETING))
    assert [w.speaker for w in builder.words] == ["me", "me", "others", "others"]
    builder.apply([SpeakersLabelled(((2, "others:1"), (3, "others:1")), settled_through=0)])
    assert [w.speaker for w in builder.words] == ["me", "me", "others:1", "others:1"]
    builder.apply([SpeakersLabelled(((3, "others:2"),), settled_through=3)])  # a correction, then settled
    assert [w.heard.speaker for w in builder.words][2:] == ["others:1", "others:2"]
    with caplog.at_level(logging.WARNING, logger="engine.transcript.speaker_labels"):
        builder.apply([SpeakersLabelled(((2, "others:2"),), settled_through=3)])
        builder.apply([SpeakersLabelled(((1, "others:2"), (2, "others:3")), settled_through=4)])
    assert [w.speaker for w in builder.words] == ["me", "me", "others:1", "others:2"]  # settled: unchanged
    assert len([r for r in caplog.records if "settled speaker label" in r.message]) == 1  # said once


def test_a_label_that_does_not_change_a_settled_word_is_no_attempt(caplog):
    builder = TranscriptBuilder()
    builder.apply(appended(MEETING))
    builder.apply([SpeakersLabelled(((2, "others:1"),), settled_through=3)])
    with caplog.at_level(logging.WARNING, logger="engine.transcript.speaker_labels"):
        builder.apply([SpeakersLabelled(((2, "others:1"), (3, "others:1")), settled_through=4)])
    assert [w.speaker for w in builder.words][2:] == ["others:1", "others:1"]
    assert not caplog.records


def test_words_retracted_and_heard_again_take_new_labels():
    builder = TranscriptBuilder()
    builder.apply(appended(MEETING))
    builder.apply([SpeakersLabelled(((2, "others:1"), (3, "others:1")), settled_through=4)])
    builder.apply([Retracted(3), Appended(3, Word("yo", 1.5, 1.9, speaker="others"))])
    builder.apply([SpeakersLabelled(((3, "others:2"),), settled_through=4)])
    assert [w.text for w in builder.words] == ["hello", "there", "hi", "yo"]
    assert [w.speaker for w in builder.words][2:] == ["others:1", "others:2"]


# ---- the journal ------------------------------------------------------------------------------
def test_recovery_keeps_each_words_latest_label_and_the_journal_only_grows(tmp_path):
    writer = JournalWriter.create(tmp_path)
    writer.apply(appended(MEETING))
    writer.apply([SpeakersLabelled(((2, "others:1"),), settled_through=0)])  # before it settles
    writer.apply(settled(0, 1, 2))
    sizes = [writer.path.stat().st_size]
    # corrected after word 2 was journaled (its line is not rewritten), and before word 3 was
    writer.apply([SpeakersLabelled(((2, "others:2"), (3, "others:2")), settled_through=4)])
    sizes.append(writer.path.stat().st_size)
    writer.apply(settled(3, mark="period"))
    writer.apply([SpeakersLabelled(((2, "me"),), settled_through=4)])  # settled: never changes
    writer.close(clean=False)  # a crash

    lines = [json.loads(line) for line in writer.path.read_text().splitlines()]
    assert [line for line in lines if line["t"] == "speakers"] == [
        {"t": "speakers", "labels": [[2, "others:2"]]}
    ]
    assert [line.get("speaker") for line in lines if line["t"] == "word"] == [
        "me",
        "me",
        "others:1",
        "others:2",
    ]
    assert sizes[1] > sizes[0]
    [contents] = recover(tmp_path)
    assert [(w.text, w.speaker) for w in contents.transcript.words] == [
        ("hello", "me"),
        ("there", "me"),
        ("hi", "others:2"),
        ("you", "others:2"),
    ]


def test_a_label_of_a_withdrawn_or_unknown_word_is_not_journaled(tmp_path):
    writer = JournalWriter.create(tmp_path)
    writer.apply(appended(MEETING[:2]))
    writer.apply(settled(0, 1))
    writer.apply([Withdrawn(1), Retracted(1)])
    writer.apply([SpeakersLabelled(((1, "others"), (9, "others")), settled_through=0)])
    writer.close(clean=False)
    assert '"speakers"' not in writer.path.read_text()
    assert [(w.text, w.speaker) for w in read_journal(writer.path).transcript.words] == [("hello", "me")]


def test_the_speaker_names_in_effect_are_recovered_and_shown_in_an_export(tmp_path):
    header_names = SpeakerNames(renamed={"others:1": "Ana"})
    writer = JournalWriter.create(tmp_path, header={"speaker_names": names_to_dict(header_names)})
    spoken = words(("hi", "others:1"), ("hello", "me"))
    writer.apply(appended(spoken))
    writer.apply(
        [Settled(0, "period", "capitalized", 1, "Hi"), Settled(1, "period", "capitalized", 1, "Hello")]
    )
    assert read_journal(writer.path).speaker_names == header_names
    renamed = SpeakerNames(me="Sam", renamed={"others:1": "Ana María"})
    writer.name_speakers(renamed)
    writer.name_speakers(renamed)  # unchanged: nothing more written
    writer.close(clean=False)
    assert writer.path.read_text().count('"speaker_names"') == 2  # the header's, and one line
    contents = read_journal(writer.path)
    assert contents.speaker_names == renamed
    assert to_txt(contents.transcript, contents.speaker_names) == "Ana María: Hi.\n\nSam: Hello.\n"


def test_a_journal_from_before_speakers_still_recovers(tmp_path):
    path = tmp_path / "session-20240101-120000.jsonl"
    lines = [
        {"t": "header", "version": 1, "started": "2024-01-01T12:00:00+00:00", "recognizer": "vosk"},
        {"t": "word", "position": 0, "form": "Hello", "mark": "none", "case": "capitalized", "text": "hello"},
        {"t": "word", "position": 1, "form": "world", "mark": "period", "case": "lower", "text": "world"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [contents] = recover(tmp_path)
    assert [(w.display, w.speaker) for w in contents.transcript.words] == [("Hello", ""), ("world.", "")]
    assert contents.speaker_names == SpeakerNames()
    assert to_txt(contents.transcript, contents.speaker_names) == "Hello world.\n"


def test_torn_speaker_lines_are_skipped(tmp_path):
    writer = JournalWriter.create(tmp_path)
    writer.apply(appended(MEETING[:1]))
    writer.apply(settled(0))
    writer.close(clean=False)
    with open(writer.path, "a", encoding="utf-8") as f:
        f.write('{"t": "speaker_names", "me": 3, "renamed": []}\n{"t": "speakers", "labels": [[0, "oth')
    contents = read_journal(writer.path)
    assert contents.skipped_lines == 1 and contents.transcript.words[0].speaker == "me"
    assert contents.speaker_names == SpeakerNames()  # a bad field takes its default


def test_livecap_recover_saves_a_meeting_with_its_speakers_names(tmp_path):
    from engine.cli.recover import save

    writer = JournalWriter.create(tmp_path / "journals")
    writer.name_speakers(SpeakerNames(renamed={"others": "The room"}))
    writer.apply(appended(MEETING))
    writer.apply(settled(0, 1, 2, 3, mark="period"))
    writer.close(clean=False)
    [contents] = recover(tmp_path / "journals")
    save(contents, None, "srt", tmp_path)  # every word settled live: no model runs
    saved = (tmp_path / f"recovered-{writer.path.stem}.srt").read_text()
    assert "Me: hello." in saved and "The room: hi." in saved and "\nthere.\n" in saved
