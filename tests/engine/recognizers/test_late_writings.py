"""A committed word's mark and capital settle later than the word: later hypotheses that hear more
after it rewrite them, until one has heard ``settle_after`` words past it; then nothing changes
them. Scripted Whisper-like hypotheses through ``LocalAgreement`` and the marks decoder, and the
live session carrying the rewrites to the engine thread."""

from engine.events import Provisional, Settled
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.local_agreement import LocalAgreement, bare_word, without_initial_capitals
from engine.words import Word


def hyp(text: str, start: float = 0.0, step: float = 0.3) -> list[Word]:
    out = []
    for i, written in enumerate(text.split()):
        t = start + i * step
        out.append(Word(bare_word(written), round(t, 3), round(t + step, 3), 0.9, written))
    return out


def run(agreement: LocalAgreement, texts: list[str]) -> tuple[list[Word], list]:
    """Every hypothesis agreed on in turn; (committed words with their newest writing, the
    ``Writings`` after each)."""
    committed, log = [], []
    for text in texts:
        new, _ = agreement.agree(hyp(text))
        committed += new
        writings = agreement.take_writings()
        for index, word in writings.rewritten.items():
            committed[index] = word
        log.append(writings)
    return committed, log


def test_a_mark_written_with_little_context_is_rewritten_by_a_later_hypothesis():
    # the buffer that commits "today" has heard one word past it, and ends a sentence there;
    # later decodes hear "before we start" and write a comma
    committed, log = run(
        LocalAgreement(settle_after=3),
        ["Thanks for the call today.", "Thanks for the call today. Before",
         "Thanks for the call today, before we", "Thanks for the call today, before we start"],
    )  # fmt: skip
    assert [w.written for w in committed[:5]] == ["Thanks", "for", "the", "call", "today,"]
    # settled in order, once three words past were heard: "today" only with "start" heard
    assert [w.settled for w in log] == [0, 3, 4, 5]


def test_a_settled_writing_never_changes_again():
    agreement = LocalAgreement(settle_after=1)
    committed, log = run(agreement, ["we met. Then", "we met. Then we", "we met, then we left"])
    assert committed[1].written == "met."  # settled at the second hypothesis; the third is ignored
    assert log[-1].settled >= 2 and 1 not in log[-1].rewritten


def test_the_end_of_the_utterance_and_a_trim_settle_every_writing():
    agreement = LocalAgreement(settle_after=5)
    run(agreement, ["one two three", "one two three four"])
    assert agreement.take_writings().settled == 0
    agreement.forget_before(0.6)  # "one" and "two" left the buffer: nothing will rewrite them
    assert agreement.take_writings().settled == 2
    agreement.finish(hyp("one two three four five."))
    assert agreement.take_writings().settled == agreement.committed_count == 5


def test_settle_after_zero_settles_on_commit_as_before():
    committed, log = run(LocalAgreement(settle_after=0), ["the cat sat.", "the cat sat on the"])
    assert log[-1].settled == 3 and log[-1].rewritten == {}
    assert committed[-1].written == "sat"


def test_sentence_initial_capitals_are_taken_off_and_names_kept():
    words = without_initial_capitals(
        hyp('Before we start, I think NASA and Paris agree. Good? "Yes," she said.')
    )
    assert [w.written for w in words] == [
        "before", "we", "start,", "I", "think", "NASA", "and", "Paris", "agree.",
        "good?", '"yes,"', "she", "said.",
    ]  # fmt: skip


# -- the marks decoder ---------------------------------------------------------------------------
def settled(events) -> dict[int, Settled]:
    return {e.position: e for e in events if isinstance(e, Settled)}


def test_marks_are_provisional_until_the_recognizer_settles_them_and_then_kept():
    decoder = RecognizerMarksDecoder(DecoderSettings(), settles_on_arrival=False)
    words = without_initial_capitals(hyp("thanks for the call today. Before"))
    events = decoder.push_many(words)
    assert not settled(events)
    assert [e.form for e in events if isinstance(e, Provisional)][-1] == "Before"  # after "today."
    # a later decode heard more: a comma after "today", so "before" goes on the sentence
    rewritten = {4: Word("today", 1.2, 1.5, 0.9, "today,")}
    events = decoder.revise_writings(rewritten, settled=5)
    shown = {e.position: (e.mark, e.form) for e in events if isinstance(e, Provisional)}
    assert shown[4] == ("comma", "today") and shown[5] == ("none", "before")
    assert [(e.position, e.mark) for e in settled(events).values()][-1] == (4, "comma")
    # position 4 is settled: a later writing of it changes nothing
    events = decoder.revise_writings({4: Word("today", 1.2, 1.5, 0.9, "today.")}, settled=5)
    assert events == []
    assert settled(decoder.flush())[5].form == "before"


def test_a_case_follows_the_mark_before_it_whichever_decode_wrote_each():
    decoder = RecognizerMarksDecoder(DecoderSettings())  # writings final on arrival
    # "today," from one decode, "Before" from a buffer that started there: no capital after a comma
    first = hyp("thanks for the call today,")
    second = without_initial_capitals(hyp("Before we start, Ana and I agree.", start=2.0))
    forms = [e.form for e in settled(decoder.push_many(first + second)).values()]
    assert forms == [
        "Thanks",
        "for",
        "the",
        "call",
        "today",
        "before",
        "we",
        "start",
        "Ana",
        "and",
        "I",
        "agree",
    ]


def test_no_sentence_initial_capital_without_an_end_mark_before_it():
    decoder = RecognizerMarksDecoder(DecoderSettings())
    words = without_initial_capitals(hyp("hear me clearly")) + without_initial_capitals(
        hyp("Last week we talked.", start=1.0)
    )
    forms = [e.form for e in settled(decoder.push_many(words)).values()]
    assert forms[3] == "last"


def test_a_recognizer_update_carries_rewrites_through_the_stabiliser():
    from engine.recognizers.stabiliser import WordStabiliser

    stabiliser = WordStabiliser(commit_partials=False)
    update = RecognizerUpdate(
        final=hyp("we met"), rewritten={0: Word("we", 0, 0.3, 0.9, "We")}, writings_settled=1
    )
    out = stabiliser.update(update, 1.0)
    assert out.rewritten == update.rewritten and out.writings_settled == 1
