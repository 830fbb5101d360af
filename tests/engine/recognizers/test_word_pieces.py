"""Issue 62: one rule joins a recognizer's pieces into words (``engine.words.continues_word``).

Whisper writes "42,000" as the pieces " 42" and ",000", "12%" as " 12" and "%", "built-in" as
" built" and "-in": a piece without a leading space continues the word before it. Joined, each is
one word for every part of livecap; its marks are read only off its end ("42,000," has a comma,
"42,000" none), and no symbol is ever dropped. The pieces below are faster-whisper's own ``Word``
and ``Segment``, as tiny.en writes them (engine/recognizers/whisper_rec.py decodes through them).
"""

import pytest
from faster_whisper.transcribe import Segment as WhisperSegment
from faster_whisper.transcribe import Word as WhisperPiece

from engine.punctuation.recognizer_marks import written_marks
from engine.recognizers.decode_guard import segments_of
from engine.recognizers.local_agreement import without_initial_capitals
from engine.words import Word, bare_word, join_pieces


def pieces(*texts: str, step: float = 0.2) -> list[WhisperPiece]:
    return [
        WhisperPiece(
            start=round(i * step, 3), end=round((i + 1) * step, 3), word=t, probability=0.9 - 0.01 * i
        )
        for i, t in enumerate(texts)
    ]


@pytest.mark.parametrize(
    "written, words",
    [
        # tiny.en on Piper's "We spent forty two thousand dollars, which is twelve percent over plan."
        (
            (" We", " spent", " $42", ",000,", " which", " is", " 12", "%", " over", " plan."),
            ["We", "spent", "$42,000,", "which", "is", "12%", "over", "plan."],
        ),
        ((" We", " spent", " 42", ",000", " dollars"), ["We", "spent", "42,000", "dollars"]),
        ((" a", " built", "-in", " camera"), ["a", "built-in", "camera"]),
        ((" at", " 10", ".30", " sharp"), ["at", "10.30", "sharp"]),
        ((" in", " the", " U", ".S.", " office"), ["in", "the", "U.S.", "office"]),
        ((" the", " e", ".g.", " case"), ["the", "e.g.", "case"]),
        ((" the", " play", "'s", " end"), ["the", "play's", "end"]),
        ((" O", "-off"), ["O-off"]),
        # Whisper wrote a space, the symbol still belongs to the number
        ((" about", " $", " 8", ",000"), ["about", "$8,000"]),
        ((" 12", " %", " more"), ["12%", "more"]),
        ((" 42", " ,000"), ["42,000"]),
        # symbols inside a word stay there; a symbol on its own is a word of its own, never dropped
        ((" AT", "&T", " and", "/or", " me", "@example", ".com"), ["AT&T", "and/or", "me@example.com"]),
        ((" you", " &", " me", " +", " them", " /", " #", " 1"), ["you", "&", "me", "+", "them", "/", "#1"]),
        # no spaces in Chinese: a piece that starts with a letter is a word, whatever the spaces
        (("我们", "今天", "开会", "。"), ["我们", "今天", "开会。"]),
    ],
)
def test_pieces_that_continue_a_word_are_joined_to_it(written, words):
    assert [p.word.strip() for p in join_pieces(pieces(*written))] == words


def test_a_joined_word_spans_its_pieces_and_is_as_sure_as_its_least_sure_piece():
    [we, number] = join_pieces(
        [
            WhisperPiece(start=0.1, end=0.3, word=" We", probability=0.9),
            WhisperPiece(start=0.4, end=0.7, word=" 42", probability=0.8),
            WhisperPiece(start=0.7, end=1.2, word=",000", probability=0.6),
            WhisperPiece(start=1.2, end=1.3, word=".", probability=0.7),
        ]
    )
    assert we == (" We", 0.1, 0.3, 0.9)
    assert number == (" 42,000.", 0.4, 1.3, 0.6)


def test_whisper_segments_become_one_word_per_written_word():
    texts = (" We", " spent", " $42", ",000,", " which", " is", " 12", "%", " over", " plan.")
    segment = WhisperSegment(
        id=0, seek=0, start=0.0, end=2.0, text="".join(texts), tokens=[], avg_logprob=-0.2,
        compression_ratio=1.2, no_speech_prob=0.01, words=pieces(*texts), temperature=0.0,
    )  # fmt: skip
    [decoded] = segments_of([segment], offset=10.0)
    words = decoded.words
    assert [(w.text, w.written) for w in words] == [
        ("we", "We"),
        ("spent", "spent"),
        ("$42,000", "$42,000,"),
        ("which", "which"),
        ("is", "is"),
        ("12%", "12%"),
        ("over", "over"),
        ("plan", "plan."),
    ]
    assert (words[2].start, words[2].end) == (10.4, 10.8) and words[2].confidence == pytest.approx(0.87)
    assert not any(w.written.startswith((",", ".", "-", "%")) for w in words)


@pytest.mark.parametrize(
    "written, bare",
    [
        ("$42,000,", "$42,000"),
        ("12%", "12%"),
        ("%", "%"),
        ("&", "&"),
        ("3.5.", "3.5"),
        ("10:30", "10:30"),
        ("U.S.", "u.s."),
        ('"U.S.,"', "u.s."),
        ("e.g.,", "e.g."),
        ("Mr.", "mr"),
        ("built-in", "built-in"),
        ("-in", "in"),
        ("...", ""),
    ],
)
def test_the_bare_word_keeps_symbols_inner_marks_and_an_abbreviations_periods(written, bare):
    assert bare_word(written) == bare


@pytest.mark.parametrize(
    "written, mark, form",
    [
        ("42,000", "none", "42,000"),
        ("$42,000,", "comma", "$42,000"),
        ("3.5", "none", "3.5"),
        ("3.5.", "period", "3.5"),
        ("10:30", "none", "10:30"),
        ("10.30?", "question", "10.30"),
        ("12%", "none", "12%"),
        ("12%.", "period", "12%"),
        ("built-in", "none", "built-in"),
        ("U.S.", "none", "U.S."),
        ("U.S.,", "comma", "U.S."),
        ("e.g.", "none", "e.g."),
    ],
)
def test_only_a_mark_at_the_end_of_a_written_word_is_read_as_one(written, mark, form):
    got_mark, _, got_form = written_marks(Word(bare_word(written), written=written))
    assert (got_mark, got_form) == (mark, form)


def test_an_abbreviation_keeps_its_capitals_and_starts_no_sentence():
    words = [Word(bare_word(w), written=w) for w in ("U.S.", "Steel", "rose.", "Then", "it", "fell.")]
    assert [w.written for w in without_initial_capitals(words)] == [
        "U.S.",
        "Steel",
        "rose.",
        "then",
        "it",
        "fell.",
    ]
