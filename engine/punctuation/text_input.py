"""Read words from what a user hands ``livecap punctuate``: text, or JSON with timings.

Text loses whatever punctuation and case it has (``split_words``), so a punctuated
text can be fed straight in and compared with the result.

Accepted JSON shapes:
- Vosk's result object ``{"result": [{"word", "start", "end", "conf"}...], "text": ...}``,
  or a list of such objects (one per ``Result()`` call);
- a list of words ``[{"word" | "text", "start", "end", "conf" | "confidence"}...]`` or of strings;
- livecap's own transcript JSON (``{"words": [...]}``).
"""

from __future__ import annotations

import json
import re

from engine.words import Word

# A word: letters/digits, with inner apostrophes or hyphens ("don't", "well-known"),
# or a number with inner separators ("3.5", "1,000").
WORD_RE = re.compile(r"\d+(?:[.,:]\d+)+|[^\W_]+(?:['’\-][^\W_]+)*", re.UNICODE)


def split_words(text: str) -> list[str]:
    """Lowercase words of ``text``, punctuation, quotes and brackets removed."""
    return [w.replace("’", "'").lower() for w in WORD_RE.findall(text)]


class InputError(ValueError):
    """The input cannot be read as words; the message says why and what to do."""


def parse_words(content: str, source: str = "input") -> list[Word]:
    stripped = content.lstrip()
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None  # "[laughter] so ..." is text that happens to start with a bracket
        if data is not None:
            words = _words_from_json(data, source)
            if not words:
                raise InputError(f"{source}: the JSON holds no words")
            return words
    words = [Word(w) for w in split_words(content)]
    if not words:
        raise InputError(f"{source}: no words to punctuate (the input is empty or has no letters or digits)")
    return words


def _words_from_json(data, source: str) -> list[Word]:
    if isinstance(data, dict):
        if "result" in data:
            return _words_from_json(data["result"], source)
        if "words" in data:
            return _words_from_json(data["words"], source)
        if "text" in data and isinstance(data["text"], str):  # a Vosk result without word timings
            return [Word(w) for w in split_words(data["text"])]
        raise InputError(f"{source}: JSON object has neither 'result', 'words' nor 'text'")
    if not isinstance(data, list):
        raise InputError(
            f"{source}: expected a JSON list of words or a Vosk result, got {type(data).__name__}"
        )
    words: list[Word] = []
    for index, item in enumerate(data):
        if isinstance(item, str):
            words += [Word(w) for w in split_words(item)]
        elif isinstance(item, dict) and (
            "result" in item or ("text" in item and "word" not in item and "start" not in item)
        ):
            words += _words_from_json(item, source)
        elif isinstance(item, dict):
            text = item.get("word", item.get("text"))
            if not isinstance(text, str):
                raise InputError(f"{source}: word {index} has no 'word' or 'text' string")
            try:
                start = None if item.get("start") is None else float(item["start"])
                end = None if item.get("end") is None else float(item["end"])
                conf = float(item.get("conf", item.get("confidence", 1.0)))
            except (TypeError, ValueError):
                raise InputError(
                    f"{source}: word {index} ({text!r}) has a non-numeric time or confidence"
                ) from None
            if start is not None and end is not None and end < start:
                raise InputError(f"{source}: word {index} ({text!r}) ends before it starts")
            words += [Word(w, start, end, conf) for w in split_words(text)]
        else:
            raise InputError(f"{source}: item {index} is neither a word object nor a string")
    return words
