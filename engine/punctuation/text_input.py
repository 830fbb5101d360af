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
from dataclasses import dataclass

from engine.words import Word, bare_word, continues_word

# A word: an abbreviation ("U.S.", "e.g.": its periods are the word's), a number with inner
# separators ("3.5", "1,000", "10:30"), or letters/digits with inner apostrophes or hyphens
# ("don't", "well-known").
WORD_RE = re.compile(r"(?:[^\W\d_]\.){2,}|\d+(?:[.,:]\d+)+|[^\W_]+(?:['’\-][^\W_]+)*", re.UNICODE)


# The marks the model writes itself: the input's own are dropped, so that it decides them afresh.
OWNED_MARKS = frozenset(".,?!;:…")
# A text opening with "[" is JSON when a JSON value follows ("[laughter] so..." is text).
_JSON_LIST = re.compile(r"\[\s*(?:[\[{\"\]\d-]|$)")


def split_words(text: str) -> list[str]:
    """Lowercase words of ``text``, punctuation, quotes and brackets removed (a plain text's
    symbols and emoji stay in its ``TextLayout``)."""
    return [w.replace("’", "'").lower() for w in WORD_RE.findall(text)]


def recognized_words(text: str) -> list[str]:
    """The words of a recognizer's ``text`` (a JSON word or string): split at spaces, each
    ``bare_word`` (lower case, the marks around it dropped), symbols kept ("12%", "$8,000",
    "&"); a mark standing alone is no word."""
    return [w for w in (bare_word(t) for t in text.replace("’", "'").split()) if w]


@dataclass(frozen=True)
class TextLayout:
    """What a text holds besides its words and its marks: emoji, symbols, quotes, brackets,
    dashes, kept where the input had them, so that punctuating loses no character but the marks
    the model writes itself (``OWNED_MARKS``)."""

    before: list[str]  # just before word i: an opening quote or bracket ("🙂 " before the first word)
    after: list[str]  # just after word i, before its mark: a closing quote or bracket
    trailing: list[str]  # after word i and its mark, standing alone: " 🙂", " &"
    glued: list[bool]  # no space between word i and word i + 1 ("and/or")

    def render(self, i: int, form: str, mark: str) -> str:
        """Word ``i`` as written, with its mark and what stood around it."""
        return self.before[i] + form + self.after[i] + mark + self.trailing[i]


def text_layout(text: str) -> TextLayout:
    """The layout of ``text`` around the words ``split_words`` finds, in the same order."""
    spans = [m.span() for m in WORD_RE.finditer(text)]
    n = len(spans)
    before, after, trailing, glued = [""] * n, [""] * n, [""] * n, [False] * n
    edges = [0] + [end for _, end in spans]
    for i in range(n + 1 if n else 0):  # gap i lies before word i (after word i - 1)
        gap = text[edges[i] : spans[i][0] if i < n else len(text)]
        kept = "".join(c for c in gap if c not in OWNED_MARKS)
        pieces = kept.split()
        if not pieces:
            continue
        if 0 < i < n and not any(c.isspace() for c in kept):
            after[i - 1] += kept  # "and/or": one token, written as it was
            glued[i - 1] = True
            continue
        if i > 0 and not kept[:1].isspace():
            after[i - 1] += pieces.pop(0)
        trail = pieces.pop() if pieces and i < n and not kept[-1:].isspace() else ""
        if i > 0:
            trailing[i - 1] += "".join(" " + p for p in pieces)
        else:
            before[0] += "".join(p + " " for p in pieces)
        if i < n:
            before[i] += trail
    return TextLayout(before, after, trailing, glued)


class InputError(ValueError):
    """The input cannot be read as words; the message says why and what to do."""


def looks_like_json(content: str, name: str = "") -> bool:
    """``name`` ends in .json, or the text opens as a JSON object or list does."""
    stripped = content.lstrip()
    return name.lower().endswith(".json") or stripped[:1] == "{" or bool(_JSON_LIST.match(stripped))


def parse_words(content: str, source: str = "input") -> list[Word]:
    return read_words(content, source)[0]


def read_words(content: str, source: str = "input") -> tuple[list[Word], TextLayout | None]:
    """The words of ``content``, and for plain text its layout (None for JSON, which has none).

    Content that looks like JSON (``looks_like_json``) and does not parse is an error, not text:
    "punctuating" a broken file would hide that it is broken."""
    if looks_like_json(content, source):
        try:
            data = json.loads(content)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "fix the file, or give the text in a .txt file"
            ) from None
        words = _joined(_words_from_json(data, source))
        if not words:
            raise InputError(f"{source}: the JSON holds no words")
        return words, None
    words = [Word(w) for w in split_words(content)]
    if not words:
        raise InputError(f"{source}: no words to punctuate (the input is empty or has no letters or digits)")
    return words, text_layout(content)


def _joined(words: list[tuple[Word, str]]) -> list[Word]:
    """The JSON's words, each with the writing it came as, joined by the rule that joins a
    recognizer's pieces (``continues_word``): "12" and "%" are "12%", "$" and "8" are "$8", and
    "42" and ",000" (a transcript written before the rule) are "42,000". Nothing is dropped."""
    out: list[Word] = []
    last = ""
    for word, writing in words:
        if out and continues_word(last, " " + writing):
            joined = out[-1]
            last = last + writing
            ends = [t for t in (joined.end, word.end) if t is not None]
            out[-1] = Word(
                bare_word(last),
                joined.start if joined.start is not None else word.start,
                max(ends) if ends else None,
                min(joined.confidence, word.confidence),
            )
        else:
            out.append(word)
            last = writing
    return out


def _words_from_json(data, source: str) -> list[tuple[Word, str]]:
    if isinstance(data, dict):
        if "result" in data:
            return _words_from_json(data["result"], source)
        if "words" in data:
            return _words_from_json(data["words"], source)
        if "text" in data and isinstance(data["text"], str):  # a Vosk result without word timings
            return [(Word(w), w) for w in recognized_words(data["text"])]
        raise InputError(f"{source}: JSON object has neither 'result', 'words' nor 'text'")
    if not isinstance(data, list):
        raise InputError(
            f"{source}: expected a JSON list of words or a Vosk result, got {type(data).__name__}"
        )
    words: list[tuple[Word, str]] = []
    for index, item in enumerate(data):
        if isinstance(item, str):
            words += [(Word(w), w) for w in recognized_words(item)]
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
            found = recognized_words(text)
            # livecap's transcripts keep the recognizer's writing (",000" of "42,000")
            written = item.get("written")
            writings = (
                [written.strip()]
                if len(found) == 1 and isinstance(written, str) and written.strip()
                else found
            )
            words += [(Word(w, start, end, conf), writing) for w, writing in zip(found, writings)]
        else:
            raise InputError(f"{source}: item {index} is neither a word object nor a string")
    return words
