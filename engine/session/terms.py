"""The vocabulary's terms in a live session's committed words, before the punctuation engine.

A side's stabiliser commits words a few at a time, and may take the last ones back. ``LiveTerms``
stands between it and the merger: each output's committed words are matched against the
vocabulary (``VocabularyMatcher``) and the runs that are a term go on as the term ("cube
control" -> "kubectl"), so the engine, the journal, the history, the exports, the overlay and
typed dictation all see the term. Only words not yet passed on are matched: a word the engine
has is never replaced, so settled text never changes because of the vocabulary.

A term may be said across two of the stabiliser's batches ("post" now, "gres" a moment later).
So the last words of a batch (at most ``HOLD_WORDS``) that could begin a term (they are the
first words of a term or a spoken form of several words, or, not all everyday words, they sound
close to the beginning of one) are held
until the next batch, the utterance's end, or ``HOLD_SECONDS`` of audio, whichever comes first;
every other word goes on at once. A held word is shown with the words still being heard, and
the engine's clock stops before it, as it does for any word not in the stream yet.

The stabiliser counts its own words; a term changes how many there are ("post gres" is one
word), so its retractions, horizon and revised writings are translated to the words passed on:
a retraction that reaches into a term takes the whole term back, and the words before the
retracted ones are matched again.

A term learned while the session runs (``learn``: the user added one from a caption) applies
from the side's next batch: the words held or not committed yet are matched with the new
vocabulary, the words passed on never are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.recognizers.stabiliser import StabiliserOutput
from engine.vocabulary.entries import Vocabulary
from engine.vocabulary.matching import COMMON_THRESHOLD, MIN_SOUNDS, VocabularyMatcher, letters
from engine.vocabulary.phonemes import distance
from engine.vocabulary.word_list import english_words
from engine.words import Word, word_core

__all__ = ["HOLD_SECONDS", "HOLD_WORDS", "LiveTerms", "known_forms"]

HOLD_WORDS = 2  # a term's first words that may wait for the rest
HOLD_SECONDS = 0.6  # of audio: how long a word that could begin a term waits for the next


@dataclass
class _Group:
    """Committed words passed on as ``passed`` (the same words, or a term in their place)."""

    heard: list[Word]
    passed: list[Word]
    term: bool


def known_forms(vocabulary: Vocabulary) -> dict[str, str]:
    """The written form of each word of the vocabulary's terms that is not a common English word
    ("PostgreSQL", "kubectl"): the punctuation engine's casing writes them so (a common word,
    "Mark", keeps the engine's case: every "mark" is not the name)."""
    forms: dict[str, str] = {}
    words = english_words()
    for entry in vocabulary:
        for part in entry.term.split():
            core = word_core(part)
            if core and not words.is_common(letters(core)):
                forms.setdefault(core.lower(), core)
    return forms


def _first_words(matcher: VocabularyMatcher) -> set[str]:
    """The letters of the first words of every term and spoken form of several words ("cube" of
    "cube control"): a word ending a batch with them may begin the term."""
    return {
        letters("".join(said[:k]))
        for entry in matcher.vocabulary
        for said in (entry.term.split(), *(form.split() for form in entry.spoken))
        for k in range(1, len(said))
    }


