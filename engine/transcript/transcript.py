"""The transcript: recognized words with their punctuation and case decisions.

Each word keeps its own decision (``mark``, ``case``) instead of the transcript
keeping a rendered string, so that correcting one mark re-renders one word and
the timings stay attached to the words they belong to. Sentences and
paragraphs are derived on demand as index ranges; they are never stored, so
they cannot go stale after an edit.

A meeting's words each carry who spoke (``TranscriptWord.speaker``, an id of
``engine.speakers.labels``); the text then starts a paragraph with the speaker's name wherever
the speaker changes. A one-source transcript (speaker "") reads as it always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.speakers.labels import SpeakerNames
from engine.words import (
    CASE_LABELS,
    MARK_TEXT,
    PUNCT_LABELS,
    SENTENCE_END_MARKS,
    Word,
    apply_case,
    word_from_dict,
    word_to_dict,
)

FORMAT_NAME = "livecap-transcript"
FORMAT_VERSION = 1


@dataclass(init=False)
class TranscriptWord:
    """One word of the transcript: the word as recognized (``heard``, a ``Word``: its text, times,
    confidence, the recognizer's writing) with the decision on it (``mark``, ``case``, ``form``).

    Carrying the ``Word`` whole, a field the recognizer side adds to it (a speaker, say) reaches the
    transcript, the journal and the exports with no copy to extend: make one with
    ``TranscriptWord(heard=word, mark=...)``, change one with ``dataclasses.replace``. The word's
    fields read (and write) through: ``text``, ``start``, ``end``, ``confidence``, ``written``,
    ``speaker``.
    """

    heard: Word
    mark: str = "none"  # one of PUNCT_LABELS: the punctuation that follows the word
    case: str = "lower"  # one of CASE_LABELS
    # Explicit spelling that the three case classes cannot express ("iPhone",
    # "McDonald"). When set it wins over ``case``.
    form: str | None = None
    # Whether its mark and case settled (a live session said so, or the journal has it): a second
    # punctuation pass keeps them exactly and fills only the words that never settled. Where the
    # word's decision came from, not part of it: equal words compare equal whatever it says.
    settled: bool = field(default=False, compare=False)

    def __init__(
        self,
        text: str = "",
        start: float | None = None,
        end: float | None = None,
        confidence: float = 1.0,
        mark: str = "none",
        case: str = "lower",
        form: str | None = None,
        written: str = "",
        settled: bool = False,
        *,
        heard: Word | None = None,
    ):
        """Either the word's own fields (``text``...), or ``heard``, the ``Word`` whole."""
        if heard is None:
            heard = Word(text, start, end, confidence, written)
        elif (text, start, end, confidence, written) != ("", None, None, 1.0, ""):
            raise TypeError("give a TranscriptWord either heard or the word's fields, not both")
        # Fail where the bad label enters (a hand-edited file, a buggy caller),
        # not later as a KeyError deep inside an export.
        if mark not in PUNCT_LABELS:
            raise ValueError(f"unknown mark {mark!r}; expected one of {PUNCT_LABELS}")
        if case not in CASE_LABELS:
            raise ValueError(f"unknown case {case!r}; expected one of {CASE_LABELS}")
        self.heard, self.mark, self.case, self.form, self.settled = heard, mark, case, form, settled

    # -- the recognized word's fields, through ``heard`` ---------------------------------------
    @property
    def text(self) -> str:
        return self.heard.text

    @text.setter
    def text(self, value: str) -> None:
        self.heard = replace(self.heard, text=value)

    @property
    def start(self) -> float | None:
        return self.heard.start

    @start.setter
    def start(self, value: float | None) -> None:
        self.heard = replace(self.heard, start=value)

    @property
    def end(self) -> float | None:
        return self.heard.end

    @end.setter
    def end(self, value: float | None) -> None:
        self.heard = replace(self.heard, end=value)

    @property
    def confidence(self) -> float:
        return self.heard.confidence

    @confidence.setter
    def confidence(self, value: float) -> None:
        self.heard = replace(self.heard, confidence=value)

    @property
    def written(self) -> str:
        """The word as its recognizer wrote it, marks and capitals included (Whisper), "" for one
        that writes none: a second punctuation pass (the offline decoder) folds it in again."""
        return self.heard.written

    @property
    def speaker(self) -> str:
        """Who spoke the word: a speaker id ("me", "others:2"), "" in a one-source session."""
        return self.heard.speaker

    @speaker.setter
    def speaker(self, value: str) -> None:
        self.heard = replace(self.heard, speaker=value)

    # -- the decision ---------------------------------------------------------------------------
    @property
    def word(self) -> str:
        """The word as shown, without its punctuation."""
        return self.form if self.form is not None else apply_case(self.text, self.case)

    @property
    def display(self) -> str:
        """The word as shown, with the punctuation that follows it."""
        return self.word + MARK_TEXT[self.mark]

    @property
    def has_times(self) -> bool:
        return self.heard.has_times

    @property
    def ends_sentence(self) -> bool:
        return self.mark in SENTENCE_END_MARKS

    def to_dict(self) -> dict[str, Any]:
        # "display" is derived and written only for the convenience of readers
        # of the file; from_dict ignores it.
        heard = word_to_dict(self.heard, text_key="word")
        return {
            "word": heard.pop("word"),
            "display": self.display,
            **{key: heard.pop(key) for key in ("start", "end", "confidence")},
            "mark": self.mark,
            "case": self.case,
            "form": self.form,
            **heard,  # the word's other fields, where they are set ("written")
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], text_key: str = "word") -> TranscriptWord:
        """A word from its JSON: a transcript's (the text under "word") or a journal's ("text")."""
        form = data.get("form")
        return cls(
            heard=word_from_dict(data, text_key),
            mark=str(data.get("mark", "none")),
            case=str(data.get("case", "lower")),
            form=None if form is None else str(form),
        )


