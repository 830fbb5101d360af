"""Punctuated text -> words with the marks and case it spells: the labels the punctuation
model learns from (``training.prepare``) and the reference the evaluation scores against
(``engine.evaluation.e2e_speech``), so both mean exactly the same thing by a mark or a case.

Each document becomes ONE stream of words, with no line or sentence boundaries:
a model trained with them collapses on the unsegmented words ASR gives
(Faber 2020, Punctuation Prediction for Speech Data, Table 5.3). Per word: the lowercased
word (model input), the mark right AFTER it, its case class from the original spelling,
and whether it starts a sentence (training masks the case loss there: the decoder derives those capitals).

Cleaning is generic first (users bring their own text); the few layouts with
rules of their own are detected by content, not by file name. numpy only.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.words import CASE_LABELS, PUNCT_LABELS

# ---- config -----------------------------------------------------------------
MAX_DOC_WORDS = 5000  # long files are cut (at a sentence end) into documents this long
LABEL_MAX_WORDS = 12  # a lone line this short without any punctuation is a heading or label
LONG_LINE = 150  # if >10% of a file's lines are longer, it has one paragraph per line
NONE, COMMA, PERIOD, QUESTION = (PUNCT_LABELS.index(x) for x in ("none", "comma", "period", "question"))
LOWER, CAPITALIZED, UPPER = (CASE_LABELS.index(x) for x in ("lower", "capitalized", "upper"))
# docs/METHOD.md, "Task": `! ; ...` become period; `: – —` (and `--`, a spaced `-`) become comma.
MARK_CLASS = {
    ",": COMMA,
    ":": COMMA,
    "-": COMMA,
    "–": COMMA,
    "—": COMMA,
    ".": PERIOD,
    "…": PERIOD,
    "!": PERIOD,
    ";": PERIOD,
    "?": QUESTION,
}
# The period after these belongs to the word ("Mr. Knightley") ...
TITLES = {
    "mr",
    "mrs",
    "ms",
    "messrs",
    "dr",
    "st",
    "rev",
    "capt",
    "col",
    "gen",
    "lt",
    "sgt",
    "prof",
    "hon",
    "mt",
}
# ... and after these it ends the sentence only if a capital follows ("etc. The" vs "etc. and").
AMBIGUOUS = {"etc", "jr", "sr", "esq", "inc", "ltd", "co", "corp", "vs", "al", "cf", "viz"}


@dataclass
class Document:
    name: str  # "folder/file.txt#k": source file and running number
    words: list[str]  # lowercased
    marks: np.ndarray  # int8 index into PUNCT_LABELS: the mark after each word
    cases: np.ndarray  # int8 index into CASE_LABELS
    sentence_initial: np.ndarray  # bool
    mixed: dict[int, str] = field(default_factory=dict)  # word index -> spelling, "McDonald"

    def displayed_cases(self) -> np.ndarray:
        """The case of each word in this text written with the four marks, as the engine writes it:
        a word after a sentence end starts with a capital. The marks folded into a period (`;`,
        `!`, `...`) leave the next word lowercase in the source ("happy; but she"), yet the
        engine, right about the period, writes "happy. But she": scored against the source's case,
        a perfect model would lose that word."""
        starts_lowercase = self.sentence_initial & (self.cases == LOWER)
        return np.where(starts_lowercase, CAPITALIZED, self.cases).astype(np.int8)


class PrepareError(Exception):
    """A problem with the user's input; the CLI reports it in one line."""


# ---- whole files: reading, boilerplate, entries -----------------------------
GUTENBERG_START = re.compile(r"^\s*\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG.*$", re.I | re.M)
GUTENBERG_END = re.compile(r"^\s*(\*{3}\s*)?END OF (THE |THIS )?PROJECT GUTENBERG", re.I | re.M)
ENTRY_SEPARATOR = re.compile(r"^%[ \t]*$", re.M)  # fortune(6) files: entries between '%' lines


def read_text(path: Path) -> str:
    # Strict UTF-8: latin-1 "decodes" any bytes at all, so falling back to it would
    # silently turn a UTF-16 or cp1252 file into wrong labels. Better to say so.
    data = path.read_bytes()
    if b"\x00" in data:
        raise PrepareError(f"{path}: contains NUL bytes (binary, or UTF-16?); save it as UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PrepareError(
            f"{path}: not UTF-8 (bad byte at offset {e.start}); "
            f"convert it first, e.g. iconv -f cp1252 -t utf-8"
        ) from None
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    while "\x08" in text:  # terminal overstrike, "_\bI" underlines I: keep what is on top
        struck = re.sub(r"[^\x08\n]\x08", "", text)
        text = struck if struck != text else text.replace("\x08", "")
    return text


