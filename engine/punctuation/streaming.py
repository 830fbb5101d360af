"""Streaming punctuation: entropy threshold decoding (Minixhofer 2021, Streamed Punctuation
Annotation using Transformers, Algorithm 1; docs/DECODING.md).

Every new word triggers ONE inference: the tagger reads the window that ends at
the new word, which gives the new word (at lookahead 0, for an immediate
provisional mark) and every position still waiting for context, each now one
word further on, their distributions at once. A position settles when the
model is sure enough (entropy ≤ h) at lookahead ≥ l_min, or when it reaches
l_max. Settled marks never change; they are emitted in word order, because the
capital of a word depends on the settled mark before it.

A change of speaker side ends the sentence in progress (``speaker_turns``): the previous side's
pending words settle at once, as after a silence, the last of them with a sentence end, and the
new side's first word takes a capital.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from engine.events import Appended, Event, Provisional, Retracted, Settled, Withdrawn
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.cue_fusion import CueFusion
from engine.punctuation.hint_fusion import HintFusion
from engine.punctuation.scoring import ModelScorer, Scorer, entropies_bits, sentence_final_mark
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.speaker_turns import starts_turn, turn_end_mark
from engine.punctuation.word_cues import CUE_COUNT, HISTORY_WORDS, PACE_WORDS, word_cues
from engine.words import CASE_LABELS, PUNCT_LABELS, SENTENCE_END_MARKS, Word


# ---- the decoder --------------------------------------------------------------
@dataclass
class _Slot:
    """Decoder state for one word position."""

    word: Word
    pause_after: bool = False
    punct: np.ndarray | None = None  # latest probabilities
    case: np.ndarray | None = None
    lookahead: int = 0  # lookahead of the latest prediction
    decided: bool = False  # the mark is final; it is emitted once every earlier position has settled
    published: tuple[str, str, str] | None = None
    settled_mark: str | None = None
    starts_turn: bool = False  # another side spoke the word before: a sentence starts here
    ends_turn: bool = False  # the next word is another side's: the sentence ends here


class StreamingDecoder:
    """The ``Decoder`` on livecap's punctuation model."""

    marks_by = "engine"
    # Enough left context for any window, plus room for recognizer retractions.
    KEEP_SETTLED = 128
    # Words of left context handed to the scorer: a window of w tokens holds at most w words,
    # so this covers any window up to 128 tokens (a scorer with a wider one raises it, below).
    CONTEXT_WORDS = 128

    def __init__(
        self,
        scorer: Scorer,
        settings: DecoderSettings,
        casing: CaseRenderer | None = None,
        hint_fusion: HintFusion | None = None,
        cue_fusion: CueFusion | None = None,
    ):
        """``casing`` renders the case (default: a renderer without a lexicon, per ``settings.casing``);
        ``hint_fusion`` folds what a recognizer wrote into every answer, ``cue_fusion`` each word's
        timing and audio (None: ignored)."""
        self.settings = settings
        self.scorer = scorer
        self.hint_fusion = hint_fusion
        self.cue_fusion = cue_fusion
        self._context_words = max(self.CONTEXT_WORDS, scorer.window)
        self.casing = casing or CaseRenderer(enabled=self.settings.casing)
        self._slots: list[_Slot] = []
        self._base = 0  # absolute position of _slots[0]
        self.first_unsettled = 0

    @classmethod
    def from_model(
        cls,
        model,
        settings: DecoderSettings | None = None,
        recognizer: str | None = None,
        known_forms: Mapping[str, str] | None = None,
    ) -> StreamingDecoder:
        """A decoder on ``settings`` (default: the model's recommended ones), for the words of the
        recognizer kind ``recognizer`` (its cue fusion; None: the model's default one);
        ``known_forms``: written forms of words the user declared (``CaseRenderer``)."""
        settings = settings or model.config.decoder
        return cls(
            ModelScorer(model),
            settings,
            casing=CaseRenderer(model.config.lexicon, enabled=settings.casing, known_forms=known_forms),
            hint_fusion=model.config.hint_fusion,
            cue_fusion=model.config.cue_fusion_for(recognizer),
        )

    # The settings the decoding reads, by name (``set_threshold`` changes the first two live).
    @property
    def threshold(self) -> float:
        return self.settings.threshold

    @property
    def l_max(self) -> int:
        return self.settings.l_max

    @property
    def l_min(self) -> int:
        return self.settings.l_min

    @property
    def silence_gap(self) -> float | None:
        return self.settings.silence_gap

    @property
    def pause_threshold(self) -> float | None:
        return self.settings.pause_threshold

    # -- public API ---------------------------------------------------------------
    @property
    def word_count(self) -> int:
        return self._base + len(self._slots)

    @property
    def pending(self) -> int:
        return self.word_count - self.first_unsettled

    def set_threshold(self, threshold: float, l_max: int | None = None) -> None:
        """Change the latency/accuracy trade-off live; affects decisions from the next word on."""
        self.settings = self.settings.override(threshold=threshold, l_max=l_max)

    def push(self, word: Word) -> list[Event]:
        return self.push_many([word])

    def push_many(self, words: list[Word]) -> list[Event]:
        """Append words that arrived together, then run one inference, on the window ending at
        the newest: it scores every pending word, so the words before it need none of their own.
        Each word still gets its ``Appended`` and provisional events, in order; a word simply
        reaches its decision with the lookahead it has by then, as if the decoder had been slow."""
        events: list[Event] = []
        for word in words:
            events += self._append(word)
        if words:
            events += self._step(force=False)
            self._trim()
        return events

    def _append(self, word: Word) -> list[Event]:
        events: list[Event] = []
        turn = bool(self._slots) and starts_turn(self._slots[-1].word.speaker, word.speaker)
        if turn and self.pending:
            # The other side spoke: the sentence in progress ended, and nothing after it can be
            # context for it (the last pending word is the last slot: marks settle in order).
            self._slots[-1].ends_turn = True
            events += self.flush()
        if self._slots:
            last = self._slots[-1]
            gap = (
                (word.start - last.word.end)
                if (word.start is not None and last.word.end is not None)
                else None
            )
            if gap is not None and self.silence_gap is not None and gap >= self.silence_gap and self.pending:
                events += self.flush()  # the speaker stopped: captions must not hang
            if gap is not None and self.pause_threshold is not None and gap >= self.pause_threshold:
                last.pause_after = True
        self._slots.append(_Slot(word, starts_turn=turn))
        events.append(Appended(self.word_count - 1, word))
        return events

    def revise_writings(self, rewritten: dict[int, Word], settled: int) -> list[Event]:
        """A recognizer's newer writings of words already pushed. The model reads a word's writing
        (as evidence, ``hint_fusion``) each time it scores the word, so a pending word is scored
        with the newest one from the next step on; a settled mark stays as it is, and the decision
        stays the model's. Nothing is scored here: the next word's one inference reads them."""
        for position, word in rewritten.items():
            if self._base <= position < self.word_count:
                slot = self._slot(position)
                slot.word = replace(slot.word, written=word.written)
        return []

    def advance_time(self, now: float) -> list[Event]:
        """Tell the decoder how far the audio has got; a long enough silence settles everything."""
        if not self._slots or self.silence_gap is None or not self.pending:
            return []
        last_end = self._slots[-1].word.end
        if last_end is not None and now - last_end >= self.silence_gap:
            return self.flush()
        return []

    def learn_forms(self, forms: dict[str, str]) -> None:
        self.casing.learn(forms)

    def flush(self) -> list[Event]:
        """Settle every pending position with the context there is."""
        if not self.pending:
            return []
        last = self._slots[-1]
        if self.pause_threshold is not None and last.word.end is not None:
            last.pause_after = True  # end of speech is a pause
        return self._step(force=True)

    def finish(self) -> list[Event]:
        """The input has ended (not just paused): settle everything, as ``flush`` does, and end
        the last word's sentence (``sentence_final_mark``). Live captions never call this
        before the end, so their provisional and settled marks are untouched until then.

        If the last word had settled before with a mark that does not end a sentence, it
        settles once more with its final mark: the one exception to "settled never changes",
        and only because nothing can come after it."""
        events = self.flush()
        if not self._slots:
            return events
        p, slot = self.word_count - 1, self._slots[-1]
        if slot.settled_mark in SENTENCE_END_MARKS:
            return events
        mark = sentence_final_mark(slot.punct)
        slot.settled_mark = mark
        previous = self._previous_mark(p)
        label = CASE_LABELS[int(np.argmax(slot.case))]
        around = self._around(p)
        case, form = self.casing.render(slot.word.text, label, previous, *around)
        confidence = float(slot.punct[PUNCT_LABELS.index(mark)])
        events = [e for e in events if not (isinstance(e, Settled) and e.position == p)]
        inner = self.casing.inner_form(slot.word.text, label, form, *around)
        return [*events, Settled(p, mark, case, slot.lookahead, form, confidence, inner)]

    def retract(self, count: int) -> list[Event]:
        """Remove the last ``count`` words (the recognizer replaced them)."""
        count = min(count, len(self._slots))
        if count <= 0:
            return []
        cut = self.word_count - count
        events: list[Event] = [Withdrawn(p) for p in range(cut, min(self.first_unsettled, self.word_count))]
        del self._slots[len(self._slots) - count :]
        self.first_unsettled = min(self.first_unsettled, cut)
        if self._slots:
            self._slots[-1].pause_after = False  # its following gap is unknown again
        for offset, slot in enumerate(self._slots):
            p = self._base + offset
            if p >= self.first_unsettled and slot.decided and p + slot.lookahead >= cut:
                slot.decided = False  # decided on context that no longer exists: decide again
        events.append(Retracted(cut))
        return events

    # -- internals ----------------------------------------------------------------
    def _step(self, force: bool) -> list[Event]:
        last = self.word_count - 1
        requests = []
        for p in range(self.first_unsettled, last + 1):
            if not self._slot(p).decided:
                requests.append((p, min(last - p, self.l_max)))
        if requests:
            # Hand the scorer only the words a window can reach (each word is at least one
            # token): the slot list holds up to ~3 x KEEP_SETTLED words, rebuilt on every word.
            lo = max(self._base, requests[0][0] - self._context_words)
            slots = self._slots[lo - self._base :]
            words = [s.word.text for s in slots]
            pauses = [s.pause_after for s in slots]
            cues = None
            if self.scorer.uses_cues or self.cue_fusion is not None:
                # For a model that reads them, the words a window can reach (each word is at least
                # one token) and the pace's history before them, as training builds its windows;
                # for the fusion alone, the pending words and the history their rows read.
                # flush() marks the silence after the newest word.
                if self.scorer.uses_cues:
                    reach = max(0, requests[0][0] - lo - (self.scorer.window or 0) - PACE_WORDS)
                else:
                    reach = max(0, requests[0][0] - lo - HISTORY_WORDS)
                cues = np.zeros((len(slots), CUE_COUNT), dtype=np.float32)
                # A recognizer's marks enter once: through hint fusion where the model has it.
                cues[reach:] = word_cues(
                    [s.word for s in slots[reach:]],
                    pause_after_last=slots[-1].pause_after,
                    hints=self.hint_fusion is None,
                )
            punct, case = self.scorer.score(words, pauses, [(p - lo, l) for p, l in requests], cues=cues)
            if self.cue_fusion is not None:
                punct = self.cue_fusion.fuse(punct, cues, [p - lo for p, _ in requests])
            if self.hint_fusion is not None:
                punct, case = self.hint_fusion.fuse(
                    punct,
                    case,
                    [self._slot(p).word for p, _ in requests],
                    [self._slot(p - 1).word.written if p > self._base else "" for p, _ in requests],
                )
            sure = entropies_bits(punct) <= self.threshold  # one numpy call for the whole batch
            for k, (p, lookahead) in enumerate(requests):
                slot = self._slot(p)
                slot.punct, slot.case, slot.lookahead = punct[k], case[k], lookahead
                if force or (lookahead >= self.l_min and (sure[k] or lookahead >= self.l_max)):
                    slot.decided = True
        return self._publish()

    def _publish(self) -> list[Event]:
        events: list[Event] = []
        previous = self._previous_mark(self.first_unsettled)
        in_order = True
        for p in range(self.first_unsettled, self.word_count):
            slot = self._slot(p)
            mark = PUNCT_LABELS[int(np.argmax(slot.punct))]
            if slot.ends_turn:  # the model's likelier sentence end, where it saw none
                mark = turn_end_mark(mark, sentence_final_mark(slot.punct))
            confidence = float(slot.punct[PUNCT_LABELS.index(mark)])
            label = CASE_LABELS[int(np.argmax(slot.case))]
            around = self._around(p)
            case, form = self.casing.render(
                slot.word.text, label, None if slot.starts_turn else previous, *around
            )
            shown = (mark, case, form)
            settle = in_order and slot.decided
            if slot.published is None or (shown != slot.published and not settle):
                events.append(Provisional(p, mark, case, confidence, form))
                slot.published = shown
            if settle:
                inner = self.casing.inner_form(slot.word.text, label, form, *around)
                events.append(Settled(p, mark, case, slot.lookahead, form, confidence, inner))
                slot.settled_mark = mark
                self.first_unsettled = p + 1
            else:
                in_order = False
            previous = mark
        return events

    def _previous_mark(self, p: int) -> str | None:
        """The settled mark before position ``p``, as its case reads it: None where a sentence
        starts anyway (the stream's first word, another side's first word)."""
        if p == 0 or (p < self.word_count and self._slot(p).starts_turn):
            return None
        return self._slot(p - 1).settled_mark if p > self._base else "none"

    def _around(self, p: int) -> tuple[str | None, str | None]:
        """The words before and after position ``p`` (None where there is none yet), which
        tell a month from a common word ("in March", "we march")."""
        before = self._slot(p - 1).word.text if p > self._base else None
        after = self._slot(p + 1).word.text if p + 1 < self.word_count else None
        return before, after

    def _slot(self, position: int) -> _Slot:
        return self._slots[position - self._base]

    def _trim(self) -> None:
        surplus = (self.first_unsettled - self._base) - self.KEEP_SETTLED
        if surplus > self.KEEP_SETTLED:  # trim in chunks, not on every word
            del self._slots[:surplus]
            self._base += surplus
