"""Turn written text into the bare lowercase words a recognizer would produce.

``livecap punctuate`` strips whatever punctuation and case its input has, so a
punctuated text can be fed straight in and compared with the result.
"""

from __future__ import annotations

import re

# A word: letters/digits, with inner apostrophes or hyphens ("don't", "well-known"),
# or a number with inner separators ("3.5", "1,000").
WORD_RE = re.compile(r"\d+(?:[.,:]\d+)+|[^\W_]+(?:['’\-][^\W_]+)*", re.UNICODE)


def split_words(text: str) -> list[str]:
    """Lowercase words of ``text``, punctuation, quotes and brackets removed."""
    return [w.replace("’", "'").lower() for w in WORD_RE.findall(text)]
