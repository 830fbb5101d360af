"""Turn a recognizer's partial/final stream into committed words for the punctuation engine.

Partials are the recognizer's running guess; it rewrites them freely. The
punctuation engine wants words that will (almost) never change, because every
withdrawn word costs it a retraction and the reader a flicker. So, in the
spirit of whisper_streaming's hypothesis buffer (agree across updates, then
commit), but for recognizers that rewrite one growing hypothesis per utterance:

- a word is *stable* when the same word has stood at the same index for
  ``agreement`` consecutive partials and is not the partial's last word (the
  last word is the one the recognizer is still hearing), or when it has stood
  there for ``max_age`` seconds of audio (so a slow speaker still gets captions);
- the stable prefix of the partial is committed; should the recognizer settle on
  a different word for one already committed (for ``rewrite_agreement``
  partials: PocketSphinx flips words back and forth), the words from there on
  are retracted and the new ones committed;
- a final result wins: committed words that differ from it are retracted and
  replaced by the final's words, with the final's times and confidences. A word
  whose text the final confirms stays, even if its times moved a little;
- except that a committed word with ``freeze_after`` committed words after it is
  frozen: nothing takes it back any more. That gives the stream a retraction
  horizon before the utterance ends (``horizon``), which dictation needs to type
  words while the speaker goes on: in a PocketSphinx run on espeak-ng speech every
  retraction reached at most 3 words back (docs/PERFORMANCE.md), so the default 5
  costs the captions next to nothing.

Indices count from the start of the utterance: both Vosk and PocketSphinx
report the whole utterance in every partial, and committed words are always a
prefix of it. Retractions never reach back past the last final.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.recognizers.base import Recognizer, RecognizerUpdate
from engine.words import Word


@dataclass
class StabiliserOutput:
    """Withdraw the last ``retract`` committed words, then append ``commit``.

    ``unstable`` is the uncommitted tail of the current hypothesis, for display only.
    ``endpoint`` says a final result arrived: the utterance is over. ``horizon``: how many words
    of the whole stream (committed and not taken back) can no longer change, after this output.
    ``rewritten`` and ``writings_settled``: the recognizer's newer writings of committed words,
    by stream position, passed on as it gave them (``RecognizerUpdate``); only a recognizer that
    commits its own words revises writings, and its words are never retracted, so its count of
    final words is the stream's. ``committed_through``: the stream time before which every word
    of the stream is committed (the function ``committed_through``): a pause after the last
    committed word is known to last until there, and no further.
    """

    retract: int = 0
    commit: list[Word] = field(default_factory=list)
    unstable: list[Word] = field(default_factory=list)
    endpoint: bool = False
    horizon: int = 0
    rewritten: dict[int, Word] = field(default_factory=dict)
    writings_settled: int | None = None
    committed_through: float = 0.0


# Seconds of speech a recognizer that cannot say how far it has heard (``heard_through`` None) may
# still commit words in, with no hypothesis shown: Whisper's decodes come on a cadence and lag.
COMMIT_LAG = 1.5


def committed_through(unstable: list[Word], heard_through: float | None, now: float) -> float:
    """How far a stream's words are all committed, at stream time ``now``: up to the hypothesis's
    first word (``unstable``, the words heard and not yet committed), and no further than the
    recognizer has heard (``RecognizerUpdate.heard_through``; unknown: ``COMMIT_LAG`` behind the
    stream). A hypothesis word without times holds the clock where it was (0 here; callers keep
    the most they were told)."""
    through = heard_through if heard_through is not None else now - COMMIT_LAG
    if unstable:
        start = unstable[0].start
        through = min(through, start) if start is not None else 0.0
    return max(0.0, min(through, now))


def _divergence(a: list[Word], b: list[Word]) -> int:
    """Index of the first differing word text (or the shorter length when one is a prefix of the other)."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i].text != b[i].text), n)