def split_entries(text: str) -> list[str]:
    """Drop a Gutenberg header and footer; a fortune file gives one entry per fortune."""
    if m := GUTENBERG_START.search(text):
        text = text[m.end() :]
    if m := GUTENBERG_END.search(text):
        text = text[: m.start()]
    return ENTRY_SEPARATOR.split(text) if len(ENTRY_SEPARATOR.findall(text)) >= 2 else [text]


# ---- lines and paragraphs: keep running text, drop everything else ----------
ATTRIBUTION = re.compile(r"^--\s*[A-Z]")  # "-- Mark Twain" under a fortune
HEADING = re.compile(
    r"^(chapter|book|volume|part|act|scene|section|canto|letter|psalm|stave)\s+"
    r"([ivxlc]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten|the \w+)\b",
    re.I,
)
SPEAKER = re.compile(
    r"^((?:[A-Z0-9][A-Z0-9'&-]*\s+){0,3}[A-Z][A-Z'&-]+[.:]|[A-Z]:)\s+(?=.*[a-z])"
)  # "HAMLET. "
LIST_MARKER = re.compile(
    r"^(\(?\d{1,3}[.)]|\d+:\d+|\(?[a-z]\)|[*•·+]|-(?!-))\s+"
)  # "(1) ", "1:1 " verse, "* "
WIDE_GAP = re.compile(r"(?<=\S)(?:\t+| {6,})(?=\S)")  # table columns, right-aligned credits
PLACEHOLDER = re.compile(r"<([A-Za-z]+)>")  # "<planet>", "<first>": template slots for names
ALTERNATIVES = re.compile(r"\[([^\[\],?]{1,40})[,?][^\[\]]{0,80}\]")  # "[young, immature]"
NOISE = re.compile(r"\S*(?:@|://|www\.)\S*|<[^<>\n]{1,40}>")  # e-mail, URLs, <tags>
EDITORIAL = re.compile(r"^[ \t]*(\*[^*\s][^*]*\*|\[[^\]]*\])[ \t]*$", re.M)  # whole-line *...* or [...]
CODE = re.compile(r"^[{}]|[{}]$|==|!=|->|=>|::|/\*|\*/|#include|#define|&&|\|\||\w\(\)|^\$\s|\\[a-z]")
NOT_WORDS = re.compile(r"[\s.,;:!?'\"()\[\]\-—–…_*]")  # what running text has besides words
PUNCTUATION = re.compile(r"[.,;:!?…—–]|--")
NON_LETTERS = re.compile(r"[\W\d_]+")
ENDS_SENTENCE = (".", "!", "?")


def clean_line(line: str, after_sentence: bool) -> str:
    """A stripped line -> the running text in it, or '' to drop the line."""
    parts = WIDE_GAP.split(line)
    if len(parts) > 2:
        return ""  # a table row
    line = PLACEHOLDER.sub(lambda m: m[1].capitalize(), parts[0])  # one gap: the right part is a credit
    line = NOISE.sub(" ", ALTERNATIVES.sub(r"\1", line)).strip()  # keep the first alternative
    line = LIST_MARKER.sub("", line)
    if after_sentence:  # tags never come mid-sentence: "...I could plainly see\nTHAT.  He had"
        line = SPEAKER.sub("", line)
    letters = NON_LETTERS.sub("", line)
    all_caps = after_sentence and len(letters) >= 2 and letters.isupper()  # "...and see\nHER." stays
    if all_caps or (HEADING.match(line) and len(line.split()) <= 8):
        return ""  # headings; all-caps titles, names, inscriptions say nothing about real case
    core = NOT_WORDS.sub("", line)  # junk: separators (----, * * *), ASCII art, tables, code
    code = len(line) < LONG_LINE and CODE.search(line)  # one "::" must not cost a whole paragraph
    return "" if not letters or len(letters) < 0.5 * len(core) or code else line


