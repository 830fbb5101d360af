"""What words sound like: phonemes from espeak-ng, and a distance between two phoneme strings.

espeak-ng (``espeak-ng -q -x --ipa``) turns any spelling into phonemes, names and made-up words
included, by its English letter-to-sound rules and its lexicon. One process reads many lines
at once (``phonemes``), each answer is kept for the process's life (a vocabulary's terms and a
transcript's words repeat), and each line is cleaned first to letters, digits and apostrophes:
espeak-ng splits a line at a period into two answers, and spells out a letter its English voice
does not know ("ễ").

The strings are simplified (stress, length and a few sounds that recognizers and voices blur
are folded together) so that ``distance`` compares what matters: "graph on a" and "Grafana"
differ in one vowel.
"""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from collections.abc import Iterable

__all__ = ["ESPEAK", "PhonemeError", "distance", "forget", "phonemes", "speakable"]

ESPEAK = "espeak-ng"
VOICE = "en-us"  # the recognizers' English
# Folded before comparing: what espeak-ng writes apart but voices and recognizers blur.
FOLD = str.maketrans(
    {
        "ˈ": None, "ˌ": None, "ː": None, " ": None, "-": None, "‿": None, "ʲ": None,
        "ɚ": "əɹ", "ɝ": "əɹ", "ɜ": "ə", "ɐ": "ə", "ʌ": "ə", "ᵻ": "ɪ", "ɾ": "t", "ʔ": "t",
        "ɫ": "l", "ɡ": "g", "ɒ": "ɔ", "ɑ": "a", "ɬ": "l", "ç": "h", "x": "k",
    }
)  # fmt: skip
VOWELS = frozenset("aeiouæɛɪɔʊəɨøyœɯɤ")
# Consonants that differ in voicing or little else: a cheaper substitution.
NEAR = {frozenset(p) for p in ("pb", "td", "kg", "fv", "sz", "θð", "ʃʒ", "θt", "ðd", "mn", "nŋ", "lɹ", "wv")}


class PhonemeError(RuntimeError):
    """espeak-ng is missing or failed; one line."""


def speakable(text: str) -> str:
    """``text`` as espeak-ng reads it whole: letters without their accents, digits, apostrophes,
    everything else a space."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    plain = plain.replace("ł", "l").replace("Ł", "L").replace("ß", "ss").replace("ø", "o").replace("Ø", "O")
    kept = "".join(c if (c.isascii() and c.isalnum()) or c == "'" else " " for c in plain)
    return " ".join(kept.split())


# Each answer, for the process's life: a vocabulary's terms and a transcript's words repeat.
_known: dict[str, str] = {}


def phonemes(texts: Iterable[str]) -> list[str]:
    """The folded phonemes of each text (``speakable`` first; "" for a text with nothing to say),
    asking espeak-ng once for all the texts it has not been asked before."""
    texts = [speakable(t) for t in texts]
    missing = list(dict.fromkeys(t for t in texts if t and t not in _known))
    if missing:
        for text, said in zip(missing, _run(missing)):
            _known[text] = said
    return [_known.get(t, "") if t else "" for t in texts]


def forget() -> None:
    """Forget every answer (a benchmark measuring what asking costs)."""
    _known.clear()


def _run(texts: list[str]) -> list[str]:
    if shutil.which(ESPEAK) is None:
        raise PhonemeError(
            f"{ESPEAK} is not installed; install it (apt install espeak-ng) to match the vocabulary"
        )
    try:
        done = subprocess.run(
            [ESPEAK, "-q", "-x", "--ipa", "-v", VOICE],
            input="\n".join(texts) + "\n",
            capture_output=True,
            text=True,
            timeout=60 + len(texts) / 100,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise PhonemeError(f"{ESPEAK} failed: {exc}") from None
    lines = done.stdout.splitlines()
    if len(lines) != len(texts):  # it joined or split a line after all: one call per text
        if len(texts) == 1:
            return ["".join(lines).translate(FOLD)]
        return [_run([t])[0] for t in texts]
    return [line.translate(FOLD) for line in lines]


def _substitution(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a in VOWELS and b in VOWELS:
        return 0.5
    return 0.5 if frozenset((a, b)) in NEAR else 1.0


def distance(a: str, b: str) -> float:
    """The weighted edit distance between two folded phoneme strings, divided by the longer's
    length: 0 the same sounds, 1 nothing alike. A vowel for another vowel, or a consonant for its
    voiced or unvoiced twin, costs half."""
    if not a or not b:
        return 1.0
    previous = [float(j) for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        current = [float(i)]
        for j, cb in enumerate(b, 1):
            current.append(
                min(previous[j] + 1.0, current[j - 1] + 1.0, previous[j - 1] + _substitution(ca, cb))
            )
        previous = current
    return previous[-1] / max(len(a), len(b))
