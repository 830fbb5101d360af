"""WordStabiliser on scripted partial/final sequences in the shapes Vosk and PocketSphinx produce."""

import random

import pytest

from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.stabiliser import StabiliserOutput, WordStabiliser
from engine.words import Word


def words(text: str, start: float = 0.0, step: float = 0.3, conf: float = 1.0) -> list[Word]:
    return [
        Word(w, round(start + i * step, 3), round(start + i * step + 0.25, 3), conf)
        for i, w in enumerate(text.split())
    ]


def texts(ws: list[Word]) -> list[str]:
    return [w.text for w in ws]


class Sink:
    """What the punctuation engine would hold: applies retract-then-commit."""

    def __init__(self):
        self.words: list[Word] = []

    def apply(self, out: StabiliserOutput) -> StabiliserOutput:
        assert out.retract <= len(self.words)
        if out.retract:
            del self.words[-out.retract :]
        self.words += out.commit
        return out


def feed(
    stab: WordStabiliser,
    sink: Sink,
    partial: str = "",
    final: str | None = None,
    now: float = 0.0,
    final_conf: float = 0.9,
) -> StabiliserOutput:
    update = RecognizerUpdate(words(partial), None if final is None else words(final, conf=final_conf))
    return sink.apply(stab.update(update, now))


# -- commit rules ---------------------------------------------------------------------------
def test_vosk_growing_partials_commit_after_agreement_but_never_the_last_word():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0), Sink()
    out = feed(stab, sink, "the", now=0.1)
    assert out.commit == [] and texts(out.unstable) == ["the"]
    out = feed(stab, sink, "the", now=0.2)
    assert out.commit == []  # agreed twice, but it is still the last word
    out = feed(stab, sink, "the cat", now=0.3)
    assert texts(out.commit) == ["the"] and texts(out.unstable) == ["cat"]
    out = feed(stab, sink, "the cat sat", now=0.4)
    assert texts(out.commit) == ["cat"] and texts(out.unstable) == ["sat"]
    out = feed(stab, sink, "the cat sat on", now=0.5)
    assert texts(out.commit) == ["sat"]
    assert texts(sink.words) == ["the", "cat", "sat"]


def test_a_changing_word_is_not_committed_until_it_settles():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0), Sink()
    feed(stab, sink, "i scream", now=0.1)
    out = feed(stab, sink, "ice cream for", now=0.2)  # Vosk rewrote both words
    assert out.commit == []
    out = feed(stab, sink, "ice cream for all", now=0.3)
    assert texts(out.commit) == ["ice", "cream", "for"]


def test_agreement_one_commits_every_word_but_the_last():
    stab, sink = WordStabiliser(agreement=1, max_age=10.0), Sink()
    out = feed(stab, sink, "one two three", now=0.1)
    assert texts(out.commit) == ["one", "two"] and texts(out.unstable) == ["three"]


def test_max_age_commits_a_lingering_last_word():
    stab, sink = WordStabiliser(agreement=2, max_age=1.0), Sink()
    feed(stab, sink, "hello", now=0.0)
    assert feed(stab, sink, "hello", now=0.5).commit == []
    assert feed(stab, sink, "hello", now=0.99).commit == []
    out = feed(stab, sink, "hello", now=1.0)  # the speaker paused: captions must not hang
    assert texts(out.commit) == ["hello"] and out.unstable == []
    # The age counts from when the word took its current form, not from the first partial.
    feed(stab, sink, "hello word", now=1.1)
    feed(stab, sink, "hello world", now=1.5)
    assert feed(stab, sink, "hello world", now=2.4).commit == []
    assert texts(feed(stab, sink, "hello world", now=2.5).commit) == ["world"]


def test_max_age_alone_does_not_skip_an_unstable_earlier_word():
    stab, sink = WordStabiliser(agreement=3, max_age=1.0), Sink()
    feed(stab, sink, "a b", now=0.0)
    feed(stab, sink, "x b", now=0.9)  # word 0 changed; word 1 is old
    out = feed(stab, sink, "x b c", now=1.2)
    assert out.commit == []  # commits stay a prefix: "b" waits for "x"


# -- finals win -------------------------------------------------------------------------------
def test_final_corrects_a_committed_word_with_the_right_retraction():
    stab, sink = WordStabiliser(), Sink()
    feed(stab, sink, "recognise speech", now=0.1)
    feed(stab, sink, "recognise speech with a", now=0.2)
    feed(stab, sink, "recognise speech with a nice", now=0.3)
    assert texts(sink.words) == ["recognise", "speech", "with", "a"]
    out = feed(stab, sink, final="recognise speech with ice cream", now=0.6, final_conf=0.8)
    assert out.retract == 1 and texts(out.commit) == ["ice", "cream"] and out.endpoint
    assert texts(sink.words) == ["recognise", "speech", "with", "ice", "cream"]
    assert all(w.confidence == 0.8 for w in out.commit)  # the final's words carry the final's scores
    assert stab.retracted == 1 and stab.committed == 6
    assert stab.retraction_rate == pytest.approx(1 / 6)


