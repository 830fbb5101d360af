"""The numbers benchmark's material and scoring, and its command on the path that needs no audio
(``python -m engine.evaluation.numbers``); no test runs the benchmark's speech."""

import json

import pytest

from engine.evaluation import numbers
from engine.evaluation.numbers_material import (
    CATEGORIES,
    load_sentences,
    parse_line,
    score_sentence,
    spoken_words,
    summarise,
)


def test_the_material_has_150_sentences_covering_every_category_and_parses_whole():
    sentences = load_sentences()
    assert len(sentences) >= 150
    assert {e.category for s in sentences for e in s.expressions} == set(CATEGORIES)
    for sentence in sentences:
        # the written sentence holds every expression's written form, and scores perfect on itself
        score = score_sentence(sentence, sentence.written.split())
        assert all(score["hits"]) and score["errors"] == 0, sentence
        assert "=>" not in sentence.spoken and "=>" not in sentence.written


def test_the_parts_split_the_sentences_in_two():
    tune, held_out = load_sentences(part="tune"), load_sentences(part="held-out")
    assert len(tune) + len(held_out) == len(load_sentences())
    assert not {s.number for s in tune} & {s.number for s in held_out}
    assert len(load_sentences(count=5)) == 5


def test_an_expression_scores_exact_only_in_one_of_its_written_forms():
    sentence = parse_line(
        0, "It opens [time: at eight a.m. => at 8 a.m. | at 8 AM] and costs [money: ten dollars => $10]."
    )
    assert sentence.spoken == "It opens at eight a.m. and costs ten dollars."
    assert sentence.written == "It opens at 8 a.m. and costs $10."
    assert score_sentence(sentence, "it opens at 8 AM, and costs $10.".split())["hits"] == [True, True]
    missed = score_sentence(sentence, "it opens at 8.00 am and costs 10 dollars".split())
    assert missed["hits"] == [False, False] and missed["errors"] == 4  # 8.00, am, 10 and dollars
    summary = summarise([sentence], [missed])
    assert summary["number_exact_pct"] == 0.0 and summary["by_category_pct"] == {"time": 0.0, "money": 0.0}


def test_a_malformed_line_says_what_is_wrong():
    with pytest.raises(ValueError, match="unknown category 'cash'"):
        parse_line(4, "It cost [cash: ten dollars => $10].")
    with pytest.raises(ValueError, match="line 3 marks no expression"):
        parse_line(2, "Nothing to see here.")


def test_spoken_words_are_what_a_recognizer_of_spoken_forms_writes():
    assert spoken_words("A built-in camera, at eight a.m. in the U.S.") == (
        "a built in camera at eight a.m. in the u.s.".split()
    )


def test_the_command_scores_the_written_form_step_on_the_spoken_words(capsys, tmp_path):
    out = tmp_path / "numbers.json"
    assert numbers.main(["--path", "spoken", "--sentences", "12", "--misses", "--out", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == json.loads(out.read_text())
    assert result["settings"]["sentences"] == 12 and "voices" not in result
    step, raw = result["spoken"]["all"], result["spoken_raw"]["all"]
    assert step["number_exact_pct"] > raw["number_exact_pct"] and step["wer_pct"] < raw["wer_pct"]
    assert {m["category"] for m in result["spoken"]["misses"]} <= {"hyphen", "abbreviation"}


def test_the_command_helps(capsys):
    with pytest.raises(SystemExit) as exit_:
        numbers.main(["--help"])
    assert exit_.value.code == 0
    assert "--sentences" in capsys.readouterr().out
