"""Turn a predicted case class into the word as displayed.

The model predicts the *intrinsic* case of a word (names, acronyms). Capitals at
the start of a sentence are not predicted: they follow from the marks, so they
are derived here from the previous word's mark (Faber 2020, Punctuation Prediction for Speech
Data, §4.3.1).

Inside a sentence a word is capitalised only where something says it is a name: a written form
it is known by (the user's ``known_forms``, then the model's lexicon), the model's case class, or
the words English always writes with a capital ("I" and its contractions, the months, the days of
the week). "March" and "May" are also a verb and a modal: they are capitalised where they name
a month, next to a day ("March 15", "the 3rd of May") or after a word that leads to a month
("in May"), or where the model says so. A recognizer's own capitals are weighed before this
(``hint_fusion``), and there they cannot make a word a name that the model does not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.words import SENTENCE_END_MARKS, apply_case

__all__ = ["ALWAYS_CAPITALISED", "CALENDAR_NAMES", "CaseRenderer", "always_capitalised"]

# "I" and its contractions are always capitalised, whatever the model says.
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i've", "i'd"})
_CALENDAR = frozenset(
    "january february april june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
ALWAYS_CAPITALISED = _FIRST_PERSON | _CALENDAR
# Months that are common words too ("we march", "it may"): a month only beside a date.
_MONTHS_THAT_ARE_WORDS = frozenset({"march", "may"})
CALENDAR_NAMES = _CALENDAR | _MONTHS_THAT_ARE_WORDS
_LEADS_TO_MONTH = frozenset({"in", "of", "since", "until", "till", "early", "mid", "through"})
_DAY = re.compile(r"(?:[1-9]|[12]\d|3[01])(st|nd|rd|th)?[.,]?$")
# Ordinals that name a day; "first" and "second" also follow a modal ("we may first ask").
_DAY_WORDS = frozenset(
    "third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth".split()
)


def _plain(word: str) -> str:
    # typed or pasted text may carry a typographic apostrophe
    return word.lower().replace("\u2019", "'")


def _is_day(word: str | None, ordinal: bool = False) -> bool:
    """Whether ``word`` is a day of a month ("15", "15th", "fifteenth"); ``ordinal``: as an
    ordinal only ("the 15th May", not "these 3 may help")."""
    text = _plain(word or "").strip(".,")
    number = _DAY.match(text)
    if number:
        return bool(number[1]) or not ordinal
    return text in _DAY_WORDS or text.split("-")[-1] in _DAY_WORDS


def always_capitalised(word: str, before: str | None = None, after: str | None = None) -> bool:
    """Whether English writes ``word`` with a capital wherever it stands: "I", a month, a day of
    the week; "March" and "May" only beside a day or after a word that leads to a month
    (``before`` and ``after``: the words around it, None where unknown)."""
    text = _plain(word)
    if text in ALWAYS_CAPITALISED:
        return True
    if text not in _MONTHS_THAT_ARE_WORDS:
        return False
    return _is_day(after) or _plain(before or "") in _LEADS_TO_MONTH or _is_day(before, ordinal=True)


class CaseRenderer:
    def __init__(
        self,
        lexicon: Mapping[str, str] | None = None,
        enabled: bool = True,
        known_forms: Mapping[str, str] | None = None,
    ):
        """``lexicon``: the model's written forms of words it cannot case ("GitHub");
        ``known_forms``: written forms the user declared (a vocabulary), which come first and are
        kept exactly, a sentence's first word too ("kubectl" is never "Kubectl")."""
        self.lexicon = {k.lower(): v for k, v in (lexicon or {}).items()}
        self.exact = {k.lower() for k in (known_forms or {})}
        self.lexicon.update({k.lower(): v for k, v in (known_forms or {}).items()})
        self.enabled = enabled

    def learn(self, known_forms: Mapping[str, str]) -> None:
        """Add the written forms of a vocabulary learned while captioning. The two tables are
        replaced whole, not changed in place: the engine's thread may be reading them."""
        self.exact = self.exact | {k.lower() for k in known_forms}
        self.lexicon = {**self.lexicon, **{k.lower(): v for k, v in known_forms.items()}}

    def render(
        self,
        word: str,
        case: str,
        previous_mark: str | None,
        before: str | None = None,
        after: str | None = None,
    ) -> tuple[str, str]:
        """Return (case class, displayed form) for ``word``.

        ``previous_mark`` is the mark after the previous word, or None at the start of a stream;
        ``before`` and ``after`` are the words around it (None where unknown), which tell the
        month "March" from the verb.
        """
        text = word.lower()
        if not self.enabled:
            return "lower", text
        sentence_start = previous_mark is None or previous_mark in SENTENCE_END_MARKS
        if text in self.lexicon:
            form = self.lexicon[text]
            if sentence_start and text not in self.exact:
                form = form[:1].upper() + form[1:]
            return ("capitalized" if form[:1].isupper() else "lower"), form
        if _plain(text) in _FIRST_PERSON:
            case = "capitalized"
        elif case == "lower" and (sentence_start or always_capitalised(text, before, after)):
            case = "capitalized"
        return case, apply_case(text, case)

    def inner_form(
        self, word: str, case: str, form: str, before: str | None = None, after: str | None = None
    ) -> str:
        """The form ``word`` takes inside a sentence, where ``form`` (rendered with the real
        previous mark) may carry a sentence-start capital; "" where the two are the same."""
        inner = self.render(word, case, "none", before, after)[1]
        return "" if inner == form else inner
