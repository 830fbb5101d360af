"""training.speech_timing: recognized words aligned to the text that was read, with their pauses.
No torch: this is the prepare stage."""

import shutil

import pytest

from engine.evaluation.e2e_speech import Excerpt
from engine.words import Word
from training.speech_timing import (
    aligned_rows,
    build_readings,
    errors,
    groups,
    main,
    pauses_after,
    reference,
    summary,
)

FIRST = Excerpt(
    "train/a.txt#0:0",
    "well i think so".split(),
    ["comma", "none", "none", "period"],
    ["capitalized", "upper", "lower", "lower"],
)
SECOND = Excerpt(
    "train/b.txt#0:0", "is it done".split(), ["none", "none", "question"], ["capitalized", "lower", "lower"]
)
SPANS = [(0.5, 2.0), (3.0, 4.0)]


def hypothesis() -> list[Word]:
    """An inserted 'uh', 'well' right, 'i' deleted, 'think' right, 'sow' for 'so'; then the second
    excerpt, after the silence, all right."""
    return [
        Word("uh", 0.5, 0.6, written="Uh,"),
        Word("well", 0.6, 0.8, written="well,"),
        Word("think", 1.2, 1.5, written="think"),
        Word("sow", 1.5, 1.9, written="sow."),
        Word("is", 3.0, 3.2),
        Word("it", 3.25, 3.4),
        Word("done", 3.5, 3.9),
    ]


def test_rows_carry_the_reference_marks_and_cases_of_the_aligned_words():
    rows = aligned_rows([FIRST, SECOND], SPANS, hypothesis())
    assert [r["text"] for r in rows] == ["uh", "well", "think", "sow", "is", "it", "done"]
    assert [r["ref_index"] for r in rows] == [None, 0, 2, 3, 4, 5, 6]
    assert [r["ref_mark"] for r in rows] == [None, "comma", "none", "period", "none", "none", "question"]
    cases = [r["ref_case"] for r in rows]
    assert cases == [None, "capitalized", "lower", "lower", "capitalized", "lower", "lower"]
    assert [r["excerpt"] for r in rows] == [0, 0, 0, 0, 1, 1, 1]
    assert rows[1]["written"] == "well," and (rows[1]["start"], rows[1]["end"]) == (0.6, 0.8)


def test_errors_and_pauses_from_the_rows():
    rows = aligned_rows([FIRST, SECOND], SPANS, hypothesis())
    reading = {"recognizer": "whisper", "words": rows, "reference": reference([FIRST, SECOND])}
    assert errors(reading) == (3, 7)  # a substitution, an insertion, a deletion
    pauses = pauses_after(rows)
    # none across the silence between the excerpts: that gap is the reading's, not the text's
    assert pauses == [("inserted", 0.0), ("comma", 0.4), ("none", 0.0), ("none", 0.05), ("none", 0.1)]
    result = summary([{**reading, "audio_seconds": 4.5, "cpu_seconds": 1.0}])["whisper"]
    assert result["wer"] == round(3 / 7, 4) and result["words"] == 7
    assert result["median_pause_after"] == {"none": 0.05, "comma": 0.4, "inserted": 0.0}


def test_rows_survive_a_word_without_times():
    rows = aligned_rows([FIRST], SPANS[:1], [Word("well", 0.5, 0.8), Word("i"), Word("think", 1.2, 1.5)])
    assert [r["ref_index"] for r in rows] == [0, 1, 2] and rows[1]["start"] is None
    assert pauses_after(rows) == []


def test_excerpts_are_dealt_out_over_voices_and_speeds():
    excerpts = [Excerpt(f"x#{k}:0", ["a"], ["period"], ["capitalized"]) for k in range(5)]
    dealt = groups(excerpts, ["en-us", "en"], [140, 200])
    assert [(v, s, [e.source for e in g]) for v, s, g in dealt] == [
        ("en-us", 140, ["x#0:0", "x#4:0"]),
        ("en-us", 200, ["x#1:0"]),
        ("en", 140, ["x#2:0"]),
        ("en", 200, ["x#3:0"]),
    ]


def test_a_bad_corpus_folder_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "t.json"), "--corpus", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("speech_timing: ")


@pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install espeak-ng)"
)
@pytest.mark.needs_espeak
def test_pocketsphinx_on_espeak_gives_timed_aligned_rows(tmp_path):
    spoken = Excerpt(
        "train/t.txt#0:0",
        "the weather is nice today and we are going to the park".split(),
        ["none"] * 4 + ["comma"] + ["none"] * 6 + ["period"],
        ["capitalized"] + ["lower"] * 11,
    )
    logged = []
    # Twice: PocketSphinx's live CMN starts from its prior and mishears the first sentence of a stream.
    wanted = [("en-us", 130, [spoken, spoken])]
    (reading,), settings = build_readings(wanted, ["pocketsphinx"], True, tmp_path / "parts", logged.append)
    rows = reading["words"]
    assert settings["pocketsphinx"]["live"] and reading["voice"] == "en-us"
    starts = [r["start"] for r in rows]
    assert starts == sorted(starts) and all(r["end"] > r["start"] for r in rows)
    second = [r for r in rows if r["excerpt"] == 1]
    right = [
        r for r in second if r["ref_index"] is not None and r["text"] == spoken.words[r["ref_index"] - 12]
    ]
    assert len(right) >= 9, [r["text"] for r in second]
    assert {r["ref_mark"] for r in right} >= {"none", "period"}
    (again,), _ = build_readings(wanted, ["pocketsphinx"], True, tmp_path / "parts", logged.append)
    assert "cached" in logged[-1] and again == reading