def test_final_that_only_moves_times_retracts_nothing():
    stab, sink = WordStabiliser(), Sink()
    feed(stab, sink, "good morning everyone", now=0.1)
    feed(stab, sink, "good morning everyone", now=0.2)
    assert texts(sink.words) == ["good", "morning"]
    final = [
        Word("good", 0.02, 0.3, 0.95),
        Word("morning", 0.31, 0.7, 0.9),
        Word("everyone", 0.72, 1.2, 0.85),
    ]
    out = sink.apply(stab.update(RecognizerUpdate([], final), 1.5))
    assert out.retract == 0 and out.commit == [final[2]]


def test_shorter_final_retracts_the_surplus():
    stab, sink = WordStabiliser(agreement=1), Sink()
    feed(stab, sink, "it is a test of", now=0.1)
    assert texts(sink.words) == ["it", "is", "a", "test"]
    out = feed(stab, sink, final="it is attest", now=0.5)
    assert out.retract == 2 and texts(out.commit) == ["attest"]
    assert texts(sink.words) == ["it", "is", "attest"]


def test_empty_final_withdraws_the_utterance():
    stab, sink = WordStabiliser(agreement=1), Sink()
    feed(stab, sink, "um uh hmm", now=0.1)
    out = feed(stab, sink, final="", now=0.5)
    assert out.retract == 2 and out.commit == [] and sink.words == []


def test_retraction_never_reaches_past_the_previous_final():
    stab, sink = WordStabiliser(agreement=1), Sink()
    feed(stab, sink, final="first sentence", now=1.0)
    feed(stab, sink, "second one here", now=1.5)
    out = feed(stab, sink, final="totally different", now=2.0)
    assert out.retract == 2  # "second one"; the first utterance is final
    assert texts(sink.words) == ["first", "sentence", "totally", "different"]


def test_final_and_next_partial_in_one_update():
    stab, sink = WordStabiliser(agreement=1), Sink()
    feed(stab, sink, "last words of one", now=0.1)
    final = words("last words off it")
    out = sink.apply(stab.update(RecognizerUpdate(words("next utterance begins"), final), 0.5))
    # The retraction concerns the old utterance only; the new one's words follow it.
    assert out.retract == 1 and texts(out.commit) == ["off", "it", "next", "utterance"]
    assert texts(out.unstable) == ["begins"]


# -- partials that shrink or rewrite what is committed ------------------------------------------
def test_shrinking_partial_keeps_committed_words_until_the_final_decides():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0), Sink()
    feed(stab, sink, "this is a test", now=0.1)
    feed(stab, sink, "this is a test", now=0.2)
    assert texts(sink.words) == ["this", "is", "a"]
    out = feed(stab, sink, "this is", now=0.3)  # the recognizer backed off
    assert out.retract == 0 and out.commit == [] and out.unstable == []
    out = feed(stab, sink, "this", now=0.4)
    assert out.retract == 0
    out = feed(stab, sink, final="this is a test", now=0.8)
    assert out.retract == 0 and texts(out.commit) == ["test"]


def test_a_settled_rewrite_of_a_committed_word_is_retracted_before_the_final():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0, rewrite_agreement=2), Sink()
    feed(stab, sink, "the whether is", now=0.1)
    feed(stab, sink, "the whether is", now=0.2)
    assert texts(sink.words) == ["the", "whether"]
    assert feed(stab, sink, "the weather is nice", now=0.3).retract == 0  # seen once: could be noise
    out = feed(stab, sink, "the weather is nice", now=0.4)
    assert out.retract == 1 and texts(out.commit) == ["weather", "is"]
    assert texts(sink.words) == ["the", "weather", "is"]


def test_a_rewrite_must_hold_for_rewrite_agreement_partials_before_retracting():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0, rewrite_agreement=4), Sink()
    feed(stab, sink, "the whether is", now=0.1)
    feed(stab, sink, "the whether is", now=0.2)
    assert texts(sink.words) == ["the", "whether"]
    for _i, now in enumerate((0.3, 0.4, 0.5)):  # seen 1, 2, 3 times: not yet
        out = feed(stab, sink, "the weather is nice", now=now)
        assert out.retract == 0 and out.commit == []  # nothing new either: it would sit on a doubtful word
        assert texts(out.unstable) == ["is", "nice"]
    out = feed(stab, sink, "the weather is nice", now=0.6)
    assert out.retract == 1 and texts(out.commit) == ["weather", "is"]
    assert texts(sink.words) == ["the", "weather", "is"]


