"""The acoustic-conditions benchmark (engine/evaluation/rooms.py): its loop check and targets, and one
short real run through the file path, the live session and non-speech."""

from __future__ import annotations

import importlib.util
import json

import pytest

from engine.evaluation import rooms
from engine.evaluation.corpus import dev_corpus
from engine.evaluation.rooms_score import judge_targets, loops, markdown_table, table_rows
from tests.speech import PIPER_EXTRA, piper_missing

REFERENCE = "no no no he said and then she went home and then she went home".split()


def test_a_phrase_said_over_and_over_is_a_loop():
    assert loops("i think so so so so".split(), REFERENCE) == ["so"]
    assert loops("we went out to the park we went out".split() * 2, REFERENCE) == []
    said = "thank you for watching " * 4
    assert loops(said.split(), REFERENCE) == ["thank you for watching"]


def test_repeats_the_reference_has_are_no_loop():
    assert loops(REFERENCE, REFERENCE) == []
    assert loops("no no no he said".split(), REFERENCE) == []


def test_a_long_phrase_recurring_more_often_than_read_is_a_loop():
    hyp = "then she went home a then she went home b then she went home c then she went home".split()
    assert loops(hyp, REFERENCE) == ["then she went home"]  # read twice, written four times
    assert loops(hyp[:11], REFERENCE) == []  # three times: within what a reading may repeat


def figures(live: float, file: float, looped: bool = False) -> dict:
    return {
        "live_wer_pct": live,
        "file_wer_pct": file,
        "live_over_file": round(live / file, 2),
        "live_loops": ["x"] if looped else [],
        "file_loops": [],
    }


def test_targets_are_judged_against_the_voices_clean_wer():
    judged = judge_targets(
        {"clean": figures(10.0, 10.0), "room": figures(18.0, 17.0), "call": figures(21.0, 20.0),
         "babble10": figures(15.0, 14.0), "hard": figures(60.0, 50.0, looped=True)},
        nonspeech_words=2,
    )  # fmt: skip
    assert judged["room_live_wer_pct"] == {"measured": 18.0, "target": 18.0, "met": True}
    assert judged["call_live_wer_pct"]["target"] == 20.0 and not judged["call_live_wer_pct"]["met"]
    assert judged["babble10_live_wer_pct"]["target"] == 15.0 and judged["babble10_live_wer_pct"]["met"]
    assert "pink5_live_wer_pct" not in judged  # not run
    assert judged["hard_wer_pct_below_100"]["met"] and not judged["hard_no_loop"]["met"]
    assert not judged["nonspeech_words"]["met"]
    assert judged["live_over_file_every_condition"]["over"] == ["hard"]


def test_the_table_is_one_row_per_voice_and_condition():
    voices = {"flite": {"conditions": {"clean": {**figures(10.0, 8.0), "file_marks_f1": 0.9}}}}
    rows = table_rows(voices)
    assert rows[0]["voice"] == "flite" and rows[0]["live_over_file"] == 1.25 and rows[0]["loops"] == "no"
    assert "committed_p90_s" not in rows[0]  # a column no row fills is left out
    text = markdown_table(rows)
    assert text.splitlines()[0].startswith("| voice | condition | file WER % | live WER %")
    assert len(text.splitlines()) == 3


@pytest.mark.slow
@pytest.mark.needs_corpus
@pytest.mark.skipif(piper_missing(), reason=PIPER_EXTRA)
@pytest.mark.skipif(importlib.util.find_spec("pyroomacoustics") is None, reason="pip install pyroomacoustics")
@pytest.mark.skipif(not (dev_corpus() / "chitchat.txt").exists(), reason="shared dev corpus not present")
def test_one_voice_in_one_room_reports_file_live_and_non_speech(tmp_path, capsys):
    out = tmp_path / "rooms.json"
    argv = ["--voice", "piper", "--condition", "clean", "--condition", "room-rt0.3-1m", "--excerpts", "1",
            "--words", "20", "--min-words", "20", "--max-words", "40", "--nonspeech-minutes", "0.1",
            "--out", str(out)]  # fmt: skip
    assert rooms.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == result
    piper = result["voices"]["piper"]
    assert set(piper["conditions"]) == {"clean", "room-rt0.3-1m"}
    clean = piper["conditions"]["clean"]
    assert clean["live_wer_pct"] < 30 and clean["file_wer_pct"] < 30
    assert clean["live_loops"] == [] and clean["live_error"] is None
    assert set(result["nonspeech"]["kinds"]) == {"noise", "music", "typing", "room_tone"}
    assert "live_over_file_every_condition" in result["targets"]["piper"]
    assert [(row["voice"], row["condition"]) for row in result["table"]] == [
        ("piper", "clean"),
        ("piper", "room-rt0.3-1m"),
    ]


def test_the_file_path_alone_decodes_with_a_beam_and_reports_no_live_figure(tmp_path, capsys):
    argv = ["--voice", "piper", "--condition", "clean", "--excerpts", "1", "--words", "20", "--min-words",
            "20", "--max-words", "40", "--nonspeech-minutes", "0.05", "--file-only"]  # fmt: skip
    assert rooms.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["file_beam"] == 5 and result["whisper_options"]["beam_size"] is None
    clean = result["voices"]["piper"]["conditions"]["clean"]
    assert clean["file_wer_pct"] < 30 and clean["file_words"] > 10
    assert clean["live_wer_pct"] is None and clean["live_words"] is None and clean["live_over_file"] is None
    assert all(kind["live_words"] == 0 for kind in result["nonspeech"]["kinds"].values())
    assert result["targets"]["piper"]["live_over_file_every_condition"]["met"] is None
