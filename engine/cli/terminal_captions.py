"""Live captions in a terminal: settled text plain, provisional marks and unstable words dim.

The words, their marks, their speakers and the unstable words are the engine's caption fold
(``engine.transcript.caption_fold``), the one the app's caption feed keeps too: a session's
events make the same captions here as in the window. This module only draws them.

On a terminal the current line is redrawn in place (``\\r`` and erase-line);
once it would overflow the width, its leading *settled* words are printed for
good and the line starts over with what is left, so the scrollback reads as a
plain transcript. Only the words of the current line are drawn, so a long
session's redraws cost no more than a short one's.

When stdout is not a terminal (a pipe, a file) there is no redrawing and no
colour: each sentence is written once all its marks have settled.

A hint about the input (too quiet, clipping, noisy: ``InputHint``) is one line on stderr when
it changes, between caption lines.

In a meeting, a word whose speaker differs from the word before it starts with
the speaker's name ("Others: …"); each side's unstable words are kept apart.

Subscribers are called from two threads (the engine's and the recognizer's),
hence the lock.
"""

from __future__ import annotations

import shutil
import sys
import threading
from typing import TextIO

from engine.events import InputHint, SourceNotice, WordsHidden
from engine.speakers.echo_guard import hidden_notice
from engine.speakers.labels import SpeakerNames
from engine.transcript.caption_fold import CaptionFold, by_speaker

DIM, RESET, ERASE = "\x1b[2m", "\x1b[0m", "\r\x1b[K"
NO_ECHO_GUARD = "--no-echo-guard"  # listen's option that shows the words the echo guard would hide
HIDDEN_TOTAL = " in all, kept in the journal"  # how the total's line after the captions ends


