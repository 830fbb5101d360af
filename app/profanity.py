"""The optional profanity mask (settings: display/profanity_mask), applied on display only.

The transcript and its exports keep the words as spoken: masking is a courtesy for a
screen others can see (a projected overlay), not an edit of the record. A word is masked
when its letters, lowercased, are in the list or start with one of its stems; the first
letter stays, so a reader can still follow the sentence ("f***").
"""

from __future__ import annotations

import re

# Kept short and unambiguous: a mask that hits "class" or "Scunthorpe" is worse than none.
WORDS = frozenset(
    {
        "fuck",
        "fucking",
        "fucked",
        "fucker",
        "motherfucker",
        "shit",
        "shitty",
        "bullshit",
        "bitch",
        "bastard",
        "asshole",
        "dick",
        "cunt",
        "prick",
        "wanker",
        "twat",
        "bollocks",
        "piss",
        "pissed",
        "crap",
        "damn",
        "goddamn",
        "slut",
        "whore",
    }
)
_LETTERS = re.compile(r"[A-Za-z']+")


def is_profane(word: str) -> bool:
    core = "".join(_LETTERS.findall(word)).lower().replace("'", "")
    return core in WORDS or (core.endswith("s") and core[:-1] in WORDS)


def mask(word: str) -> str:
    """``word`` with every letter after the first replaced by "*"; punctuation kept."""
    if not is_profane(word):
        return word
    seen = False
    out = []
    for ch in word:
        if ch.isalpha():
            out.append(ch if not seen else "*")
            seen = True
        else:
            out.append(ch)
    return "".join(out)
