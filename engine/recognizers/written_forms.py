"""Written forms for the words of a recognizer that writes spoken forms (Vosk, PocketSphinx).

Such a recognizer writes "forty two thousand dollars", "ten thirty" and "twelve percent"; a
person writes "$42,000", "10:30" and "12%". The numbers are found by ``text2num``
(``find_numbers``: ``alpha2digit``'s search on a list of words, saying which words each number
was said in); what a person writes around them (a currency sign, a percent sign, a clock time, a
year, a phone number, a version) is decided here, by the rules below, each kept only where the
numbers benchmark (``python -m engine.evaluation.numbers``, docs/experiments/2026-12-07-numbers.md)
showed it right:

- a count up to nine, an ordinal up to "ninth" and a bare "hundred" or "thousand" stay words, as
  a person writes them ("one of them", "a hundred people were there", "the third quarter");
  larger ones become digits ("twelve" → "12", "fortieth" → "40th", "forty two thousand" → "42,000");
- a number then "dollars" is money ("$42,000", "$3.5 million", "$4.50" with its cents), then
  "euros" the same with "€"; a number then "percent" is a percentage ("12%", "3.5%");
- an hour then minutes ("ten thirty", "nine oh five") is a clock time ("10:30", "9:05") only after
  a word that announces a time ("at", "by", "until"...) or before "a.m." or "p.m."; "a m" is "a.m.";
- "nineteen ninety nine", "twenty twenty four" and "twenty oh five" are years;
- three or more single digits said one by one are one number, grouped as a phone number where
  seven or ten of them are ("555-1234"); numbers joined by "point" are a version ("2.3.1");
- "million", "billion" and "trillion" after a number up to 999 stay words ("42 million");
- a day after a month is in digits ("March 3rd"), and so is one from the 10th before "of" and a
  month ("the 15th of June"; "the first of May" stays);
- a range where either end is 10 or more ("eight to twelve"), a number after a label ("page",
  "version") and an hour before "a.m." or "p.m." are in digits.

A word the rules merge keeps the first word's start and the last word's end, and the least
confidence of its words. The step reads a whole utterance's words, so a live session applies it
to each hypothesis and final before the stabiliser (``engine.session.side``): the stabiliser
then commits written forms as it commits any word, once they stand, and never changes a word it
froze. Whether a recognizer needs the step is its kind's declaration (``kinds``'
``writes_spoken_forms``); its language must be English, the language the rules are written for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from text_to_num import Token, find_numbers

from engine.recognizers.base import Recognizer, RecognizerUpdate
from engine.words import Word, is_english

__all__ = ["spoken_to_written", "written_forms", "written_updates"]

SMALLEST_IN_DIGITS = 10  # counts and ordinals below it stay words
MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
# Words after which an hour and its minutes are a clock time ("at ten thirty").
TIME_CUES = frozenset("at by until till from to before after around about since between and".split())
MERIDIEM = {"a.m.": "a.m.", "p.m.": "p.m.", "am": "a.m.", "pm": "p.m."}
# Labels a number after which is written in digits however small ("page 3", "version 2").
LABELS = frozenset(
    "version chapter page room number step level section gate platform track episode season "
    "volume phase figure table item line floor grade channel".split()
)
SCALES = {"hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
LARGE_SCALES = ("trillion", "billion", "million")  # kept as words after a number up to 999
RANGE_WORDS = frozenset({"to", "and", "through", "or"})
CURRENCIES = {"dollars": "$", "dollar": "$", "bucks": "$", "euros": "€", "euro": "€"}
ZERO_WORDS = frozenset({"oh", "o"})  # "nine oh five": a zero in a clock time, a year or a number
_DIGIT = re.compile(r"\d")


class _Spoken(Token):
    """A word as ``text2num`` reads it (its ``Token`` protocol, every method of which it calls)."""

    def __init__(self, text: str):
        self._text = text

    def text(self) -> str:
        return self._text

    def nt_separated(self, previous) -> bool:
        return False

    def not_a_number_part(self) -> bool:
        return False


@dataclass
class _Item:
    """Words ``first``..``last`` (inclusive) of the utterance: a word (``value`` None) or a number
    ``text2num`` found, with its text (``text``: "42000", "3.5", "40th") and the words said."""

    text: str
    first: int
    last: int
    value: float | None = None
    ordinal: bool = False
    spoken: tuple[str, ...] = ()
    fixed: bool = False  # written as ``text`` stands ("$42,000", "10:30", "555-1234")
    digits: bool = False  # in digits however small ("page 3", "March 3rd", "8 to 12")

    @property
    def is_number(self) -> bool:
        return self.value is not None

    @property
    def integer(self) -> int | None:
        """Its value where it is a cardinal said as a whole number, else None."""
        if self.value is None or self.ordinal or self.fixed or "." in self.text:
            return None
        return int(self.value) if self.value == int(self.value) else None


def _plain(number: _Item, money: bool = False) -> str:
    """A number in digits as a person writes it: thousands separated from 10,000 on (from 1,000
    on for money; a four-digit number may be a year), a large round number with its scale word
    ("42 million"), a decimal as said ("3.5"), an ordinal with its suffix ("40th")."""
    value = number.integer
    if value is None:
        return number.text
    for scale in LARGE_SCALES:
        size = SCALES[scale]
        if number.spoken[-1:] == (scale,) and value % size == 0 and value // size < 1000:
            return f"{value // size} {scale}"
    return f"{value:,}" if value >= (1000 if money else 10_000) else str(value)


def _items(tokens: list[str]) -> list[_Item]:
    """The utterance as words and the numbers ``text2num`` finds in it (every number, however
    small: which stay words is decided afterwards)."""
    found = find_numbers([_Spoken(t) for t in tokens], "en", threshold=0)
    items, at = [], 0
    for number in found:
        items += [_Item(t, i, i) for i, t in enumerate(tokens[at : number.start], start=at)]
        spoken = tuple(tokens[number.start : number.end])
        items.append(
            _Item(number.text, number.start, number.end - 1, number.value, number.is_ordinal, spoken)
        )
        at = number.end
    items += [_Item(t, i, i) for i, t in enumerate(tokens[at:], start=at)]
    return items


def _merge(items: list[_Item], start: int, stop: int, text: str, value: float) -> None:
    """Replace ``items[start:stop]`` by one number written ``text`` as it stands."""
    spoken = tuple(w for item in items[start:stop] for w in (item.spoken or (item.text,)))
    items[start:stop] = [
        _Item(text, items[start].first, items[stop - 1].last, value, spoken=spoken, fixed=True)
    ]


def _word(items: list[_Item], i: int) -> str | None:
    """The word at ``i`` where a word is there, else None."""
    return items[i].text if 0 <= i < len(items) and not items[i].is_number else None


def _number(items: list[_Item], i: int) -> _Item | None:
    return items[i] if 0 <= i < len(items) and items[i].is_number else None


def _single_digit(item: _Item | None) -> bool:
    return item is not None and len(item.spoken) == 1 and item.integer is not None and item.integer < 10


def _oh_digit(items: list[_Item], i: int) -> int | None:
    """The digit of "oh five" at ``i`` (minutes, a year's last two digits), else None."""
    digit = _number(items, i + 1)
    return digit.integer if _word(items, i) in ZERO_WORDS and _single_digit(digit) else None


def _two_digits(items: list[_Item], i: int, least: int) -> tuple[int, int] | None:
    """(value, items read) of the two-digit group at ``i``: ``least``–99 in one number, or "oh"
    and a digit (one number "05" where ``text2num`` read "o five" so); None where there is none."""
    number = _number(items, i)
    if number is not None and number.integer is not None and least <= number.integer <= 99:
        return number.integer, 1
    if number is not None and number.integer is not None and number.spoken[:1] in {(z,) for z in ZERO_WORDS}:
        return (number.integer, 1) if len(number.spoken) == 2 else None
    digit = _oh_digit(items, i)
    return None if digit is None else (digit, 2)


# -- the rules, each one pass over the items --------------------------------------------------------
def _meridiem(items: list[_Item]) -> None:
    """ "a m", "am" and "p m", "pm" after a number are "a.m." and "p.m."."""
    for i in range(len(items) - 1, 0, -1):
        if not items[i - 1].is_number:
            continue
        pair = f"{_word(items, i)}{_word(items, i + 1)}"
        if pair in ("am", "pm"):
            items[i : i + 2] = [_Item(MERIDIEM[pair], items[i].first, items[i + 1].last)]
        elif _word(items, i) in ("am", "pm"):
            items[i] = _Item(MERIDIEM[items[i].text], items[i].first, items[i].last)


def _clock_times(items: list[_Item]) -> None:
    """An hour (1–12) then minutes (10–59, or "oh" and a digit) after a time cue or before a.m./p.m."""
    for i in range(len(items) - 1, -1, -1):
        hour = _number(items, i)
        minutes = _two_digits(items, i + 1, 10) if hour is not None else None
        if minutes is None or hour.integer is None or not 1 <= hour.integer <= 12 or len(hour.spoken) > 1:
            continue
        value, width = minutes
        after = _word(items, i + 1 + width)
        if _word(items, i - 1) in TIME_CUES or after in MERIDIEM.values():
            _merge(items, i, i + 1 + width, f"{hour.integer}:{value:02d}", hour.integer)


def _years(items: list[_Item]) -> None:
    """ "nineteen ninety nine" (13–20 then 10–99) and "twenty oh five" are years."""
    for i in range(len(items) - 1, -1, -1):
        century = _number(items, i)
        if century is None or century.integer is None or not 13 <= century.integer <= 20:
            continue
        rest = _two_digits(items, i + 1, 10)
        if rest is not None and len(century.spoken) == 1:
            year = century.integer * 100 + rest[0]
            _merge(items, i, i + 1 + rest[1], str(year), year)


def _digit_runs(items: list[_Item]) -> None:
    """Three or more single digits said one by one ("five five five one two three four") are one
    number, grouped as a phone number where there are seven or ten; "oh" among them is a zero."""
    i = 0
    while i < len(items):
        j, digits = i, ""
        while True:
            if _single_digit(_number(items, j)):
                digits, j = digits + str(items[j].integer), j + 1
            elif digits and _oh_digit(items, j) is not None:
                digits, j = digits + "0", j + 1
            else:
                break
        if len(digits) >= 3:
            cuts = {7: (0, 3, 7), 10: (0, 3, 6, 10)}.get(len(digits))
            text = "-".join(digits[a:b] for a, b in zip(cuts, cuts[1:])) if cuts else digits
            _merge(items, i, j, text, float(digits.replace("-", "")))
        i += 1


def _points(items: list[_Item]) -> None:
    """Numbers joined by "point" are one ("version two point three point one" → "2.3.1")."""
    for i in range(len(items) - 3, -1, -1):
        left, right = _number(items, i), _number(items, i + 2)
        if left is None or right is None or _word(items, i + 1) != "point":
            continue
        if not left.ordinal and right.integer is not None:
            _merge(items, i, i + 3, f"{left.text}.{right.text}", left.value)


def _large_scales(items: list[_Item]) -> None:
    """A decimal then "million" ("three point five million") is "3.5 million"."""
    for i in range(len(items) - 2, -1, -1):
        left, scale = _number(items, i), _number(items, i + 1)
        if left is None or scale is None or "." not in left.text or left.ordinal:
            continue
        if len(scale.spoken) == 1 and scale.spoken[0] in LARGE_SCALES:
            _merge(items, i, i + 2, f"{left.text} {scale.spoken[0]}", left.value * SCALES[scale.spoken[0]])


def _money_and_percent(items: list[_Item]) -> None:
    """A number then "dollars" (and cents) or "euros" is money; then "percent", a percentage."""
    for i in range(len(items) - 2, -1, -1):
        number, after = _number(items, i), _word(items, i + 1)
        if number is None or number.ordinal or ":" in number.text or "-" in number.text:
            continue
        if after in CURRENCIES:
            text, stop = CURRENCIES[after] + _plain(number, money=True), i + 2
            cents = _number(items, i + 3)
            said_cents = _word(items, i + 2) == "and" and _word(items, i + 4) in ("cents", "cent")
            if (
                said_cents
                and number.integer is not None
                and cents.integer is not None
                and cents.integer < 100
            ):
                text, stop = f"{text}.{cents.integer:02d}", i + 5
            _merge(items, i, stop, text, number.value)
        elif after == "percent" or (after == "per" and _word(items, i + 2) == "cent"):
            _merge(items, i, i + (2 if after == "percent" else 3), _plain(number) + "%", number.value)


def _in_digits(items: list[_Item]) -> None:
    """In digits however small: a day after a month ("March third"), a number after a label
    ("page three") or before "a.m." or "p.m.", both ends of a range where either is 10 or more
    ("eight to twelve")."""
    for i, item in enumerate(items):
        if not item.is_number or item.fixed:
            continue
        if item.ordinal and item.value <= 31:  # "the first of May" stays as a person says it
            month_after = _word(items, i + 1) == "of" and _word(items, i + 2) in MONTHS
            item.digits |= _word(items, i - 1) in MONTHS or (month_after and item.value >= SMALLEST_IN_DIGITS)
        if (_word(items, i - 1) in LABELS and not item.ordinal) or _word(items, i + 1) in MERIDIEM.values():
            item.digits = True  # "page 3", "8 a.m."
        other = _number(items, i + 2)
        if other is not None and not other.fixed and _word(items, i + 1) in RANGE_WORDS:
            if item.ordinal == other.ordinal and max(item.value, other.value) >= SMALLEST_IN_DIGITS:
                item.digits = other.digits = True


def _render(item: _Item, said: list[str]) -> list[str]:
    """What is written for one item: a word as heard; a number in digits, or as the words said
    where a person writes it so (a small count or ordinal, a bare "hundred")."""
    if not item.is_number or item.fixed:
        return [item.text]
    if item.digits or "." in item.text:  # a decimal is in digits however small ("0.75")
        return [_plain(item)]
    if len(item.spoken) == 1 and item.spoken[0] in SCALES:  # "a hundred people", "a thousand"
        return said
    if item.value < SMALLEST_IN_DIGITS:
        return said
    return [_plain(item)]


def written_forms(words: Sequence[Word]) -> list[Word]:
    """``words`` (an utterance of an English recognizer that writes spoken forms) with numbers,
    money, percentages, clock times and the like as a person writes them (the module's rules).
    A word that several become spans their times, with the least of their confidences."""
    tokens = [w.text.lower() for w in words]
    if not any(_could_be_number(t) for t in tokens):
        return list(words)
    items = _items(tokens)
    for rule in (_meridiem, _clock_times, _years, _digit_runs, _points, _large_scales, _money_and_percent):
        rule(items)
    _in_digits(items)
    for i in range(len(items) - 1, 0, -1):  # "a hundred and twenty people" is "120 people"
        item = items[i]
        if item.is_number and item.spoken[:1] in {(s,) for s in SCALES} and _word(items, i - 1) == "a":
            if _render(item, tokens[item.first : item.last + 1]) != tokens[item.first : item.last + 1]:
                items[i - 1 : i + 1] = [replace(item, first=items[i - 1].first)]
    out: list[Word] = []
    for item in items:
        said = tokens[item.first : item.last + 1]
        texts = _render(item, said)
        if texts == said:
            out += list(words[item.first : item.last + 1])  # as heard
        else:
            out.append(_spanning(words[item.first : item.last + 1], texts[0]))
    return out


def _could_be_number(token: str) -> bool:
    """Cheap test before ``text2num`` reads an utterance: a number word or a digit in it."""
    return token in _NUMBER_WORDS or bool(_DIGIT.search(token)) or token.split("-")[0] in _NUMBER_WORDS


_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
    "thousand million billion trillion first second third fourth fifth sixth seventh eighth ninth "
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
    "nineteenth twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth "
    "hundredth thousandth millionth".split()
)


def _spanning(words: Sequence[Word], text: str) -> Word:
    first, last = words[0], words[-1]
    return replace(
        first, text=text, end=last.end, confidence=min(w.confidence for w in words), written="", prosody=()
    )


def written_updates(update: RecognizerUpdate) -> RecognizerUpdate:
    """``update`` with its hypothesis and its final in written forms (each is one utterance)."""
    final = None if update.final is None else written_forms(update.final)
    return replace(update, partial=written_forms(update.partial), final=final)


def spoken_to_written(recognizer: Recognizer) -> Callable[[RecognizerUpdate], RecognizerUpdate]:
    """What a session does to ``recognizer``'s updates before anything reads them, where it hears
    English: written forms where its kind declares that it writes spoken forms; clock times as a
    person writes them where it writes written forms its own way (``written_times``: Whisper's
    "at 10.30"), a new step for each session, since it remembers the words before; else nothing."""
    from engine.recognizers.kinds import find_kind
    from engine.recognizers.written_times import ClockTimes

    kind = find_kind(getattr(recognizer, "name", None))
    english = is_english(recognizer.language) or getattr(recognizer, "translating", False)
    if kind is not None and english:
        return written_updates if kind.writes_spoken_forms else ClockTimes()
    return lambda update: update