@dataclass(frozen=True)
class Segment:
    """A run of words by index: ``start_index`` included, ``end_index`` excluded."""

    start_index: int
    end_index: int

    def __len__(self) -> int:
        return self.end_index - self.start_index

    @property
    def last_index(self) -> int:
        return self.end_index - 1

    def indices(self) -> range:
        return range(self.start_index, self.end_index)


PARAGRAPH_PAUSE = 2.0  # seconds of silence after a sentence end that start a new paragraph
PARAGRAPH_SENTENCES = 6  # a paragraph of this many sentences ends with the last of them
PARAGRAPH_WORDS = 60  # a paragraph this long ends at its next sentence end (a long monologue)


@dataclass(frozen=True)
class ParagraphPlace:
    """Where a word stands in its paragraph: counts so far, the word itself included."""

    words: int
    sentences: int

    @property
    def starts_paragraph(self) -> bool:
        return self.words == 1


@dataclass(frozen=True)
class ParagraphRule:
    """Where paragraphs break: the one rule for the live captions and for every export, so the
    text does not reflow when the window switches from one to the other.

    A paragraph ends at a sentence end that is followed by ``pause`` seconds of silence (a
    speaker pausing usually changes topic), or that completes ``max_sentences`` sentences, or
    that comes once the paragraph holds ``max_words`` words (so untimed or pause-free text still
    gets readable blocks). Only *settled* sentence ends count: a break is decided once, from
    words that no longer change, so it never moves. A change of speaker starts a paragraph
    (the speaker's name starts it), wherever it falls.
    """

    pause: float = PARAGRAPH_PAUSE
    max_sentences: int = PARAGRAPH_SENTENCES
    max_words: int = PARAGRAPH_WORDS

    def __post_init__(self) -> None:
        if self.max_sentences < 1 or self.max_words < 1:
            raise ValueError("max_sentences and max_words must be at least 1")

    def place(
        self,
        previous: ParagraphPlace | None,
        before: TranscriptWord | None,
        word: TranscriptWord,
        before_settled: bool = True,
    ) -> ParagraphPlace:
        """``word``'s place, from the place of the word ``before`` it (None: ``word`` is the first)."""
        ends = int(word.ends_sentence)
        if previous is None or before is None or before.speaker != word.speaker:
            return ParagraphPlace(1, ends)
        if before_settled and before.ends_sentence:
            gap = _gap(before, word)
            if (
                gap >= self.pause
                or previous.sentences >= self.max_sentences
                or previous.words >= self.max_words
            ):
                return ParagraphPlace(1, ends)
        return ParagraphPlace(previous.words + 1, previous.sentences + ends)


