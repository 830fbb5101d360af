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
* A line goes its turn's way: right to left for Arabic, Hebrew, Persian, Urdu (the first run at
  the right edge, the next ones leftwards, the line right-aligned), as the captions window lays
  out a paragraph (``app.captions.style``). A turn's direction is its words', not its label's: the
  first strong letter after the label. Where the text begins mid-turn (the caller passes a tail)
  or has no labels at all, its first word is wherever the tail happens to start, so that turn
  goes the way most of its words go (``strong_direction`` of each), which does not flip as the
  tail slides. An English word inside Arabic follows its line's direction, never its own.

Pure layout, no painting: the overlay draws ``Line`` objects and the tests
inspect them.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from app.text_direction import strong_direction

RTL, LTR = Qt.LayoutDirection.RightToLeft, Qt.LayoutDirection.LeftToRight
# Qt orders a run's words by the run's own first strong letter; a run that opens with a word of
# the other direction is given its line's direction with one of these (zero-width) marks.
RIGHT_TO_LEFT_MARK, LEFT_TO_RIGHT_MARK = "\u200f", "\u200e"


@dataclass(frozen=True)
class Run:
    """Consecutive words of one kind on one line, drawn as one piece of text."""

    text: str
    provisional: bool
    x: float  # left edge, pixels from the left of the text area (whatever the line's direction)
    width: float
    label: bool = False  # a speaker's label (one word, a run of its own): drawn in their colour


@dataclass(frozen=True)
class Line:
    runs: tuple[Run, ...]  # in reading order: in a right-to-left line the first is rightmost
    right_to_left: bool = False

    @property
    def text(self) -> str:
        return " ".join(r.text for r in self.runs)

    @property
    def width(self) -> float:
        """From the leftmost run's left edge to the rightmost's right edge."""
        if not self.runs:
            return 0.0
        return max(r.x + r.width for r in self.runs) - min(r.x for r in self.runs)

    def text_to_draw(self, run: Run) -> str:
        """``run``'s text as Qt must be given it to order its words in this line's direction."""
        if self.right_to_left:
            return run.text if strong_direction(run.text) == RTL else RIGHT_TO_LEFT_MARK + run.text
        return LEFT_TO_RIGHT_MARK + run.text if strong_direction(run.text) == RTL else run.text


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
        directions = self._directions(rows, words, first)[top:]
        shown = [self._build(row, rtl) for row, rtl in zip(rows[top:], directions)]
        if shown:
            label = self._label_above(rows, top, words, is_provisional, first)
            word, _, piece = rows[top][0]
            if label is not None and not self._is_label(word, piece):
                # The top row continues a turn whose label is out of view: repeat it there.
                repeated = self._build([(*label, False), *rows[top]], directions[0])
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

    def _directions(self, rows: list[list[_Word]], words: list[str], first: int) -> list[bool]:
        """Whether each of ``rows`` (starting at ``words[first]``) is right to left: the direction
        of the turn in force where it begins (see the module's docstring)."""
        turns: list[list[str]] = [[]]  # the rows' words by turn; a label starts a turn
        turn_of_row = []
        for row in rows:
            for i, (word, _, piece) in enumerate(row):
                if self._is_label(word, piece) and turns[-1]:
                    turns.append([])
                if i == 0:
                    turn_of_row.append(len(turns) - 1)
                turns[-1].append(word)
        label, at = self._label_before(words, first)
        rtl = []
        for index, turn in enumerate(turns):
            if index == 0 and not (turn and self._is_label(turn[0], False)):
                # Mid-turn: after its label when that is in the text, else by most of its words.
                rtl.append(
                    _first_strong(chain((words[i] for i in range(at + 1, first)), turn)) == RTL
                    if label is not None
                    else _mostly_right_to_left(turn)
                )
            else:
                rtl.append(_first_strong(turn[1:]) == RTL)
        return [rtl[turn] for turn in turn_of_row]

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

    def _build(self, row: list[_Word], right_to_left: bool = False) -> Line:
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
            # Right to left: the same offsets, measured from the right edge leftwards.
            left = self._width - x - width if right_to_left else x
            runs.append(Run(text, provisional, left, width, label))
            x += width + metrics.horizontalAdvance(" ")
        return Line(tuple(runs), right_to_left)


def _first_strong(words: Iterable[str]) -> Qt.LayoutDirection:
    """The direction of the first of ``words`` with a strong letter; Auto when none has one."""
    for word in words:
        direction = strong_direction(word)
        if direction != Qt.LayoutDirection.LayoutDirectionAuto:
            return direction
    return Qt.LayoutDirection.LayoutDirectionAuto


def _mostly_right_to_left(words: list[str]) -> bool:
    """Whether more of ``words`` go right to left than left to right (a tie: the first's way)."""
    directions = [strong_direction(word) for word in words]
    rtl, ltr = directions.count(RTL), directions.count(LTR)
    return rtl > ltr if rtl != ltr else _first_strong(words) == RTL


def _find(haystack: list[str], needle: list[str]) -> int | None:
    """Index of the first occurrence of ``needle`` as a run of whole words in ``haystack``."""
    if not needle or len(needle) > len(haystack):
        return None
    # str.split() leaves no newlines inside words, so "\n" marks word boundaries unambiguously.
    hay, pin = "\n" + "\n".join(haystack) + "\n", "\n" + "\n".join(needle) + "\n"
    at = hay.find(pin)
    return None if at < 0 else hay.count("\n", 0, at)
