import numpy as np
import pytest

from engine.punctuation.model_inputs import SpecialIds, build_window, pad_batch, pauses_from_times
from engine.words import Word

SP = SpecialIds(cls=101, sep=102, pad=0, unk=100, pause=2, drop=3)
# word j is tokenised into (1000 + j) repeated (j % 2 + 1) times: words of one or two tokens
WORDS = [tuple([1000 + j] * (j % 2 + 1)) for j in range(40)]


def test_window_ends_at_the_word_with_all_left_context_that_fits():
    w = build_window(WORDS, end=4, special=SP, window=64)
    assert w.ids[0] == SP.cls and w.ids[-1] == SP.sep
    assert w.ids[1:-1] == [t for j in range(5) for t in WORDS[j]]  # nothing after word 4
    assert w.first == 0 and w.end == 4
    # each word's carrier is its last piece
    assert [w.ids[c] for c in w.carriers] == [1000 + j for j in range(5)]
    assert w.carriers == [1, 3, 4, 6, 7]


def test_left_truncation_is_at_a_word_boundary():
    w = build_window(WORDS, end=30, special=SP, window=32)
    assert len(w.ids) <= 32 and w.end == 30
    assert w.ids[1:-1] == [t for j in range(w.first, 31) for t in WORDS[j]]  # whole words only
    # one more word would not have fitted
    assert len(w.ids) + len(WORDS[w.first - 1]) > 32


def test_short_stream_is_not_padded_by_builder():
    w = build_window(WORDS, 0, SP, window=32)
    assert w.ids == [SP.cls, 1000, SP.sep] and w.carriers == [1]


def test_a_word_longer_than_the_window_keeps_its_first_pieces():
    huge = [(7,), tuple(range(5000, 5040))]
    w = build_window(huge, 1, SP, window=32)
    assert len(w.ids) == 32 and w.first == 1 and w.ids[1:-1] == list(range(5000, 5030))
    assert w.carriers == [30]


def test_pause_tokens_follow_words_with_a_long_gap():
    words = [Word("a", 0.0, 0.2), Word("b", 0.3, 0.5), Word("c", 1.0, 1.2), Word("d", 1.25, 1.4)]
    pauses = pauses_from_times(words, 0.28)
    assert pauses == [False, True, False, False]  # gap b→c is 0.5 s; the last gap is unknown
    assert pauses_from_times(words, None) == [False] * 4
    assert pauses_from_times([Word("x"), Word("y")], 0.28) == [False, False]
    ids = [(10,), (11,), (12,), (13,)]
    w = build_window(ids, 3, SP, pauses=pauses, window=32)
    assert w.ids == [SP.cls, 10, 11, SP.pause, 12, 13, SP.sep]
    assert w.carriers == [1, 2, 4, 5]  # the word, never its [PAUSE], carries its answer


def test_pad_batch():
    ids, mask = pad_batch([[101, 5, 102], [101, 5, 6, 7, 102]], pad_id=0)
    assert ids.dtype == np.int64 and mask.dtype == np.int64 and ids.shape == (2, 5)
    assert ids[0].tolist() == [101, 5, 102, 0, 0] and mask[0].tolist() == [1, 1, 1, 0, 0]
    assert mask[1].tolist() == [1] * 5
    with pytest.raises(ValueError):
        pad_batch([], 0)


def test_real_tokenizer_lowercases_and_caches(tiny_model):
    tok = tiny_model.tokenizer
    assert tok.encode_word("Hello") == tok.encode_word("hello")
    assert len(tok.encode_word("xylophone")) > 1  # WordPiece splits unknown words
    assert tok.special.pause == 2 and tok.special.drop == 3


def _reference_build_window(word_ids, end, special, pauses=None, window=32):
    """The builder written the slow, obvious way: add whole words from the right while they fit."""
    pieces = [
        list(word_ids[j]) + ([special.pause] if pauses is not None and pauses[j] else [])
        for j in range(end + 1)
    ]
    first, size = end, len(pieces[end])
    if size > window - 2:
        return [special.cls, *pieces[end][: window - 2], special.sep], end
    while first > 0 and size + len(pieces[first - 1]) <= window - 2:
        first -= 1
        size += len(pieces[first])
    return [special.cls, *[t for p in pieces[first:] for t in p], special.sep], first


def test_builder_matches_the_reference_on_random_streams():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        n = int(rng.integers(1, 30))
        ids = [tuple(int(t) for t in rng.integers(1000, 2000, int(rng.integers(1, 6)))) for _ in range(n)]
        pauses = [bool(x) for x in rng.random(n) < 0.2] if rng.random() < 0.7 else None
        end = int(rng.integers(0, n))
        window = int(rng.choice([3, 5, 8, 16, 32, 64]))
        built = build_window(ids, end, SP, pauses, window)
        expected_ids, expected_first = _reference_build_window(ids, end, SP, pauses, window)
        assert (built.ids, built.first) == (expected_ids, expected_first)
        assert len(built.carriers) == end - built.first + 1
        assert all(built.ids[c] not in (SP.pause, SP.cls, SP.sep) for c in built.carriers)