def _gap(before: TranscriptWord, word: TranscriptWord) -> float:
    """Silence between two words; 0 when unknown."""
    if before.end is None or word.start is None:
        return 0.0
    return word.start - before.end


@dataclass
class Transcript:
    words: list[TranscriptWord] = field(default_factory=list)

    @property
    def has_times(self) -> bool:
        """True when every word has a start and an end (what subtitles need)."""
        return all(w.has_times for w in self.words)

    def copy(self) -> Transcript:
        """A copy of every word, each field kept (``settled`` too), that another thread may read
        while this one keeps changing."""
        return Transcript([replace(w) for w in self.words])

    def segment_words(self, segment: Segment) -> list[TranscriptWord]:
        return self.words[segment.start_index : segment.end_index]

    def segment_text(self, segment: Segment) -> str:
        return " ".join(w.display for w in self.segment_words(segment))

    def sentences(self) -> list[Segment]:
        """Sentences, each ending at a period or question mark; the last one may be open."""
        segments: list[Segment] = []
        begin = 0
        for i, word in enumerate(self.words):
            if word.ends_sentence:
                segments.append(Segment(begin, i + 1))
                begin = i + 1
        if begin < len(self.words):
            segments.append(Segment(begin, len(self.words)))
        return segments

    def paragraphs(self, rule: ParagraphRule = ParagraphRule()) -> list[Segment]:
        """The paragraphs ``rule`` makes of the words (all taken as settled)."""
        starts, place = [], None
        for i, word in enumerate(self.words):
            place = rule.place(place, self.words[i - 1] if i else None, word)
            if place.starts_paragraph:
                starts.append(i)
        return [Segment(a, b) for a, b in zip(starts, starts[1:] + [len(self.words)])]

    def speakers(self) -> list[str]:
        """The speaker ids of the words, in the order each first speaks ("" left out: a
        one-source transcript has none)."""
        return list(dict.fromkeys(w.speaker for w in self.words if w.speaker))

    def text(self, rule: ParagraphRule = ParagraphRule(), names: SpeakerNames | None = None) -> str:
        """Plain text: words joined by single spaces, paragraphs by a blank line; where the
        speaker changes, the paragraph starts with the speaker's name by ``names`` ("Me: ...";
        default names when None)."""
        names = names or SpeakerNames()
        paragraphs, speaker = [], None
        for p in self.paragraphs(rule):
            first = self.words[p.start_index].speaker
            label = names.line_label(first) if first != speaker else ""
            paragraphs.append(label + self.segment_text(p))
            speaker = self.words[p.last_index].speaker
        return "\n\n".join(paragraphs)

    def to_dict(self, names: SpeakerNames | None = None) -> dict[str, Any]:
        """The transcript as JSON; a meeting's also maps each speaker id to its name by ``names``
        (``"speakers"``), the words carrying the ids."""
        names = names or SpeakerNames()
        speakers = {s: names.name(s) for s in self.speakers()}
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            **({"speakers": speakers} if speakers else {}),
            "words": [w.to_dict() for w in self.words],
            "text": self.text(names=names),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Transcript:
        fmt = data.get("format", FORMAT_NAME)
        if fmt != FORMAT_NAME:
            raise ValueError(f"not a livecap transcript (format {fmt!r})")
        version = data.get("version", FORMAT_VERSION)
        if not isinstance(version, int) or version > FORMAT_VERSION:
            # A newer file may carry fields whose meaning we do not know;
            # silently dropping them would lose the user's edits on re-save.
            raise ValueError(f"transcript version {version!r} is newer than this livecap understands")
        return cls(words=[TranscriptWord.from_dict(w) for w in data.get("words", [])])