def clean_paragraph(paragraph: str) -> list[str]:
    """The lines of running text in a paragraph, stripped."""
    kept: list[str] = []
    credit_indent = None  # lines indented this deep continue an attribution
    underscores = 0
    for raw in EDITORIAL.sub("", paragraph).split("\n"):
        indent = len(raw.expandtabs(8)) - len(raw.expandtabs(8).lstrip())
        line = raw.strip()
        if credit_indent is not None and indent >= credit_indent:
            continue
        credit_indent = None
        if ATTRIBUTION.match(line):  # names and titles, not sentences; the "--" would
            credit_indent = max(indent, 1)  # also give the fortune's last word a comma
            continue
        underscores += line.count("_")
        if line.endswith("_") and underscores % 2 == 1:  # italics whose opening '_' was cut
            kept, underscores = [], 0  # away: a stage direction from the paragraph start
            continue
        after_sentence = not kept or kept[-1].rstrip("\"')]_*").endswith(ENDS_SENTENCE + (":",))
        if line := clean_line(line, after_sentence):
            kept.append(line)
    return kept


def is_verse(lines: list[str]) -> bool:
    """Verse capitalises each line start, also in mid-sentence."""
    starts = [
        b.lstrip("\"'([_*")[:1]
        for a, b in zip(lines, lines[1:])
        if not a.rstrip("\"')]_*").endswith(ENDS_SENTENCE)
    ]
    return len(starts) >= 1 and sum(s.isupper() for s in starts) >= 0.75 * len(starts)


def clean_entry(text: str, per_line: bool) -> str:
    """The running text of one entry. Paragraphs and verse lines start on a new
    line: '\\n' flags capitals that may be typography (see relabel_typographic)."""
    out = []
    for paragraph in text.split("\n") if per_line else re.split(r"\n[ \t]*\n", text):
        lines = clean_paragraph(paragraph)
        if not lines or (
            len(lines) == 1 and not PUNCTUATION.search(lines[0]) and len(lines[0].split()) <= LABEL_MAX_WORDS
        ):
            continue  # a heading, label or title ("By Jane Austen", "Finis")
        sep = "\n" if is_verse(lines) else " "
        para = lines[0]
        for line in lines[1:]:  # "well-" + "known": a word broken at the line end
            para += ("" if re.search(r"[^\W\d_]-$", para) and not para.endswith("--") else sep) + line
        if not out or para != out[-1]:  # generated text repeats itself
            out.append(para)
    return "\n".join(out)


# ---- labelling: running text -> words, marks, cases -------------------------
QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "\u00a0": " ",
        "\u2009": " ",
        "\u00ad": None,
        "\x07": None,
        "\t": " ",
    }
)
WORD = (
    r"(?:[A-Za-z]\.){2,}"  # U.S. a.m. e.g. (the dots stay in the word)
    r"|\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:[.:/]\d+)+"  # 18,000  3.5  23:13  11/70
    r"|[^\W_]+(?:['-][^\W_]+)*"
)  # don't, well-known, o'er, 16th
MARK = r"\.{2,}|…|-{2,}|[,.!?;:–—]|(?<!\S)-(?!\S)"
TOKEN = re.compile(rf"(?P<w>{WORD})|(?P<m>{MARK})|(?P<o>[\n\"'(\[])")  # anything else is skipped


def case_of(word: str) -> tuple[int, bool]:
    """(case class, is mixed case) of the original spelling."""
    core = word[:-2] if word.endswith(("'s", "'S")) else word  # "NASA's" is upper
    letters = "" if core.islower() else NON_LETTERS.sub("", core)  # fast path: lower
    if not letters:
        return LOWER, False
    if letters.isupper():
        return (UPPER if len(letters) >= 2 else CAPITALIZED), False  # "I" is capitalized
    if letters[0].isupper() and letters[1:].islower():
        return CAPITALIZED, False
    return (CAPITALIZED if letters[0].isupper() else LOWER), True  # McDonald, iPhone


