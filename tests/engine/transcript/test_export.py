"""Tests for atomic writes, the transcript model and the TXT/JSON/SRT/VTT exporters."""

from __future__ import annotations

import json
import os
import random

import pytest
import srt
import webvtt

from engine.files.atomic import atomic_write_bytes, atomic_write_text
from engine.transcript.export import (
    FORMATS,
    MIN_CUE_DURATION,
    ExportError,
    balance_lines,
    export,
    format_from_path,
    make_cues,
    to_json,
    to_srt,
    to_txt,
    to_vtt,
)
from engine.transcript.transcript import ParagraphRule, Transcript, TranscriptWord

LONG_WORD = "pneumonoultramicroscopicsilicovolcanoconiosis-like"  # 50 characters
VOCAB = (
    "the a of and to in is that it was for on are as with his they at be this from have or by "
    "one had not but what all were when we there can an your which their said if do will each "
    "about how up out them then she many some so these would other into has more her two like "
    "him see time could no make than first been its who now people my made over did down only "
    "way find use may water long little very after words called just where most know get through "
    "back much before go good new write our used me man too any day same right look think also "
    "around another came come work three word must because does part even place well such "
    "international communication responsibility infrastructure extraordinary"
).split()


def _words(text: str, marks: dict[int, str] | None = None, timed: bool = True, step: float = 0.4):
    """Simple evenly timed words from text; ``marks`` maps word index to a mark."""
    out = []
    for i, token in enumerate(text.split()):
        start = i * step if timed else None
        end = i * step + step * 0.75 if timed else None
        out.append(TranscriptWord(token, start, end, mark=(marks or {}).get(i, "none")))
    return out


def _long_transcript(seed: int = 7) -> Transcript:
    """Several hundred words with realistic timings: some long sentences, pauses, zero-length words."""
    rng = random.Random(seed)
    words: list[TranscriptWord] = []
    t = 0.3
    sentence_lengths = [rng.randint(3, 25) for _ in range(30)] + [70, 110, 45, 1, 2]
    rng.shuffle(sentence_lengths)
    for _s, length in enumerate(sentence_lengths):
        for k in range(length):
            token = LONG_WORD if (length == 110 and k == 5) else rng.choice(VOCAB)
            duration = 0.0 if rng.random() < 0.03 else 0.06 * len(token) + rng.uniform(0.05, 0.2)
            last = k == length - 1
            mark = (
                rng.choice(["period", "period", "question"])
                if last
                else ("comma" if rng.random() < 0.08 else "none")
            )
            case = "capitalized" if k == 0 else ("upper" if rng.random() < 0.02 else "lower")
            confidence = round(rng.uniform(0.5, 1.0), 3)
            words.append(TranscriptWord(token, round(t, 3), round(t + duration, 3), confidence, mark, case))
            t += duration + rng.uniform(0.02, 0.25)
            if rng.random() < 0.01:
                t += 3.0  # a long mid-sentence hesitation
        t += rng.choice([0.3, 0.5, 2.5])
    # A word with a mixed-case lexicon spelling.
    words[10].form = "iPhone"
    return Transcript(words)


# ---------------------------------------------------------------- atomic writes