class WordStabiliser:
    def __init__(
        self,
        agreement: int = 2,
        max_age: float = 1.0,
        rewrite_agreement: int = 4,
        freeze_after: int = 5,
        commit_partials: bool = True,
    ):
        """``agreement``, ``max_age``: see the module notes. ``rewrite_agreement``: partials a rewrite
        of a committed word must stand for (or ``max_age`` seconds) before the committed words from
        there on are withdrawn (at least ``agreement``); meanwhile nothing new is committed. A
        recognizer that flips a word back and forth then costs no retraction: with PocketSphinx, 4
        rather than 2 took retractions down at the same settled-mark latency (``python -m
        engine.evaluation.e2e --fast [--rewrite-agreement 2]``; figures in docs/QUALITY.md).
        ``commit_partials=False``: for a recognizer that commits its own words (Whisper's local
        agreement, see ``for_recognizer``): only its finals are committed, its partials are shown."""
        if agreement < 1:
            raise ValueError(f"agreement must be at least 1, got {agreement}")
        if max_age <= 0:
            raise ValueError(f"max_age must be positive, got {max_age}")
        if freeze_after < 1:
            raise ValueError(f"freeze_after must be at least 1, got {freeze_after}")
        self.freeze_after = freeze_after
        self._finished = 0  # words of the stream in utterances that have ended
        self.agreement = agreement
        self.max_age = max_age
        self.rewrite_agreement = max(agreement, rewrite_agreement)
        self.commit_partials = commit_partials
        self.committed = 0  # words ever committed (replacements included)
        self.retracted = 0  # words ever retracted
        self._reset_utterance()

    @classmethod
    def for_recognizer(cls, recognizer: Recognizer, **settings) -> WordStabiliser:
        """The stabiliser ``recognizer`` needs: one whose finals are its own commitments
        (``commits_words``) gets none of its partial words committed a second way."""
        settings.setdefault("commit_partials", not recognizer.commits_words)
        return cls(**settings)

    @property
    def retraction_rate(self) -> float:
        return self.retracted / self.committed if self.committed else 0.0

    # -- the stream ------------------------------------------------------------------------
    def update(self, update: RecognizerUpdate, now: float) -> StabiliserOutput:
        """Take one recognizer update; ``now`` is the audio clock (seconds of stream consumed)."""
        out = StabiliserOutput()
        if update.final is not None:
            self._reconcile(update.final, out)
            out.endpoint = True
        self._observe(update.partial, now)
        out.rewritten, out.writings_settled = update.rewritten, update.writings_settled
        if not self.commit_partials:
            out.unstable = list(update.partial)
            out.horizon = self.horizon
            out.committed_through = committed_through(out.unstable, update.heard_through, now)
            return out
        stable = self._stable_prefix(update.partial, now)
        d = _divergence(stable, self._utterance)
        if d < len(stable) and (d == len(self._utterance) or self._rewrite_confirmed(d, now)):
            self._replace_from(d, stable[d:], out)  # stable words beyond, or instead of, what is committed
        out.unstable = list(update.partial[len(self._utterance) :])
        out.horizon = self.horizon
        out.committed_through = committed_through(out.unstable, update.heard_through, now)
        return out

    @property
    def horizon(self) -> int:
        """Words of the stream that no partial or final will change any more."""
        return self._finished + self._frozen

    def flush(self) -> StabiliserOutput:
        """End of stream with no final to come: commit the whole current hypothesis as it is."""
        out = StabiliserOutput(endpoint=True)
        d = _divergence(self._partial, self._utterance)
        if d < len(self._partial) and self.commit_partials:
            self._replace_from(d, self._partial[d:], out)
        self._end_utterance()
        out.horizon = self.horizon
        return out

    # -- internals ---------------------------------------------------------------------------
    def _reconcile(self, final: list[Word], out: StabiliserOutput) -> None:
        # Only the words the final does not confirm are withdrawn: the engine keeps the
        # rest, and with them every mark it already settled.
        d = _divergence(final, self._utterance)
        self._replace_from(d, final[d:], out)
        self._end_utterance()

    def _replace_from(self, index: int, words: list[Word], out: StabiliserOutput) -> None:
        """Make the utterance's committed words ``self._utterance[:index] + words``.

        The change is recorded in ``out``."""
        # At most one call per utterance per output, and the utterance's words precede
        # anything committed later in the same output: "retract, then commit" stays true.
        if index < self._frozen:  # frozen words stay; the new words from there on replace the rest
            words = words[self._frozen - index :]
            index = self._frozen
            same = _divergence(words, self._utterance[index:])
            index, words = index + same, words[same:]
        withdraw = len(self._utterance) - index
        if withdraw > 0:
            out.retract += withdraw
            self.retracted += withdraw
            del self._utterance[index:]
        self._utterance.extend(words)
        out.commit.extend(words)
        self.committed += len(words)
        self._frozen = max(self._frozen, len(self._utterance) - self.freeze_after)

    def _observe(self, partial: list[Word], now: float) -> None:
        """Track, per index, for how many partials and since when the same word has stood there."""
        counts, since = [], []
        for i, word in enumerate(partial):
            if i < len(self._partial) and self._partial[i].text == word.text:
                counts.append(self._counts[i] + 1)
                since.append(self._since[i])
            else:
                counts.append(1)
                since.append(now)
        self._partial, self._counts, self._since = list(partial), counts, since

    def _rewrite_confirmed(self, index: int, now: float) -> bool:
        """Has the partial's word at ``index``, which differs from the committed one, stood long enough?"""
        return self._counts[index] >= self.rewrite_agreement or now - self._since[index] >= self.max_age

    def _stable_prefix(self, partial: list[Word], now: float) -> list[Word]:
        last = len(partial) - 1
        n = 0
        for i in range(len(partial)):
            agreed = self._counts[i] >= self.agreement and i < last
            aged = now - self._since[i] >= self.max_age
            if not (agreed or aged):
                break
            n = i + 1
        return partial[:n]

    def _end_utterance(self) -> None:
        self._finished += len(self._utterance)  # all of them final now
        self._reset_utterance()

    def _reset_utterance(self) -> None:
        self._frozen = 0  # the utterance's first words that nothing may take back
        self._utterance: list[Word] = []  # committed words since the last final
        self._partial: list[Word] = []  # the latest partial
        self._counts: list[int] = []  # consecutive partials each index has kept its word
        self._since: list[float] = []  # audio time each index got its current word