def test_a_word_that_flips_back_costs_no_retraction():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0, rewrite_agreement=3), Sink()
    feed(stab, sink, "when old it", now=0.1)
    feed(stab, sink, "when old it", now=0.2)
    assert texts(sink.words) == ["when", "old"]
    feed(stab, sink, "well old it is", now=0.3)
    feed(stab, sink, "well old it is", now=0.4)  # twice: enough for a new word, not for a rewrite
    assert feed(stab, sink, "when old it is a", now=0.5).retract == 0  # back: "when" agrees once
    out = feed(stab, sink, "when old it is a", now=0.6)
    assert out.retract == 0 and texts(out.commit) == ["it", "is"]
    assert stab.retracted == 0 and texts(sink.words) == ["when", "old", "it", "is"]


def test_a_rewrite_that_lasts_max_age_is_confirmed_however_few_the_partials():
    stab, sink = WordStabiliser(agreement=1, max_age=1.0, rewrite_agreement=10), Sink()
    feed(stab, sink, "a b c", now=0.5)
    assert texts(sink.words) == ["a", "b"]
    assert feed(stab, sink, "a x c", now=1.0).retract == 0
    out = feed(stab, sink, "a x c", now=2.0)  # big chunks: two partials, one second apart
    assert out.retract == 1 and texts(sink.words) == ["a", "x", "c"]


def test_pocketsphinx_hypothesis_strings_that_jump_around():
    """PocketSphinx's hyp() is re-searched every call: words come and go, then end_utt's best path."""
    hyps = [
        "the",
        "the law to",
        "wow",
        "well",
        "when old",
        "when old",
        "well the",
        "when old it is",
        "well you see that",
        "when old it is a two",
        "well you see that as",
        "when old it is a test on",
        "when old it is a test on",
        "when old it is a test on look",
        "when old it is a test on look up",
    ]
    # Without freezing (an effectively infinite freeze_after) the final wins everywhere.
    stab, sink = WordStabiliser(agreement=2, max_age=1.0, freeze_after=1000), Sink()
    for i, hyp in enumerate(hyps):
        feed(stab, sink, hyp, now=0.1 * (i + 1))
    final = "well it it you got to stop that shopping system"
    feed(stab, sink, final=final, now=3.5)
    assert texts(sink.words) == final.split()
    assert stab.committed - stab.retracted == len(final.split())
    # By default, words with five committed words after them are frozen: the final replaces only
    # what follows them, index for index, and nothing before the horizon is ever taken back.
    stab, sink = WordStabiliser(agreement=2, max_age=1.0), Sink()
    horizon = 0
    for i, hyp in enumerate(hyps):
        out = feed(stab, sink, hyp, now=0.1 * (i + 1))
        assert len(sink.words) - len(out.commit) >= horizon  # no retraction below the horizon
        horizon = max(horizon, out.horizon)
    frozen = texts(sink.words)[:horizon]
    out = feed(stab, sink, final=final, now=3.5)
    assert horizon == 3 and frozen == ["when", "old", "it"]
    assert texts(sink.words) == frozen + final.split()[3:] and out.horizon == len(sink.words)


def test_flush_commits_the_pending_hypothesis():
    stab, sink = WordStabiliser(), Sink()
    feed(stab, sink, "no final", now=0.1)
    feed(stab, sink, "no final came", now=0.2)
    assert texts(sink.words) == ["no", "final"]
    out = sink.apply(stab.flush())
    assert texts(out.commit) == ["came"] and out.endpoint
    assert texts(sink.words) == ["no", "final", "came"]
    assert sink.apply(stab.flush()).commit == []


# -- the invariant -------------------------------------------------------------------------------
def _noisy_partials(rng: random.Random, target: list[str], vocab: list[str]) -> list[list[str]]:
    """Partials that grow towards ``target``.

    They rewrite, drop and invent words as recognizers do."""
    partials, shown = [], []
    for n in range(1, len(target) + 1):
        for _ in range(rng.randint(1, 3)):
            shown = list(target[:n])
            for i in range(len(shown)):
                if rng.random() < (0.5 if i >= n - 2 else 0.08):  # recent words are the unsure ones
                    shown[i] = rng.choice(vocab)
            if rng.random() < 0.1:
                shown = shown[: rng.randint(0, len(shown))]  # the partial shrinks
            if rng.random() < 0.1:
                shown.append(rng.choice(vocab))
            partials.append(shown)
    return partials


