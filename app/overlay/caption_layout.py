"""Line layout for the caption overlay: word-wrap, keep the last N lines, never reflow old lines.

Live captions are read while they move, so the layout has two rules beyond
plain word-wrapping:

* Every line but the newest is *committed*: later updates reuse it as it
  is, so text already on screen never jumps to another line when more words
  arrive or provisional words settle (greedy wrapping restarted from a
  different first word would move line breaks all the time).
* Only the tail of the text is measured. The caller may pass a whole
  meeting's transcript on every update; the work per update stays bounded by
  what fits on the screen, not by the length of the meeting. A caller that
  passes only recent text passes at least ``words_needed()`` words: then
  where its text begins is always on a row above the visible ones, never the
  start of a line on screen (which would read as a sentence missing words).

Pure layout, no painting: the overlay draws ``Line`` objects and the tests
inspect them.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass

from PySide6.QtGui import QFont, QFontMetricsF


@dataclass(frozen=True)
class Run:
    """Consecutive words of one kind on one line, drawn as one piece of text."""

    text: str
    provisional: bool
    x: float  # left edge, pixels from the start of the line
    width: float
    label: bool = False  # a speaker's label (one word, a run of its own): drawn in their colour


@dataclass(frozen=True)
class Line:
    runs: tuple[Run, ...]

    @property
    def text(self) -> str:
        return " ".join(r.text for r in self.runs)

    @property
    def width(self) -> float:
        return self.runs[-1].x + self.runs[-1].width if self.runs else 0.0


# A word as laid out: (text, provisional, is_piece_of_a_longer_word)
_Word = tuple[str, bool, bool]
# A recognized word is at least one of these wide (marks only ever follow a word).
_ONE_LETTER_WORDS = string.ascii_letters + string.digits


class CaptionLayout:
    """Stateful wrapper: call ``configure`` when the font, width or line count
    changes and ``layout`` with each caption update.

    Line breaks are decided with each word's width in whichever of the two fonts
    is wider, so a line wrapped while its words were provisional (italic) still
    fits when they settle (upright): settling changes a word's style, never the
    line it is on. That is what lets every line but the newest be committed,
    provisional words included. A provisional word that is *revised* (new text)
    does re-wrap the text from its line on: the words changed, so must the lines.
    """

    SAFETY_PX = 1.0  # kerning across a space can make a run a hair wider than its words

    def __init__(self) -> None:
        self._fonts: tuple[QFont, QFont] | None = None
        self._metrics: tuple[QFontMetricsF, QFontMetricsF] | None = None
        self._width = 0.0
        self._lines = 2
        self._sizes: dict[str, float] = {}
        self._narrowest = 1.0  # pixels: the narrowest one-letter word and a space
        self._committed: list[list[str]] = []  # words of committed lines, oldest first
        self._anchor = 0  # index of the first committed word in the last text
        self._labels: frozenset[str] = frozenset()  # the words that are speakers' labels

    def configure(self, settled_font: QFont, provisional_font: QFont, width: float, lines: int) -> None:
        fonts = (QFont(settled_font), QFont(provisional_font))
        if (self._fonts, self._width, self._lines) == (fonts, float(width), int(lines)):
            return
        self._fonts, self._width, self._lines = fonts, float(width), max(1, int(lines))
        self._metrics = (QFontMetricsF(fonts[0]), QFontMetricsF(fonts[1]))
        self._sizes = {}
        self._narrowest = min(self._size(c) for c in _ONE_LETTER_WORDS) + self._size(" ")
        self.reset()

    def words_needed(self) -> int:
        """The fewest words a caller passing only recent text should pass: enough to fill every
        line and one more above them even if each word were a single narrow letter, so that the
        start of the text it passes is never the start of a line on screen."""
        if self._metrics is None:
            raise RuntimeError("CaptionLayout.configure() must be called before words_needed()")
        return math.ceil((self._lines + 1) * self._width / max(1.0, self._narrowest)) + 1

    def reset(self) -> None:
        """Forget committed lines (the next layout starts afresh from the text's tail)."""
        self._committed, self._anchor = [], 0

    def layout(self, settled: str, provisional: str, labels=frozenset()) -> list[Line]:
        """``labels``: words of the text that are speakers' labels; each becomes a run of its own."""
        self._labels = frozenset(labels)
        if self._metrics is None:
            raise RuntimeError("CaptionLayout.configure() must be called before layout()")
        settled_words = settled.split()
        words = settled_words + provisional.split()
        is_provisional = [False] * len(settled_words) + [True] * (len(words) - len(settled_words))
        first, reused = self._reusable(words)
        start = first + sum(len(line) for line in reused)
        tail = self._tail_start(words)
        if tail > start:  # the reusable lines would scroll off anyway: lay out the tail afresh
            first, reused, start = tail, [], tail
        rows = self._wrap(words[start:], is_provisional[start:])
        index = first
        reused_rows = []
        for line in reused:  # same words, maybe newly settled: take today's styles
            reused_rows.append([(w, is_provisional[index + i], False) for i, w in enumerate(line)])
            index += len(line)
        rows = reused_rows + rows
        if len(rows) < self._lines and first > 0:
            # Fewer rows than lines although earlier text exists: the text's end was taken back
            # (a shorter partial), or a line before the reused ones was revised. The earlier
            # words fill the rows above again rather than leaving them empty, or lost.
            lo = self._tail_start(words[:first])
            rows = self._wrap(words[lo:first], is_provisional[lo:first]) + rows
            first = lo
        self._commit(rows, first)
        return [self._build(row) for row in rows[-self._lines :] if row]

    # -- committed lines ---------------------------------------------------------------------

    def _reusable(self, words: list[str]) -> tuple[int, list[list[str]]]:
        """(index of the first reused word, the committed lines that are still in ``words``)."""
        if not self._committed:
            return 0, []
        at, lines = self._anchor, self._committed
        if words[at : at + len(lines[0])] != lines[0]:  # not simply appended to: a sliding window?
            for drop, line in enumerate(lines):
                found = _find(words, line)
                if found is not None:
                    at, lines = found, lines[drop:]
                    break
            else:
                return 0, []
        reused, position = [], at
        for line in lines:  # stop at the first line whose words were revised
            if words[position : position + len(line)] != line:
                break
            reused.append(line)
            position += len(line)
        return at, reused

    def _commit(self, rows: list[list[_Word]], first_index: int) -> None:
        committed: list[list[str]] = []
        for row in rows[:-1]:  # the last line is still open: more words may join it
            if not row or any(piece for _, _, piece in row):
                break  # a broken-up long word is not a whole word: it cannot be matched again
            committed.append([w for w, _, _ in row])
        keep = committed[-self._lines :]
        self._anchor = first_index + sum(len(line) for line in committed[: len(committed) - len(keep)])
        self._committed = keep

    # -- measuring and wrapping --------------------------------------------------------------

    def _size(self, word: str) -> float:
        """The width ``word`` needs in whichever style is wider (cached: words repeat a lot)."""
        size = self._sizes.get(word)
        if size is None:
            size = max(m.horizontalAdvance(word) for m in self._metrics)
            if len(self._sizes) > 5000:
                self._sizes.clear()
            self._sizes[word] = size
        return size

    def _tail_start(self, words: list[str]) -> int:
        """Index into ``words`` from which wrapping certainly fills every visible line.

        Greedy wrapping wastes less than one word per line, so words worth
        (lines + 1) widths are enough.
        """
        budget = (self._lines + 1) * self._width
        space, used, index = self._size(" "), 0.0, len(words)
        while index > 0 and used <= budget:
            index -= 1
            used += self._size(words[index]) + space
        return index

    def _wrap(self, words: list[str], provisional: list[bool]) -> list[list[_Word]]:
        limit = self._width - self.SAFETY_PX
        space = self._size(" ")
        lines: list[list[_Word]] = [[]]
        used = 0.0
        for word, prov in zip(words, provisional):
            for piece, is_piece, size in self._pieces(word, limit):
                if lines[-1] and used + space + size > limit:
                    lines.append([])
                used = size if not lines[-1] else used + space + size
                lines[-1].append((piece, prov, is_piece))
        return [line for line in lines if line]

    def _pieces(self, word: str, limit: float) -> list[tuple[str, bool, float]]:
        """A word wider than a whole line (a URL, say) is broken between characters."""
        size = self._size(word)
        if size <= limit:
            return [(word, False, size)]
        pieces, current = [], ""
        for ch in word:
            if current and self._size(current + ch) > limit:
                pieces.append(current)
                current = ""
            current += ch
        pieces.append(current)
        return [(p, True, self._size(p)) for p in pieces]

    def _build(self, row: list[_Word]) -> Line:
        groups: list[tuple[bool, bool, list[str]]] = []  # (provisional, label, words)
        for word, provisional, piece in row:
            label = word in self._labels and not piece
            if groups and groups[-1][:2] == (provisional, False) and not label:
                groups[-1][2].append(word)
            else:
                groups.append((provisional, label, [word]))
        runs, x = [], 0.0
        for provisional, label, words in groups:
            text = " ".join(words)
            metrics = self._metrics[1 if provisional else 0]
            width = metrics.horizontalAdvance(text)
            runs.append(Run(text, provisional, x, width, label))
            x += width + metrics.horizontalAdvance(" ")
        return Line(tuple(runs))


def _find(haystack: list[str], needle: list[str]) -> int | None:
    """Index of the first occurrence of ``needle`` as a run of whole words in ``haystack``."""
    if not needle or len(needle) > len(haystack):
        return None
    # str.split() leaves no newlines inside words, so "\n" marks word boundaries unambiguously.
    hay, pin = "\n" + "\n".join(haystack) + "\n", "\n" + "\n".join(needle) + "\n"
    at = hay.find(pin)
    return None if at < 0 else hay.count("\n", 0, at)