class LiveTerms:
    """One side's stabiliser outputs with the vocabulary's terms in (see the module)."""

    def __init__(self, matcher: VocabularyMatcher, hold_seconds: float = HOLD_SECONDS):
        self.matcher = matcher
        self.hold_seconds = hold_seconds
        self._heard_before = 0  # the stabiliser's words before ``_groups``: final, passed on
        self._passed_before = 0  # the words passed on for them
        self._groups: list[_Group] = []
        self._held: list[Word] = []  # committed, not passed on yet
        self._held_since = 0.0
        self._settled_writings: int | None = None  # the stabiliser's count, once told
        # The matcher to use from the next batch on (``learn``); set from any thread.
        self.wanted = matcher
        self._first_words = _first_words(matcher)

    def learn(self, matcher: VocabularyMatcher) -> None:
        """Use ``matcher`` (a vocabulary with a term learned) from the next batch on: the words
        not passed on yet are matched with it, the words passed on stay as they are. Safe from any
        thread: the side's thread takes it at its next ``update`` (one attribute, set whole)."""
        self.wanted = matcher

    def update(self, out: StabiliserOutput, now: float) -> StabiliserOutput:
        """``out`` with the terms in, in the words passed on (``out`` is not changed)."""
        wanted = self.wanted
        if wanted is not self.matcher:
            self.matcher, self._first_words = wanted, _first_words(wanted)
        retract, heard_again = self._retract(out.retract)
        held = self._held
        for position, word in out.rewritten.items():  # a held word goes on in its newest writing
            at = position - self._heard_total
            if 0 <= at < len(held):
                held[at] = word
        pending = [*heard_again, *held, *out.commit]
        if not held or out.commit or heard_again:
            self._held_since = now
        release_all = out.endpoint or now - self._held_since >= self.hold_seconds
        passed = self._pass_on(pending, release_all)
        if out.writings_settled is not None:
            self._settled_writings = max(self._settled_writings or 0, out.writings_settled)
        rewritten = self._rewritten(out.rewritten)
        horizon = self._passed_count(out.horizon)
        settled = None if self._settled_writings is None else self._passed_count(self._settled_writings)
        self._forget(out.horizon)
        through = out.committed_through
        if self._held and self._held[0].start is not None:
            through = min(through, self._held[0].start)
        return replace(
            out,
            retract=retract,
            commit=passed,
            unstable=[*self._held, *out.unstable],
            horizon=horizon,
            rewritten=rewritten,
            writings_settled=settled,
            committed_through=through,
        )

    # -- internals -------------------------------------------------------------------------
    @property
    def _heard_total(self) -> int:
        """The stabiliser's words passed on (or stood in for by a term), before the held ones."""
        return self._heard_before + sum(len(g.heard) for g in self._groups)

    def _retract(self, count: int) -> tuple[int, list[Word]]:
        """(words passed on to take back, words heard before the retracted ones to match again)
        for the stabiliser's last ``count`` words taken back."""
        taken = min(count, len(self._held))
        if taken:
            del self._held[len(self._held) - taken :]
        count -= taken
        retract, heard = 0, []
        while count > len(heard) and self._groups:
            group = self._groups.pop()
            retract += len(group.passed)
            heard = group.heard + heard
        return retract, heard[: len(heard) - count]

    def _pass_on(self, pending: list[Word], release_all: bool) -> list[Word]:
        """The words of ``pending`` to pass on now, terms in; the rest are held."""
        cut = len(pending)
        if pending and not release_all:
            matches = self.matcher.matches(pending)
            cut = self._hold_from(pending, matches)
            cut = max([cut, *(m.end for m in matches if m.start < cut)])
        self._held = pending[cut:]
        if not cut:
            return []
        matched = self.matcher.apply(pending[:cut])
        heard = passed = 0  # in pending, in matched.words
        for match in [*matched.matches, None]:
            stop = cut if match is None else match.start
            for word in pending[heard:stop]:
                self._groups.append(_Group([word], [matched.words[passed]], False))
                passed += 1
            if match is not None:
                said = len(match.entry.term.split())
                group = _Group(pending[match.start : match.end], matched.words[passed : passed + said], True)
                self._groups.append(group)
                heard, passed = match.end, passed + said
        return matched.words

    def _hold_from(self, pending: list[Word], matches) -> int:
        """Where the words that could begin a term start: none past a match, at most
        ``HOLD_WORDS`` of the batch's last words."""
        floor = max([0, *(m.end for m in matches), len(pending) - HOLD_WORDS])
        for start in range(floor, len(pending)):
            if self._could_begin(pending[start:]):
                return start
        return len(pending)

    def _could_begin(self, words: list[Word]) -> bool:
        """Whether ``words`` may be a term's first words, the rest not heard yet."""
        if not self.matcher.vocabulary:
            return False  # nothing to begin (a session without terms yet: none is asked of espeak-ng)
        cores = [word_core(w.written or w.text) for w in words]
        if not all(cores):
            return False
        if letters("".join(cores)) in self._first_words:
            return True
        if all(self.matcher.words.is_common(letters(c)) for c in cores):
            return False  # everyday words are the most of speech: each would wait
        sounds = "".join(self.matcher._word_sounds(cores))
        if len(sounds) < MIN_SOUNDS:
            return False
        for _entry, said, _words in self.matcher.variants:
            if len(said) >= len(sounds) + 2 and said[0] == sounds[0]:
                if distance(sounds, said[: len(sounds)]) <= COMMON_THRESHOLD:
                    return True
        return False

    def _rewritten(self, rewritten: dict[int, Word]) -> dict[int, Word]:
        """The stabiliser's revised writings, at the positions passed on; a term's words keep
        the term, and a held word took its newest writing already."""
        if not rewritten:
            return {}
        out: dict[int, Word] = {}
        heard, passed = self._heard_before, self._passed_before
        for group in self._groups:
            word = rewritten.get(heard)
            if word is not None and not group.term:
                out[passed] = word
            heard += len(group.heard)
            passed += len(group.passed)
        return out

    def _passed_count(self, heard_count: int) -> int:
        """How many words passed on stand for the stabiliser's first ``heard_count`` words in full."""
        heard, passed = self._heard_before, self._passed_before
        for group in self._groups:
            if heard + len(group.heard) > heard_count:
                break
            heard += len(group.heard)
            passed += len(group.passed)
        return passed

    def _forget(self, horizon: int) -> None:
        """Groups nothing can take back or rewrite any more are counted, not kept."""
        limit = horizon if self._settled_writings is None else min(horizon, self._settled_writings)
        while self._groups and self._heard_before + len(self._groups[0].heard) <= limit:
            group = self._groups.pop(0)
            self._heard_before += len(group.heard)
            self._passed_before += len(group.passed)