def label_text(text: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Words as spelled, the first mark after each, and whether each word's capital
    may be typography (line start, after a quote, bracket or colon) not intrinsic."""
    text = re.sub(r"(?<=\w) '(?=s\b)", "'", text.translate(QUOTES))  # "play 's" -> "play's"
    words, marks, typo = [], [], []
    # marked: the last word has its mark (so marks before any word are dropped); fresh: the next
    # word starts a line, a quote, ...; maybe_end: "etc." ends a sentence if a capital follows.
    marked, fresh, maybe_end = True, True, False
    for m in TOKEN.finditer(text):
        tok = m.group()
        if m.lastgroup == "w":
            if maybe_end and tok[0].isupper():
                marks[-1] = PERIOD
            words.append(tok)
            marks.append(NONE)
            typo.append(fresh)
            marked, fresh, maybe_end = False, False, False
        elif m.lastgroup == "m":
            fresh = fresh or tok == ":"
            if marked:
                continue  # only the first mark after a word counts
            prev = words[-1]
            if tok == "." and (
                prev.lower() in TITLES
                or prev.lower() in AMBIGUOUS
                or (len(prev) == 1 and prev.isupper() and prev != "I")
            ):
                maybe_end = prev.lower() in AMBIGUOUS  # initials ("R. A. Heinlein") never end one
                continue
            marks[-1] = MARK_CLASS[tok[0]]
            marked, maybe_end = True, False
        else:
            fresh = True
    return words, np.array(marks, dtype=np.int8), np.array(typo, dtype=bool)


def make_document(name: str, spelled: list[str], marks: np.ndarray) -> Document:
    labels = [case_of(word) for word in spelled]
    cases = np.array([case for case, _ in labels], dtype=np.int8)
    mixed = {i: word for i, (word, (_, is_mixed)) in enumerate(zip(spelled, labels)) if is_mixed}
    initial = np.isin(np.r_[PERIOD, marks][:-1], (PERIOD, QUESTION))  # a period "before" the first word
    return Document(name, [w.lower() for w in spelled], marks, cases, initial, mixed)


def chunks(marks: np.ndarray, max_words: int):
    """(start, end) pieces of at most max_words, cut after a sentence end where possible."""
    start, ends = 0, np.flatnonzero(np.isin(marks, (PERIOD, QUESTION))) + 1
    while len(marks) - start > max_words:
        ok = ends[(ends > start + max_words // 2) & (ends <= start + max_words)]
        cut = int(ok[-1]) if len(ok) else start + max_words
        yield start, cut
        start = cut
    yield start, len(marks)  # empty only for an empty entry; those are dropped


def prepare_file(path: Path, name: str, max_words: int = MAX_DOC_WORDS) -> list[tuple[Document, np.ndarray]]:
    """(document, typographic-capital flags) pairs of one file."""
    text = read_text(path)
    lines = [ln for ln in text.split("\n") if ln.strip()]
    per_line = sum(len(ln) > LONG_LINE for ln in lines) > 0.1 * max(1, len(lines))  # unwrapped paragraphs
    out = []
    for entry in split_entries(text):
        spelled, marks, typo = label_text(clean_entry(entry, per_line))
        for a, b in chunks(marks, max_words):
            out.append((make_document(f"{name}#{len(out)}", spelled[a:b], marks[a:b]), typo[a:b]))
    return out


def relabel_typographic(docs: list[Document], typos: list[np.ndarray]) -> None:
    """Capitals at verse-line or paragraph starts, after an opening quote (he said, "Do it")
    and emphasis caps ("see HER") say nothing about a word: it takes its most common case
    mid-sentence (lower if never seen there), so the model learns no "Do" after commas."""
    seen: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for d, typo in zip(docs, typos):
        for i in np.flatnonzero(~typo & ~d.sentence_initial):
            seen[d.words[i]][d.cases[i]] += 1
    for d, typo in zip(docs, typos):
        for i in np.flatnonzero((typo | (d.cases == UPPER)) & ~d.sentence_initial & (d.cases != LOWER)):
            if counts := seen.get(d.words[i]):
                d.cases[i] = int(np.argmax(counts))
            elif d.cases[i] == CAPITALIZED:
                d.cases[i] = LOWER


def prepare_folder(folder: str | Path, max_words: int = MAX_DOC_WORDS, log=None) -> list[Document]:
    """All .txt files under folder (recursive, sorted) -> documents. Capitals are relabelled from
    this folder's text alone: its labels do not depend on the folders prepared with it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PrepareError(f"{folder}: no such folder")
    files = sorted(p for p in folder.rglob("*.txt") if p.is_file())
    if not files:
        raise PrepareError(f"{folder}: no .txt files in it")
    pairs = []
    for path in files:
        t0, name = time.time(), f"{folder.name}/{path.relative_to(folder).as_posix()}"
        pairs += (new := [(d, t) for d, t in prepare_file(path, name, max_words) if d.words])
        if log:
            log(f"{name}: {sum(len(d.words) for d, _ in new):,} words ({time.time() - t0:.1f} s)")
    relabel_typographic([d for d, _ in pairs], [t for _, t in pairs])
    return [d for d, _ in pairs]