@pytest.mark.parametrize("seed", range(8))
def test_committed_minus_retracted_equals_the_finals_exactly(seed):
    rng = random.Random(seed)
    vocab = [
        "the",
        "a",
        "of",
        "to",
        "and",
        "in",
        "is",
        "it",
        "that",
        "we",
        "you",
        "this",
        "was",
        "for",
        "on",
        "are",
        "with",
        "as",
        "be",
        "at",
    ]
    stab = WordStabiliser(
        agreement=rng.choice([1, 2, 3]),
        max_age=rng.choice([0.3, 1.0]),
        rewrite_agreement=rng.choice([1, 2, 4]),
        freeze_after=1000,  # the final wins everywhere: what this test checks
    )
    sink = Sink()
    finals: list[str] = []
    now = 0.0
    for _ in range(12):  # utterances
        target = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        for partial in _noisy_partials(rng, target, vocab):
            now += 0.1
            out = sink.apply(stab.update(RecognizerUpdate([Word(w, now, now + 0.1) for w in partial]), now))
            assert not out.endpoint
        now += 0.5
        sink.apply(stab.update(RecognizerUpdate([], [Word(w, now, now + 0.1, 0.7) for w in target]), now))
        finals += target
        assert texts(sink.words) == finals  # after every final: nothing lost, nothing duplicated
    assert stab.committed - stab.retracted == len(finals)
    assert 0.0 <= stab.retraction_rate <= 1.0


@pytest.mark.parametrize("seed", range(8))
def test_nothing_behind_the_horizon_is_ever_taken_back_and_every_utterance_ends_final(seed):
    rng = random.Random(seed)
    vocab = ["the", "a", "of", "to", "and", "in", "is", "it", "that", "we", "you", "this", "was"]
    stab = WordStabiliser(
        agreement=rng.choice([1, 2]), rewrite_agreement=rng.choice([1, 2, 4]), freeze_after=rng.choice([2, 5])
    )
    sink, horizon, now = Sink(), 0, 0.0
    for _ in range(12):
        target = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        for partial in _noisy_partials(rng, target, vocab):
            now += 0.1
            before = len(sink.words)
            out = sink.apply(stab.update(RecognizerUpdate([Word(w, now, now + 0.1) for w in partial]), now))
            assert before - out.retract >= horizon  # retractions stop at the horizon
            assert horizon <= out.horizon <= len(sink.words)
            horizon = out.horizon
        now += 0.5
        before = len(sink.words)
        final = [Word(w, now, now + 0.1, 0.7) for w in target]
        out = sink.apply(stab.update(RecognizerUpdate([], final), now))
        assert before - out.retract >= horizon and out.endpoint
        assert out.horizon == len(sink.words)  # an utterance's end makes all of it final
        horizon = out.horizon
    assert stab.committed - stab.retracted == len(sink.words)


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError):
        WordStabiliser(agreement=0)
    with pytest.raises(ValueError):
        WordStabiliser(max_age=0)
    with pytest.raises(ValueError):
        WordStabiliser(freeze_after=0)
    assert WordStabiliser(agreement=3, rewrite_agreement=1).rewrite_agreement == 3  # never below agreement


# -- how far the words are all committed ---------------------------------------------------------
def test_committed_through_stops_at_the_first_word_not_yet_committed():
    from engine.recognizers.stabiliser import committed_through

    assert committed_through(words("sat on", start=2.0), 9.0, now=9.0) == 2.0
    assert committed_through([], 9.0, now=9.0) == 9.0  # nothing pending: all it heard
    assert committed_through([], 12.0, now=9.0) == 9.0  # never past the stream


def test_a_recognizer_that_cannot_say_how_far_it_heard_is_taken_to_lag():
    from engine.recognizers.stabiliser import COMMIT_LAG, committed_through

    assert committed_through([], None, now=9.0) == pytest.approx(9.0 - COMMIT_LAG)
    assert committed_through([Word("um", None, None)], 9.0, now=9.0) == 0.0  # an untimed word pending


def test_the_stabiliser_reports_the_time_its_uncommitted_words_begin():
    stab, sink = WordStabiliser(agreement=2, max_age=10.0), Sink()
    update = RecognizerUpdate(words("the cat sat", start=1.0), None, heard_through=2.5)
    out = sink.apply(stab.update(update, 2.5))
    assert out.committed_through == 1.0  # nothing committed yet: the hypothesis starts at 1.0
    out = sink.apply(
        stab.update(RecognizerUpdate(words("the cat sat on", start=1.0), None, heard_through=2.8), 2.8)
    )
    assert texts(sink.words) == ["the", "cat", "sat"] and out.committed_through == pytest.approx(1.9)  # "on"
    out = sink.apply(
        stab.update(RecognizerUpdate([], words("the cat sat on", start=1.0), heard_through=4.0), 4.0)
    )
    assert out.committed_through == 4.0  # the utterance ended: everything heard is committed
