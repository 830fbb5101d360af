"""Turn a predicted case class into the word as displayed.

The model predicts the *intrinsic* case of a word (names, acronyms). Capitals at
the start of a sentence are not predicted: they follow from the marks, so they
are derived here from the previous word's mark (Faber 2020, Punctuation Prediction for Speech
Data, §4.3.1).
"""

from __future__ import annotations

from engine.words import SENTENCE_END_MARKS, apply_case

# "I" and its contractions are always capitalised, whatever the model says.
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i've", "i'd"})


class CaseRenderer:
    def __init__(self, lexicon: dict[str, str] | None = None, enabled: bool = True):
        self.lexicon = {k.lower(): v for k, v in (lexicon or {}).items()}
        self.enabled = enabled

    def render(self, word: str, case: str, previous_mark: str | None) -> tuple[str, str]:
        """Return (case class, displayed form) for ``word``.

        ``previous_mark`` is the mark after the previous word, or None at the start of a stream.
        """
        text = word.lower()
        if not self.enabled:
            return "lower", text
        sentence_start = previous_mark is None or previous_mark in SENTENCE_END_MARKS
        if text in self.lexicon:
            form = self.lexicon[text]
            if sentence_start:
                form = form[:1].upper() + form[1:]
            return ("capitalized" if form[:1].isupper() else "lower"), form
        if (
            text.replace("\u2019", "'") in _FIRST_PERSON
        ):  # typed or pasted text may carry a typographic apostrophe
            case = "capitalized"
        elif sentence_start and case == "lower":
            case = "capitalized"
        return case, apply_case(text, case)

    def inner_form(self, word: str, case: str, form: str) -> str:
        """The form ``word`` takes inside a sentence, where ``form`` (rendered with the real
        previous mark) may carry a sentence-start capital; "" where the two are the same."""
        inner = self.render(word, case, "none")[1]
        return "" if inner == form else inner
