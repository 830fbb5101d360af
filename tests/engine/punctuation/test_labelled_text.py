"""Punctuated text -> words, marks and cases: the labeller training and the e2e reference share.
Whole folders (cleaning, documents, typographic capitals) are covered by tests/training/test_prepare.py."""

import pytest

from engine.punctuation.labelled_text import case_of, label_text, make_document
from engine.words import CASE_LABELS, PUNCT_LABELS


@pytest.mark.parametrize(
    "spelling, case, mixed",
    [
        ("hello", "lower", False),
        ("Hello", "capitalized", False),
        ("I", "capitalized", False),  # one capital letter is not an acronym
        ("NASA's", "upper", False),  # the possessive does not count
        ("McDonald", "capitalized", True),
        ("iPhone", "lower", True),
        ("18,000", "lower", False),
    ],
)
def test_case_of_a_spelling(spelling, case, mixed):
    assert case_of(spelling) == (CASE_LABELS.index(case), mixed)


def test_label_text_keeps_the_first_mark_after_each_word():
    words, marks, typographic = label_text(
        'Mr. Smith said: "Hello, world!" Then etc. and the U.S. troops left; 18,000 of them... Why?'
    )
    assert words == ("Mr Smith said Hello world Then etc and the U.S. troops left 18,000 of them Why".split())
    assert [PUNCT_LABELS[m] for m in marks] == [
        "none",  # "Mr." is a title, not a sentence end
        "none",
        "comma",  # ':' is a comma
        "comma",
        "period",  # '!' is a period, and the closing quote adds nothing
        "none",
        "none",  # "etc." before a lowercase word ends no sentence
        "none",
        "none",
        "none",
        "none",
        "period",  # ';' is a period
        "none",
        "none",
        "period",  # '...' is a period
        "question",
    ]
    # Capitals that may be typography: at the start of the text and after a quote (either side).
    assert [w for w, t in zip(words, typographic) if t] == ["Mr", "Hello", "Then"]


def test_displayed_cases_follow_the_marks_the_text_is_written_with():
    """';' and '!' become periods, so the word after one is written with a capital, as the engine
    writes it; every other word keeps the case it has in the source."""
    spelled, marks, _ = label_text("She was happy; but NASA said no! then iPhones came. Later, we left")
    d = make_document("t", spelled, marks)
    source = [CASE_LABELS[c] for c in d.cases]
    shown = [CASE_LABELS[c] for c in d.displayed_cases()]
    changed = {spelled[i]: (source[i], shown[i]) for i in range(len(spelled)) if source[i] != shown[i]}
    assert changed == {"but": ("lower", "capitalized"), "then": ("lower", "capitalized")}
    assert shown[spelled.index("NASA")] == "upper"  # an acronym after a sentence end stays upper
    assert shown[spelled.index("Later")] == "capitalized"
