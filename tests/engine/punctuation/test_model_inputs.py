import numpy as np
import pytest

from engine.punctuation.model_inputs import SpecialIds, build_sample, pad_batch, pauses_from_times
from engine.words import Word

SP = SpecialIds(cls=101, sep=102, pad=0, unk=100, punct=1, pause=2, drop=3)
# word j is tokenised into (1000 + j) repeated (j % 2 + 1) times: words of one or two tokens
WORDS = [tuple([1000 + j] * (j % 2 + 1)) for j in range(40)]


def test_punct_follows_the_word_then_lookahead():
    sample = build_sample(WORDS, position=4, lookahead=2, special=SP, window=64)
    assert sample[0] == SP.cls and sample[-1] == SP.sep
    k = sample.index(SP.punct)
    assert sample[k - 1] == 1004  # the word being punctuated sits just before [PUNCT]
    assert sample[k + 1 : -1] == [1005, 1005, 1006]  # exactly two lookahead words
    assert sample[1:k] == [t for j in range(5) for t in WORDS[j]]  # all left context fits


def test_lookahead_is_cut_at_the_end_of_the_stream():
    sample = build_sample(WORDS[:6], position=4, lookahead=4, special=SP, window=64)
    assert sample[sample.index(SP.punct) + 1 : -1] == [1005, 1005]


def test_left_truncation_keeps_the_window_size():
    sample = build_sample(WORDS, position=30, lookahead=3, special=SP, window=32)
    assert len(sample) == 32
    k = sample.index(SP.punct)
    assert sample[k - 1] == 1030 and sample[k + 1 : -1] == [1031, 1031, 1032, 1033, 1033]
    # the left side is the most recent context, cut from the left
    left = [t for j in range(31) for t in WORDS[j]]
    assert sample[1:k] == left[-(k - 1) :]


def test_short_stream_is_not_padded_by_builder():
    assert build_sample(WORDS, 0, 0, SP, window=32) == [SP.cls, 1000, SP.punct, SP.sep]


def test_long_lookahead_never_pushes_out_the_word():
    huge = [tuple(range(5000, 5040))] * 3
    sample = build_sample([(7,), *huge], 0, 2, SP, window=32)
    assert len(sample) <= 32 and sample[1] == 7 and sample[2] == SP.punct


def test_pause_tokens_follow_words_with_a_long_gap():
    words = [Word("a", 0.0, 0.2), Word("b", 0.3, 0.5), Word("c", 1.0, 1.2), Word("d", 1.25, 1.4)]
    pauses = pauses_from_times(words, 0.28)
    assert pauses == [False, True, False, False]  # gap b→c is 0.5 s; the last gap is unknown
    assert pauses_from_times(words, None) == [False] * 4
    assert pauses_from_times([Word("x"), Word("y")], 0.28) == [False, False]
    ids = [(10,), (11,), (12,), (13,)]
    sample = build_sample(ids, 1, 2, SP, pauses=pauses, window=32)
    assert sample == [SP.cls, 10, 11, SP.pause, SP.punct, 12, 13, SP.sep]


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
    assert tok.special.punct == 1 and tok.special.pause == 2


def _reference_build_sample(word_ids, position, lookahead, special, pauses=None, window=32):
    """The builder as first written, word by word: the fast one must give exactly the same samples."""
    budget = window - 2

    def with_pause(j):
        return list(word_ids[j]) + ([special.pause] if pauses is not None and pauses[j] else [])

    right = [special.punct]
    for j in range(position + 1, min(position + lookahead, len(word_ids) - 1) + 1):
        right.extend(with_pause(j))
    right = right[: max(1, budget // 2)]
    left, room, j = [], budget - len(right), position
    while j >= 0 and len(left) < room:
        left[:0] = with_pause(j)
        j -= 1
    return [special.cls, *left[-room:], *right, special.sep]


def test_builder_matches_the_reference_on_random_streams():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        n = int(rng.integers(1, 30))
        ids = [tuple(int(t) for t in rng.integers(1000, 2000, int(rng.integers(1, 6)))) for _ in range(n)]
        pauses = [bool(x) for x in rng.random(n) < 0.2] if rng.random() < 0.7 else None
        position, lookahead = int(rng.integers(0, n)), int(rng.integers(0, 6))
        window = int(rng.choice([4, 5, 8, 16, 32, 64]))
        assert build_sample(ids, position, lookahead, SP, pauses, window) == _reference_build_sample(
            ids, position, lookahead, SP, pauses, window
        )
