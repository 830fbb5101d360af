"""What dictation types: the settled words the recognizer can no longer take back, as keystrokes.

A synchronous core, fed the engine's events (``apply``) and, per batch, which window has the
keyboard focus. It returns the keystrokes to send, in order; ``DictationSink`` sends them.

The rules:

- a word is typed only when its text, mark and capital are final: it has ``Settled`` and it is
  behind the recognizer's retraction horizon (``Finalized``: the utterance ended, or the word
  froze in the stabiliser);
- provisional text is never typed, and what was typed is never retyped or deleted, except by
  the spoken "scratch that", and only while what it removes is still the last thing typed;
- where the session ends on a word typed without a mark, the sentence end the decoder then gives
  it (``finish``) is typed after it, while it is still the last thing typed in that window;
- one space between words, none before a mark (marks travel with their word), and no space at
  the start of what is typed into a window or after a new line;
- capitals are the settled ones: the decoder already capitalised each sentence's first word
  after a settled end mark;
- dictation resumed after a pause continues what it typed before into the same window: a space
  where the text typed last needs one, and no sentence-start capital on the first word where
  that text ended mid-sentence (the user's sentence goes on); a capital where it ended one;
- typing never goes into livecap's own windows, and if the focus moves to another window in the
  middle of a sentence, the rest of that sentence is dropped and typing resumes with the next
  sentence, in the window that then has the focus.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.events import Appended, Finalized, Retracted, Settled, Withdrawn
from engine.speakers.labels import is_others
from engine.words import MARK_TEXT, SENTENCE_END_MARKS

# The spoken commands, by name: the words that say them (compared lowercased, without marks).
COMMANDS: dict[str, tuple[str, ...]] = {
    "new line": ("new", "line"),
    "new paragraph": ("new", "paragraph"),
    "scratch that": ("scratch", "that"),
}


@dataclass(frozen=True)
class TypeText:
    """Type this text as it is (any Unicode)."""

    text: str


@dataclass(frozen=True)
class PressKey:
    """Press a named key ``count`` times: ``Return`` or ``BackSpace``."""

    key: str
    count: int = 1


Keystroke = TypeText | PressKey


@dataclass(frozen=True)
class TypedTail:
    """The end of what dictation typed, kept across a pause so that resuming continues it."""

    window: str | None
    text: str  # the last characters typed into ``window`` ("\n" after a new line; "" for nothing)


TAIL_CHARS = 8  # enough to see the last word's mark and the space or line break after it


@dataclass
class _Typed:
    """What was typed into the current window since it got the focus, a sentence at a time, so
    that "scratch that" knows what it may remove."""

    window: str | None
    sentences: list[str] = field(default_factory=list)  # the last one may be unfinished
    line_start: bool = True  # nothing on the current line yet: no space before the next word
    sentence_open: bool = False  # a sentence has begun and not ended
    continues: bool = False  # the next word goes on a sentence typed before a pause
    capitalise: bool = False  # the next word starts a sentence whose end was typed before a pause
    tail: str = ""  # the last characters typed here


class DictationText:
    """Turns engine events into keystrokes. ``commands``: the spoken commands that are on;
    ``own_windows``: livecap's own windows, never typed into."""

    def __init__(
        self, commands: Iterable[str] = (), own_windows: Iterable[str] = (), resume: TypedTail | None = None
    ):
        """``resume``: the ``tail`` of the dictation this one resumes (a pause in between)."""
        unknown = set(commands) - set(COMMANDS)
        if unknown:
            raise ValueError(f"unknown spoken command(s): {', '.join(sorted(unknown))}")
        self.commands = frozenset(commands)
        self.own_windows = set(own_windows)
        self._words: dict[int, str] = {}  # position -> recognized text, until it is typed
        # Positions the others said, in a meeting: dictation types only what the user said.
        self._theirs: set[int] = set()
        self._settled: dict[int, Settled] = {}
        self._final = 0  # positions below this can no longer be retracted
        # The next position to type. Dictation turned on mid-session starts at the first word
        # it sees appear: what was said before it was switched on is not typed.
        self._next: int | None = None
        self._typed = _Typed(window=None)
        self._resume = resume
        self._sentence_start = True  # the next word begins a sentence
        self._skipping = False  # dropping the rest of a sentence the focus left
        self._last_typed: tuple[int, str] | None = None  # (position, mark) of the word typed last
        self._end_mark: str | None = None  # a sentence end the last word typed got after it was typed
        self.words_typed = 0

    @property
    def tail(self) -> TypedTail:
        """The end of what was typed, and where: for the dictation that resumes this one."""
        if self._resume is not None:
            return self._resume  # nothing typed since the pause: the earlier tail still holds
        return TypedTail(self._typed.window, self._typed.tail)

    # -- input ------------------------------------------------------------------------------
    def apply(self, events: Iterable, focus: str | None = None) -> list[Keystroke]:
        """Take a batch of engine events; ``focus``: the window that has the keyboard focus now
        (None where the desktop cannot tell). Returns the keystrokes to send."""
        self.add(events)
        return self.keystrokes(focus)

    @property
    def ready(self) -> bool:
        """Whether a word can be typed now (so the caller need only ask for the focus then)."""
        if self._end_mark is not None:
            return True
        return self._next is not None and self._next < self._final and self._next in self._settled

    def keystrokes(self, focus: str | None = None) -> list[Keystroke]:
        """The keystrokes for every word that has become final, typed into ``focus``."""
        return self._type_ready(focus)

    def add(self, events: Iterable) -> None:
        """Take a batch of engine events without typing anything yet."""
        for event in events:
            if isinstance(event, Appended):
                if self._next is None:
                    self._next = event.position
                self._words[event.position] = event.word.text
                if is_others(event.word.speaker):
                    self._theirs.add(event.position)
            elif isinstance(event, Settled):
                if self._next is None or event.position >= self._next:  # typed ones stay typed
                    self._settled[event.position] = event
                elif self._last_typed == (event.position, "none") and event.mark in SENTENCE_END_MARKS:
                    # The session ended on this word (the decoder's ``finish``): its end mark goes
                    # after it, which retypes and deletes nothing.
                    self._end_mark = event.mark
            elif isinstance(event, Withdrawn):
                self._settled.pop(event.position, None)
            elif isinstance(event, Retracted):
                for p in [p for p in self._words if p >= event.from_position]:
                    del self._words[p]
                    self._settled.pop(p, None)
                    self._theirs.discard(p)
            elif isinstance(event, Finalized):
                self._final = max(self._final, event.words)

    # -- output -----------------------------------------------------------------------------
    def _type_ready(self, focus: str | None) -> list[Keystroke]:
        keys: list[Keystroke] = self._type_end_mark(focus) if self._end_mark is not None else []
        while self.ready:
            p = self._next
            if p in self._theirs:  # not the user's words: passed over, and the user's next
                self._theirs.discard(p)  # words begin a sentence of their own
                self._words.pop(p, None)
                self._settled.pop(p, None)
                self._sentence_start = True
                self._next = p + 1
                continue
            command = self._command_at(p)
            length = len(COMMANDS[command]) if command else 1
            self._last_typed = None
            if command:
                keys += self._run_command(command, focus)
            else:
                keys += self._type_word(self._settled[p], focus)
            for q in range(p, p + length):
                self._words.pop(q, None)
                self._settled.pop(q, None)
            self._next = p + length
        return keys

    def _type_end_mark(self, focus: str | None) -> list[Keystroke]:
        """The late end mark of the word typed last, where that word is still the last thing typed
        in the window that has the focus."""
        mark, self._end_mark = self._end_mark, None
        typed = self._typed
        if focus != typed.window or focus in self.own_windows or not typed.sentence_open:
            return []
        text = MARK_TEXT[mark]
        typed.sentences[-1] += text
        typed.sentence_open = False
        typed.tail = (typed.tail + text)[-TAIL_CHARS:]
        self._sentence_start = True
        self._last_typed = None
        return [TypeText(text)]

    def _command_at(self, p: int) -> str | None:
        for name in sorted(self.commands):
            spoken = COMMANDS[name]
            positions = range(p, p + len(spoken))
            if all(q < self._final and q in self._settled for q in positions) and all(
                _bare(self._words.get(q, "")) == w for q, w in zip(positions, spoken)
            ):
                return name
        return None

    def _may_type(self, focus: str | None) -> bool:
        """Follow the focus. A window other than the one typed into is taken on only at the
        start of a sentence; livecap's own windows never."""
        starts = self._sentence_start
        if focus is not None and focus in self.own_windows:
            self._skipping = self._skipping or not starts
            return False
        # A pending resume takes its window on the first word, even when the focus is unknown
        # (None) and so looks unchanged.
        if focus != self._typed.window or self._resume is not None:
            if not starts:
                self._skipping = True  # the focus moved mid-sentence: drop the rest of it
                return False
            self._typed = self._continue(focus)
        if self._skipping and not starts:
            return False
        self._skipping = False
        return True

    def _continue(self, window: str | None) -> _Typed:
        """A fresh start in ``window``, or, the first time after a pause, the text typed there."""
        resume, self._resume = self._resume, None
        if resume is None or resume.window != window or not resume.text:
            return _Typed(window=window)
        ended = resume.text.rstrip()[-1:] in {MARK_TEXT[m] for m in SENTENCE_END_MARKS}
        return _Typed(
            window=window,
            line_start=resume.text[-1].isspace(),
            continues=bool(resume.text.strip()) and not ended,
            capitalise=ended,
            tail=resume.text,
        )

    def _type_word(self, settled: Settled, focus: str | None) -> list[Keystroke]:
        allowed = self._may_type(focus)
        self._sentence_start = settled.mark in SENTENCE_END_MARKS
        if not allowed:
            return []
        typed = self._typed
        form = settled.form
        if typed.continues:  # the user's sentence goes on: no capital that only starts a sentence
            form = settled.inner_form or form
        elif typed.capitalise:
            form = form[:1].upper() + form[1:]
        typed.continues = typed.capitalise = False
        text = ("" if typed.line_start else " ") + form + MARK_TEXT[settled.mark]
        if not typed.sentence_open:
            typed.sentences.append("")
        typed.sentences[-1] += text
        typed.sentence_open = not self._sentence_start
        typed.line_start = False
        typed.tail = (typed.tail + text)[-TAIL_CHARS:]
        self._last_typed = (settled.position, settled.mark)
        self.words_typed += 1
        return [TypeText(text)]

    def _run_command(self, name: str, focus: str | None) -> list[Keystroke]:
        typed = self._typed
        if self._skipping or focus != typed.window or (focus is not None and focus in self.own_windows):
            return []  # a command acts on what was typed here; elsewhere it does nothing
        if name in ("new line", "new paragraph"):
            typed.line_start, typed.sentence_open = True, False
            typed.sentences = []  # "scratch that" never reaches back across a line break
            typed.tail = (typed.tail + "\n" * (1 if name == "new line" else 2))[-TAIL_CHARS:]
            typed.continues = typed.capitalise = False
            self._sentence_start = True
            return [PressKey("Return", 1 if name == "new line" else 2)]
        # "scratch that": the sentence typed last, finished or not, while it is the last thing typed
        if not typed.sentences:
            return []
        last = typed.sentences.pop()
        typed.sentence_open = False
        typed.line_start = not typed.sentences and not last.startswith(" ")
        typed.tail = "".join(typed.sentences)[-TAIL_CHARS:]
        self._sentence_start = True
        return [PressKey("BackSpace", len(last))]


def _bare(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum() or c == "'")