class TerminalCaptions:
    def __init__(
        self,
        out: TextIO | None = None,
        err: TextIO | None = None,
        interactive: bool | None = None,
        width: int | None = None,
        names: SpeakerNames | None = None,
    ):
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        if interactive is None:
            try:
                interactive = self.out.isatty()
            except (AttributeError, ValueError):
                interactive = False
        self.interactive = interactive
        self._width = width
        self._lock = threading.Lock()
        self._line_start = 0  # first position of the current line: those before it are printed for good
        self.captions = CaptionFold()
        self.names = names or SpeakerNames()
        self._printed_speaker = ""  # who said the last word printed for good
        self._held: list[str] = []  # "finished" notices: said after the last caption line, not inside it
        self._finished = False  # after finish(): no more caption lines (``listen`` prints its summary)
        self._silent = False  # after abandon(): nothing more at all (the caller's line is the last)
        self._hint: str | None = None  # the input hint said last (its kind); None: none or cleared
        self._hidden_said = 0  # words hidden as possible echo when that was said (0: not yet)

    # -- the subscriber ---------------------------------------------------------------------------
    def __call__(self, events: list) -> None:
        with self._lock:
            if self._silent:
                return
            if self._finished:  # no caption line after the last one; a notice is still said
                events = [e for e in events if isinstance(e, SourceNotice)]
            changed = False
            for event in events:
                say = self._SAY.get(type(event))
                changed |= say(self, event) if say is not None else False
            change = self.captions.apply(events)
            if change.retracted is not None:
                # Words already printed for good cannot be unprinted; their replacements follow them.
                self._line_start = min(self._line_start, change.retracted)
            if changed or change.changed:
                self._draw()

    def pause(self) -> None:
        """Clear the line being redrawn, so that a message can take a line of its own; the next
        caption event draws it again."""
        with self._lock:
            if self.interactive and not self._finished:
                self.out.write(ERASE)
                self.out.flush()

    def abandon(self) -> None:
        """The session was given up before its last words settled (a second Ctrl-C): the line
        being redrawn is cleared, and from now on nothing is drawn or said, not even a notice, so
        that the caller's line is the terminal's last and the shell's prompt gets a line of its
        own. (Its settled words are in the journal, which ``livecap recover`` saves.)"""
        with self._lock:
            if self.interactive and not self._finished and not self._silent:
                self.out.write(ERASE)
                self.out.flush()
            self._silent = self._finished = True
            self._held.clear()

    def finish(self) -> None:
        """End of session: whatever is left, printed for good; later caption events draw nothing."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
            tokens = [self._token(p) for p in self._positions()]
            self._line_start = len(self.captions.words)
            if self.interactive:
                self.out.write(ERASE)
            if tokens:
                self.out.write(" ".join(tokens) + "\n")
            self.out.flush()
            for message in self._held:
                print(f"livecap: {message}", file=self.err, flush=True)
            self._held.clear()

    # -- what is said on stderr (each returns whether the caption line must be drawn again) -------
    def _say_notice(self, notice: SourceNotice) -> bool:
        if self.interactive and notice.kind == "finished":
            # The end of a file comes while its last words are still being decided: on a
            # terminal the notice would split the caption line. It follows the captions.
            self._held.append(notice.message)
            return False
        if self.interactive:
            self.out.write(ERASE)
            self.out.flush()
        print(f"livecap: {notice.message}", file=self.err, flush=True)
        return self.interactive

    def _say_hint(self, hint: InputHint) -> bool:
        """One quiet line on stderr when the input's hint changes (the engine already holds each
        for seconds); the caption line is cleared first and redrawn after it."""
        if hint.kind == self._hint:
            return False
        had_hint, self._hint = self._hint is not None, hint.kind
        if hint.kind is None and not had_hint:
            return False
        line = f"hint: {hint.message}" if hint.kind else "hint: the input sounds fine now"
        if self.interactive:
            self.out.write(ERASE)
            self.out.flush()
        print(f"livecap: {line}", file=self.err, flush=True)
        return self.interactive

    def _say_hidden(self, hidden: WordsHidden) -> bool:
        """Words hidden as possible echo: said once, as it first happens, with the option that
        shows them; the total, if it grew, after the last caption line (``finish``)."""
        total = hidden.total
        if self._hidden_said:
            self._held = [m for m in self._held if not m.endswith(HIDDEN_TOTAL)]
            self._held.append(f"{total} words hidden as possible echo{HIDDEN_TOTAL}")
            return False
        self._hidden_said = total
        line = hidden_notice(total, f"{NO_ECHO_GUARD} shows every word (a headset has no echo)")
        if self.interactive:
            self.out.write(ERASE)
            self.out.flush()
        print(f"livecap: {line}; the journal keeps them", file=self.err, flush=True)
        return self.interactive

    _SAY = {SourceNotice: _say_notice, InputHint: _say_hint, WordsHidden: _say_hidden}

    # -- the caption line ---------------------------------------------------------------------------
    def _positions(self) -> range:
        return range(self._line_start, len(self.captions.words))

    def _settled(self, p: int) -> bool:
        return self.captions.settled[p]

    def _token(self, p: int) -> str:
        """The word at ``p`` as shown: after its speaker's name where the speaker changes."""
        words = self.captions.words
        speaker = words[p].heard.speaker
        before = words[p - 1].heard.speaker if p > self._line_start else self._printed_speaker
        return self.names.line_label(speaker) + words[p].display if speaker != before else words[p].display

    @property
    def _unstable(self) -> list[str]:
        words = []
        for speaker, group in by_speaker(self.captions.unstable, None):
            texts = [w.text for w in group]
            if speaker:
                words += [self.names.line_label(speaker) + texts[0], *texts[1:]]
            else:
                words += texts
        return words

    def _printed(self, positions: list[int]) -> None:
        """``positions`` were printed for good: they leave the line."""
        self._printed_speaker = self.captions.words[positions[-1]].heard.speaker

    # -- drawing --------------------------------------------------------------------------------------
    def _draw(self) -> None:
        if self.interactive:
            self._draw_line()
        else:
            self._print_sentences()
        self.out.flush()

    def _draw_line(self) -> None:
        width = max(20, (self._width or shutil.get_terminal_size((80, 24)).columns) - 1)
        while True:
            positions = self._positions()
            tokens = [self._token(p) for p in positions] + self._unstable
            if len(" ".join(tokens)) <= width:
                break
            # Too long: print the leading settled words that fit, for good, and start a new line.
            done, length = [], -1
            for p in positions:
                text, settled = self._token(p), self._settled(p)
                if not settled or length + 1 + len(text) > width:
                    break
                done.append(p)
                length += 1 + len(text)
            if not done:
                break  # nothing settled to move out: show the line's tail below
            self.out.write(ERASE + " ".join(self._token(p) for p in done) + "\n")
            self._printed(done)
            self._line_start = done[-1] + 1
        parts = []
        for p in self._positions():
            text, settled = self._token(p), self._settled(p)
            parts.append(text if settled else f"{DIM}{text}{RESET}")
        parts += [f"{DIM}{w}{RESET}" for w in self._unstable]
        line = " ".join(parts)
        plain = " ".join([self._token(p) for p in self._positions()] + self._unstable)
        if len(plain) > width:  # a long unsettled run: the newest words matter most
            line = DIM + "…" + plain[len(plain) - width + 1 :] + RESET
        self.out.write(ERASE + line)

    def _print_sentences(self) -> None:
        positions = self._positions()
        sentence = []
        for p in positions:
            if not self._settled(p):
                break
            sentence.append(p)
            if self.captions.words[p].ends_sentence:
                self.out.write(" ".join(self._token(q) for q in sentence) + "\n")
                self._printed(sentence)
                self._line_start = p + 1
                sentence = []
