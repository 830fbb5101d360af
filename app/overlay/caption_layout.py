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
* In a meeting the text holds speakers' labels ("Me›", "O1›") where the speaker changes. When
  the first row on screen begins mid-turn, its speaker's label has scrolled away above it: the
  label is repeated at the start of that row, so the reader always sees who is speaking. Every
  line that continues a turn is wrapped with room for that label, so repeating it never makes a
  row overflow, and which row is on top never changes where lines break.

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
        rows = self._wrap(words[start:], is_provisional[start:], self._label_before(words, start)[0])
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
            label = self._label_before(words, lo)[0]
            rows = self._wrap(words[lo:first], is_provisional[lo:first], label) + rows
            first = lo
        self._commit(rows, first)
        rows = [row for row in rows if row]
        top = max(0, len(rows) - self._lines)  # the first row on screen
        shown = [self._build(row) for row in rows[top:]]
        if shown:
            label = self._label_above(rows, top, words, is_provisional, first)
            word, _, piece = rows[top][0]
            if label is not None and not self._is_label(word, piece):
                # The top row continues a turn whose label is out of view: repeat it there.
                repeated = self._build([(*label, False), *rows[top]])
                if repeated.width <= self._width - self.SAFETY_PX:  # always, but for a broken-up word
                    shown[0] = repeated
        return shown

    def _label_above(
        self, rows: list[list[_Word]], top: int, words: list[str], provisional: list[bool], first: int
    ) -> tuple[str, bool] | None:
        """(label, provisional) of the speaker's label in force where ``rows[top]`` begins; the
        rows start at ``words[first]``."""
        for row in reversed(rows[:top]):
            for word, prov, piece in reversed(row):
                if self._is_label(word, piece):
                    return word, prov
        label, index = self._label_before(words, first)
        return None if label is None else (label, provisional[index])

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
        (lines + 1) widths are enough (and, in a meeting, the room each line keeps for a
        repeated label).
        """
        space = self._size(" ")
        budget = (self._lines + 1) * self._width
        if self._labels:
            budget += self._lines * (max(self._size(label) for label in self._labels) + space)
        used, index = 0.0, len(words)
        while index > 0 and used <= budget:
            index -= 1
            used += self._size(words[index]) + space
        return index

    def _wrap(self, words: list[str], provisional: list[bool], label: str | None = None) -> list[list[_Word]]:
        """Greedy word-wrap. ``label``: the speaker's label in force before ``words`` (None: no
        label); a line that starts within a speaker's turn keeps room for their label, repeated
        there when that line is the top one on screen."""
        limit = self._width - self.SAFETY_PX
        space = self._size(" ")
        lines: list[list[_Word]] = [[]]
        used = 0.0
        for word, prov in zip(words, provisional):
            for piece, is_piece, size in self._pieces(word, limit):
                if lines[-1] and used + space + size > limit:
                    lines.append([])
                if lines[-1]:
                    used += space + size
                elif label is None or self._is_label(word, is_piece):
                    used = size
                else:
                    used = self._size(label) + space + size
                lines[-1].append((piece, prov, is_piece))
            if self._is_label(word, False):
                label = word
        return [line for line in lines if line]

    def _is_label(self, word: str, piece: bool) -> bool:
        return not piece and word in self._labels

    def _label_before(self, words: list[str], index: int) -> tuple[str | None, int]:
        """(the last speaker's label in ``words[:index]``, its index); (None, -1) where there is
        none, or the text has no labels at all."""
        if self._labels:
            for at in range(index - 1, -1, -1):
                if words[at] in self._labels:
                    return words[at], at
        return None, -1

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
            label = self._is_label(word, piece)
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
