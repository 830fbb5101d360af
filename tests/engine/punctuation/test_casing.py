"""Casing rules: sentence-initial capitals from marks, "I" and its contractions, the lexicon."""

import pytest

from engine.punctuation.casing import CaseRenderer


@pytest.mark.parametrize(
    "word,form",
    [("i", "I"), ("i'm", "I'm"), ("i'll", "I'll"), ("i've", "I've"), ("i'd", "I'd"), ("I’M", "I’m")],
)
def test_i_and_its_contractions_are_always_capitalised(word, form):
    renderer = CaseRenderer()
    # mid-sentence, and the model said lower: still capitalised
    assert renderer.render(word, "lower", "none") == ("capitalized", form)
    assert renderer.render(word, "lower", "comma") == ("capitalized", form)


def test_words_that_merely_start_with_i_are_not():
    renderer = CaseRenderer()
    assert renderer.render("it's", "lower", "none") == ("lower", "it's")
    assert renderer.render("id", "lower", "comma") == ("lower", "id")


def test_sentence_start_follows_the_previous_mark():
    renderer = CaseRenderer()
    assert renderer.render("so", "lower", None)[1] == "So"  # start of the stream
    assert renderer.render("so", "lower", "period")[1] == "So"
    assert renderer.render("so", "lower", "question")[1] == "So"
    assert renderer.render("so", "lower", "comma")[1] == "so"
    assert renderer.render("so", "lower", "none")[1] == "so"
    # the model's own intrinsic case survives both inside and at the start of a sentence
    assert renderer.render("nasa", "upper", "none") == ("upper", "NASA")
    assert renderer.render("nasa", "upper", "period") == ("upper", "NASA")
    assert renderer.render("paris", "capitalized", "comma") == ("capitalized", "Paris")


def test_lexicon_forms_win_and_still_start_sentences():
    renderer = CaseRenderer({"iPhone": "iPhone", "mcdonald": "McDonald"})
    assert renderer.render("iphone", "lower", "none") == ("lower", "iPhone")
    assert renderer.render("IPHONE", "upper", "comma") == ("lower", "iPhone")  # lexicon beats the model
    assert renderer.render("iphone", "lower", "period") == ("capitalized", "IPhone")
    assert renderer.render("mcdonald", "lower", "none") == ("capitalized", "McDonald")


def test_casing_off_keeps_every_word_lowercase():
    renderer = CaseRenderer({"iphone": "iPhone"}, enabled=False)
    for word in ("i", "i'm", "iphone", "NASA"):
        assert renderer.render(word, "upper", None) == ("lower", word.lower())


@pytest.mark.parametrize("word", ["january", "april", "december", "monday", "friday", "sunday"])
def test_months_and_days_are_capitalised_inside_a_sentence_whatever_the_model_says(word):
    assert CaseRenderer().render(word, "lower", "none") == ("capitalized", word.capitalize())


@pytest.mark.parametrize(
    "before,word,after,form",
    [
        ("to", "march", "15th", "March"),  # "move it to March 15th"
        ("on", "march", "3", "March"),
        ("in", "may", None, "May"),
        ("of", "may", None, "May"),  # "the 3rd of May"
        ("15th", "march", None, "March"),  # "the 15th March"
        ("will", "march", "to", "march"),  # the verb
        ("we", "may", "go", "may"),  # the modal
        (None, "may", None, "may"),
        ("these", "may", "help", "may"),
        ("3", "may", "help", "may"),  # "these 3 may help"
        ("we", "may", "first", "may"),  # "we may first ask"
    ],
)
def test_march_and_may_are_months_only_beside_a_date(before, word, after, form):
    assert CaseRenderer().render(word, "lower", "none", before, after)[1] == form


def test_a_word_the_model_calls_lower_stays_lower_inside_a_sentence():
    renderer = CaseRenderer()
    assert renderer.render("plan", "lower", "none", "over", "for") == ("lower", "plan")
    assert renderer.render("Mergers", "lower", "comma") == ("lower", "mergers")


def test_known_forms_declared_by_the_user_come_before_the_lexicon_and_the_model():
    renderer = CaseRenderer({"github": "GitHub"}, known_forms={"GitHub": "Github", "livecap": "LiveCap"})
    assert renderer.render("github", "capitalized", "none") == ("capitalized", "Github")
    assert renderer.render("livecap", "lower", "none") == ("capitalized", "LiveCap")
    assert renderer.render("livecap", "lower", "period")[1] == "LiveCap"
    assert renderer.inner_form("livecap", "lower", "LiveCap") == ""