def test_atomic_write_creates_parents_and_writes_exact_bytes(tmp_path):
    target = tmp_path / "a" / "b" / "out.txt"
    atomic_write_text(target, "line one\nline two é\n")
    assert target.read_bytes() == "line one\nline two é\n".encode()  # no \r\n translation
    atomic_write_bytes(target, b"\x00\x01new")
    assert target.read_bytes() == b"\x00\x01new"
    assert os.listdir(target.parent) == ["out.txt"]


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.srt"
    target.write_text("old content")

    def failing_replace(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_text(target, "new content")
    assert target.read_text() == "old content"
    assert os.listdir(tmp_path) == ["out.srt"]  # the temp file was removed


def test_atomic_write_cleans_up_when_fsync_fails_mid_write(tmp_path, monkeypatch):
    target = tmp_path / "out.json"

    def failing_fsync(fd):
        raise OSError("I/O error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        atomic_write_text(target, "{}")
    assert os.listdir(tmp_path) == []  # neither a target nor a temp file


def test_atomic_write_keeps_permissions_of_existing_file(tmp_path):
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    target = tmp_path / "settings.json"
    target.write_text("{}")
    os.chmod(target, 0o640)
    atomic_write_text(target, '{"a": 1}')
    assert (os.stat(target).st_mode & 0o777) == 0o640


# ---------------------------------------------------------------- transcript model


def test_word_rendering_uses_case_form_and_mark():
    assert TranscriptWord("hello", case="capitalized", mark="comma").display == "Hello,"
    assert TranscriptWord("nasa", case="upper", mark="question").display == "NASA?"
    assert TranscriptWord("iphone", case="capitalized", form="iPhone", mark="period").display == "iPhone."
    with pytest.raises(ValueError):
        TranscriptWord("x", mark="exclamation")
    with pytest.raises(ValueError):
        TranscriptWord("x", case="title")


def test_sentences_and_open_last_sentence():
    t = Transcript(_words("a b c d e f g", {1: "period", 2: "comma", 4: "question"}))
    spans = [(s.start_index, s.end_index) for s in t.sentences()]
    assert spans == [(0, 2), (2, 5), (5, 7)]
    assert Transcript().sentences() == []


def test_txt_paragraphs_break_at_pauses_and_after_max_sentences():
    # Five one-word sentences: "one. two. three." then a 3 s pause, then "four. five."
    words = _words("one two three four five", {i: "period" for i in range(5)})
    for w in words[3:]:
        w.start += 3.0
        w.end += 3.0
    t = Transcript(words)
    assert to_txt(t) == "one. two. three.\n\nfour. five.\n"
    # A pause that is not at a sentence end does not break the paragraph.
    words = _words("one two three four", {1: "comma", 3: "period"})
    words[2].start, words[2].end, words[3].start, words[3].end = 10.0, 10.2, 10.3, 10.5
    assert to_txt(Transcript(words)) == "one two, three four.\n"
    # Untimed text falls back to max_sentences.
    untimed = Transcript(_words("a b c d e f g h", {i: "period" for i in range(8)}, timed=False))
    assert untimed.text(ParagraphRule(max_sentences=3)) == "a. b. c.\n\nd. e. f.\n\ng. h."
    assert to_txt(untimed) == "a. b. c. d. e. f.\n\ng. h.\n"
    assert to_txt(Transcript()) == ""


# ---------------------------------------------------------------- JSON


def test_json_round_trip_preserves_every_field():
    t = _long_transcript()
    t.words.append(TranscriptWord("untimed", None, None, 0.25, "question", "upper", "UnTimed"))
    data = json.loads(to_json(t))
    assert data["format"] == "livecap-transcript" and data["version"] == 1
    assert data["text"] == t.text()
    first = data["words"][0]
    assert set(first) >= {"word", "display", "start", "end", "confidence", "mark", "case"}
    assert first["display"] == t.words[0].display
    back = Transcript.from_dict(data)
    assert back == t  # dataclass equality compares every field of every word
    assert back.words[10].form == "iPhone" and back.words[-1].start is None


def test_json_from_newer_version_is_refused():
    with pytest.raises(ValueError, match="newer"):
        Transcript.from_dict({"format": "livecap-transcript", "version": 2, "words": []})


# ---------------------------------------------------------------- cue layout


def _check_cue_rules(t: Transcript, cues, max_chars=42, max_lines=2, max_duration=7.0):
    # Every word is shown exactly once, in order, by the cues' text.
    shown = [token for cue in cues for line in cue.lines for token in line.split(" ")]
    assert shown == [w.display for w in t.words]
    covered = [i for cue in cues for i in cue.span.indices()]
    assert covered == list(range(len(t.words)))
    for k, cue in enumerate(cues):
        assert 1 <= len(cue.lines) <= max_lines
        for line in cue.lines:
            assert len(line) <= max_chars or " " not in line, line  # only a lone word may be longer
        assert cue.start <= cue.end
        assert cue.end - cue.start <= max_duration + 1e-9
        # A cue starts with its first word.
        assert cue.start == pytest.approx(t.words[cue.span.start_index].start, abs=5e-4)
        # Never straddle a sentence end: only the cue's last word may end a sentence.
        inner = t.words[cue.span.start_index : cue.span.last_index]
        assert not any(w.ends_sentence for w in inner)
        tokens = cue.text.split()
        assert not any(tok.endswith((".", "?")) for tok in tokens[:-1])
        if k + 1 < len(cues):
            assert cue.end <= cues[k + 1].start  # in order, no overlap
            assert cue.start < cues[k + 1].start


def test_cue_rules_on_long_transcript():
    t = _long_transcript()
    assert 500 <= len(t.words) <= 900
    cues = make_cues(t)
    _check_cue_rules(t, cues)
    # Long sentences really were split; the long word stands alone on its line.
    assert len(cues) > len(t.sentences())
    assert any(line == LONG_WORD for cue in cues for line in cue.lines)
    # Two-line cues are balanced rather than "full line + one word".
    two_line = [c for c in cues if len(c.lines) == 2 and LONG_WORD not in c.text]
    assert two_line
    assert all(abs(len(c.lines[0]) - len(c.lines[1])) <= 20 for c in two_line)


@pytest.mark.parametrize("seed", range(5))
def test_cue_rules_hold_for_other_layouts(seed):
    t = _long_transcript(seed)
    _check_cue_rules(t, make_cues(t, max_chars=32, max_lines=1, max_duration=4.0), 32, 1, 4.0)
    _check_cue_rules(t, make_cues(t), 42, 2, 7.0)


def test_slow_speech_is_split_by_duration():
    # Short text, but 1.5 s per word: 10 words take 15 s, so at least 3 cues.
    t = Transcript(_words(" ".join(["slow"] * 10), {9: "period"}, step=1.5))
    cues = make_cues(t)
    assert len(cues) >= 3
    _check_cue_rules(t, cues)


def test_zero_length_word_gets_minimum_duration_clipped_by_next_cue():
    words = [
        TranscriptWord("hi", 1.0, 1.0, mark="period"),
        TranscriptWord("yes", 1.2, 1.2, mark="period"),
        TranscriptWord("ok", 5.0, 5.0, mark="period"),
    ]
    cues = make_cues(Transcript(words))
    assert [(c.start, c.end) for c in cues] == [(1.0, 1.2), (1.2, 1.2 + MIN_CUE_DURATION), (5.0, 5.5)]


def test_a_single_overlong_word_is_clipped_to_max_duration():
    # A recognizer can stretch one word over a long silence; a word cannot be split.
    t = Transcript([TranscriptWord("hmm", 2.0, 11.0, mark="period"), TranscriptWord("ok", 12.0, 12.4)])
    cues = make_cues(t)
    assert [(c.start, c.end, c.lines) for c in cues] == [(2.0, 9.0, ["hmm."]), (12.0, 12.5, ["ok"])]


def test_backwards_jitter_in_word_times_still_gives_ordered_cues():
    words = [
        TranscriptWord("one", 1.0, 1.5, mark="period"),
        TranscriptWord("two", 0.95, 1.3, mark="period"),  # recognizer jitter: starts before "one"
        TranscriptWord("three", 2.0, 2.6, mark="period"),
    ]
    cues = make_cues(Transcript(words))
    starts = [c.start for c in cues]
    assert starts == sorted(starts)
    assert all(a.end <= b.start for a, b in zip(cues, cues[1:]))
    assert list(srt.parse(to_srt(Transcript(words))))  # still a valid file


def test_cues_break_at_a_comma_rather_than_mid_phrase():
    # About 100 characters: two cues either way; the cut should fall at the comma.
    text = (
        "when the long meeting finally ended we all went home to rest for the night "
        "and nobody said another word until morning"
    )
    t = Transcript(_words(text, {5: "comma", 21: "period"}, step=0.25))
    cues = make_cues(t)
    assert len(cues) == 2
    assert cues[0].span.last_index == 5 and cues[0].text.replace("\n", " ").endswith("ended,")
    _check_cue_rules(t, cues)


def test_balance_lines():
    assert balance_lines(["a"] * 3, 42, 2) == ["a a a"]
    lines = balance_lines("one two three four five six seven eight nine ten eleven".split(), 42, 2)
    assert len(lines) == 2 and abs(len(lines[0]) - len(lines[1])) <= 6
    assert balance_lines(["x" * 30] * 3, 42, 2) is None


# ---------------------------------------------------------------- SRT / VTT


def test_srt_parses_back_to_the_cues():
    t = _long_transcript()
    cues = make_cues(t)
    parsed = list(srt.parse(to_srt(t)))
    assert len(parsed) == len(cues)
    for k, (sub, cue) in enumerate(zip(parsed, cues), start=1):
        assert sub.index == k
        assert sub.content == cue.text
        assert sub.start.total_seconds() == pytest.approx(cue.start, abs=5e-4)
        assert sub.end.total_seconds() == pytest.approx(cue.end, abs=5e-4)


def test_vtt_parses_back_to_the_cues(tmp_path):
    t = _long_transcript()
    cues = make_cues(t)
    path = export(t, None, tmp_path / "talk.vtt")
    assert path.read_text(encoding="utf-8").startswith("WEBVTT\n")
    captions = webvtt.read(str(path))
    assert len(captions) == len(cues)
    for caption, cue in zip(captions, cues):
        assert caption.text == cue.text
        assert caption.start_time.in_milliseconds() == round(cue.start * 1000)
        assert caption.end_time.in_milliseconds() == round(cue.end * 1000)
    assert to_vtt(Transcript()) == "WEBVTT\n"


def test_vtt_escapes_markup():
    t = Transcript([TranscriptWord("a<b&c", 0.0, 0.5, mark="period")])
    assert "a&lt;b&amp;c." in to_vtt(t)


def test_timestamps_past_an_hour():
    t = Transcript([TranscriptWord("late", 3725.5, 3726.25, mark="period")])
    assert "01:02:05,500 --> 01:02:06,250" in to_srt(t)
    assert "01:02:05.500 --> 01:02:06.250" in to_vtt(t)


def test_untimed_transcript_cannot_be_subtitled(tmp_path):
    t = Transcript(_words("no times here", {2: "period"}, timed=False))
    for fn in (to_srt, to_vtt):
        with pytest.raises(ExportError, match="no word timings"):
            fn(t)
    # Through the registry, the message names every format that needs no times.
    with pytest.raises(
        ExportError, match="no word timings, which SRT needs; export as TXT, JSON or Markdown"
    ):
        FORMATS["srt"].render(t)
    target = tmp_path / "out.srt"
    target.write_text("previous export")
    with pytest.raises(ExportError):
        export(t, "srt", target)
    assert target.read_text() == "previous export"
    # TXT and JSON still work without times.
    assert export(t, "txt", tmp_path / "out.txt").read_text() == "no times here.\n"


# ---------------------------------------------------------------- export()


def test_export_formats_and_guessing(tmp_path):
    t = _long_transcript()
    assert set(FORMATS) == {"txt", "srt", "vtt", "json", "md"}
    assert format_from_path("x/Talk.SRT") == "srt"
    assert format_from_path("talk.docx") is None
    for fmt, exported in FORMATS.items():
        path = export(t, None, tmp_path / "sub" / f"talk.{fmt}")
        assert path.read_text(encoding="utf-8") == exported.render(t)
    assert export(t, "JSON", tmp_path / "data.out").read_text(encoding="utf-8") == to_json(t)
    with pytest.raises(ExportError, match="Unknown export format"):
        export(t, "docx", tmp_path / "talk.docx")
    with pytest.raises(ExportError, match="Cannot tell"):
        export(t, None, tmp_path / "talk.docx")
    assert not (tmp_path / "talk.docx").exists()


def test_an_edited_last_word_that_ends_its_own_sentence_gets_no_second_mark(tmp_path):
    # Edits keep "!" in the word's form (the marks have no exclamation); the export must not add "."
    words = [
        TranscriptWord("that", 0.0, 0.3, case="capitalized"),
        TranscriptWord("is", 0.3, 0.5),
        TranscriptWord("great", 0.5, 0.9, form="great!"),
    ]
    out = export(Transcript(words), "txt", tmp_path / "t.txt").read_text()
    assert out.strip() == "That is great!"
    plain = export(Transcript(words[:2]), "txt", tmp_path / "u.txt").read_text()
    assert plain.strip() == "That is."


def test_words_of_another_language_are_not_ended_with_an_english_period(tmp_path):
    # A Korean Vosk model's words pass through unmarked: the export must leave the last one so.
    from engine.transcript.export import render

    words = [TranscriptWord("안녕하세요", 0.0, 0.6), TranscriptWord("여러분", 0.7, 1.2)]
    t = Transcript(words)
    for fmt in FORMATS:
        assert render(t, fmt, end_sentence=False) == FORMATS[fmt].render(t), fmt
        path = export(t, fmt, tmp_path / f"ko.{fmt}", end_sentence=False)
        assert path.read_text(encoding="utf-8") == FORMATS[fmt].render(t), fmt
    assert render(t, "txt", end_sentence=False) == "안녕하세요 여러분\n"
    assert render(t, "txt") == "안녕하세요 여러분.\n"  # the default still ends the sentence
