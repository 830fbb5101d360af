"""Local agreement on scripted hypothesis sequences: what is committed never changes, and a tail
Whisper revises is never committed (so never typed), only shown and then taken off the display."""

from engine.events import Appended, Settled
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.local_agreement import LocalAgreement, bare_word
from engine.recognizers.stabiliser import WordStabiliser
from engine.words import Word


def hyp(text: str, start: float = 0.0, step: float = 0.3) -> list[Word]:
    """Whisper-like words with times, each ``step`` long, from ``start``."""
    out = []
    for i, written in enumerate(text.split()):
        t = start + i * step
        out.append(Word(bare_word(written), round(t, 3), round(t + step, 3), 0.9, written))
    return out


def test_bare_word_keeps_inner_marks_and_drops_the_outer_ones():
    assert bare_word(" Budget,") == "budget"
    assert bare_word('"Really?"') == "really"
    assert bare_word("don't") == "don't" and bare_word("3.5") == "3.5"
    assert bare_word("...") == ""


def test_only_what_two_hypotheses_agree_on_is_committed():
    agree = LocalAgreement()
    committed, tail = agree.agree(hyp("The cat sat."))
    assert committed == [] and [w.text for w in tail] == ["the", "cat", "sat"]
    committed, tail = agree.agree(hyp("The cat sat on the"))
    assert [w.text for w in committed] == ["the", "cat", "sat"]
    assert [w.text for w in tail] == ["on", "the"]
    # the newest writing is kept: "sat" was "sat." at the first buffer's end
    assert committed[-1].written == "sat"


def test_committed_words_never_change_whatever_the_later_hypotheses_say():
    sequence = [
        "The cat",
        "The cat sat on",
        "The cat sat on a mat.",
        "A cat sat on the mat, and",  # Whisper rewrites the committed start: ignored
        "The cat sat on the mat and then slept.",
        "The cat sat on the mat and then slept.",
    ]
    agree, all_committed, snapshots = LocalAgreement(), [], []
    for text in sequence:
        committed, _ = agree.agree(hyp(text))
        all_committed += committed
        snapshots.append([w.text for w in all_committed])
    for earlier, later in zip(snapshots, snapshots[1:]):
        assert later[: len(earlier)] == earlier  # only ever extended
    # the last word is the one still being heard: it waits for the end of the utterance
    assert snapshots[-1] == "the cat sat on the mat and then".split()
    assert [w.text for w in agree.finish()] == ["slept"]
    assert agree.finish() == []


def test_a_revised_tail_is_not_committed_until_it_agrees():
    agree = LocalAgreement()
    agree.agree(hyp("we will meet at"))
    committed, tail = agree.agree(hyp("we will meet at noon"))
    assert [w.text for w in committed] == ["we", "will", "meet", "at"]
    assert [w.text for w in tail] == ["noon"]
    committed, tail = agree.agree(hyp("we will meet at new york"))
    assert committed == [] and [w.text for w in tail] == ["new", "york"]
    committed, tail = agree.agree(hyp("we will meet at new york today"))
    assert [w.text for w in committed] == ["new", "york"]


def test_words_re_heard_at_a_buffer_start_are_not_committed_twice():
    agree = LocalAgreement()
    agree.agree(hyp("one two three four"))
    committed, _ = agree.agree(hyp("one two three four five"))
    assert [w.text for w in committed] == ["one", "two", "three", "four"]
    # the buffer was trimmed at 0.6 s: "three four" come again, their times shifted by 0.2 s
    agree.forget_before(0.6)
    later = []
    for text in ("three four five six", "three four five six seven"):
        later += agree.agree(hyp(text, start=0.8))[0]
    assert [w.text for w in later] == ["five", "six"]


def test_the_word_at_the_buffers_end_waits_even_when_two_decodes_agree_on_it():
    agree = LocalAgreement()
    agree.agree(hyp("we agreed to."))
    committed, tail = agree.agree(hyp("we agreed to."))  # a pause mid-sentence: the same twice
    assert [w.text for w in committed] == ["we", "agreed"] and [w.written for w in tail] == ["to."]
    committed, _ = agree.agree(hyp("we agreed to postpone it"))
    assert [w.written for w in committed] == ["to"]  # its mark came from the buffer's end: gone


def test_finish_commits_the_whole_last_hypothesis():
    agree = LocalAgreement()
    agree.agree(hyp("good morning every"))
    assert [w.text for w in agree.finish(hyp("good morning everyone."))] == ["good", "morning", "everyone"]
    assert agree.unconfirmed == []


def test_through_the_stabiliser_a_revised_tail_is_shown_then_withdrawn_and_never_settled():
    """What the session does with a recognizer that commits its own words: the tail is only
    ``unstable`` (the provisional display); it never reaches the decoder, so dictation, which
    types settled words only, never types it."""

    class Scripted:
        name = "whisper"
        commits_words = True

    agree = LocalAgreement()
    stabiliser = WordStabiliser.for_recognizer(Scripted())
    decoder = RecognizerMarksDecoder(DecoderSettings())
    displayed, settled = [], []
    for text in ("Meet me at", "Meet me at the station", "Meet me at the stadium", "Meet me at the stadium."):
        committed, tail = agree.agree(hyp(text))
        out = stabiliser.update(RecognizerUpdate(partial=tail, final=committed or None), now=3.0)
        assert out.retract == 0
        displayed.append([w.text for w in out.unstable])
        for event in decoder.push_many(out.commit):
            if isinstance(event, Settled):
                settled.append(event.form + ("." if event.mark == "period" else ""))
    out = stabiliser.update(RecognizerUpdate(partial=[], final=agree.finish()), now=4.0)
    displayed.append([w.text for w in out.unstable])
    for event in decoder.push_many(out.commit):
        if isinstance(event, Settled):
            settled.append(event.form + ("." if event.mark == "period" else ""))
    assert ["the", "station"] in displayed  # shown, provisional
    assert displayed[-1] == []  # and gone from the display
    assert "station" not in " ".join(settled).lower()
    assert settled == ["Meet", "me", "at", "the", "stadium."]
    assert stabiliser.retracted == 0


def test_the_stabiliser_commits_nothing_from_the_partials_of_such_a_recognizer():
    class Scripted:
        commits_words = True

    stabiliser = WordStabiliser.for_recognizer(Scripted(), agreement=1, max_age=0.01)
    for now in (1.0, 2.0, 3.0):
        out = stabiliser.update(RecognizerUpdate(partial=hyp("a b c")), now)
        assert out.commit == [] and [w.text for w in out.unstable] == ["a", "b", "c"]
    assert stabiliser.flush().commit == []  # the recognizer's own flush gives the final words


def test_written_marks_settle_at_once_with_the_recognizers_capitals():
    decoder = RecognizerMarksDecoder(DecoderSettings())
    events = decoder.push_many(hyp("where is it? in Paris, I think."))
    settled = [e for e in events if isinstance(e, Settled)]
    assert [(e.form, e.mark) for e in settled] == [
        ("Where", "none"), ("is", "none"), ("it", "question"), ("In", "none"),
        ("Paris", "comma"), ("I", "none"), ("think", "period"),
    ]  # fmt: skip
    assert all(e.lookahead_used == 0 for e in settled)
    assert settled[3].inner_form == "in"  # Whisper forgot the capital; inside a sentence it is "in"
    assert len([e for e in events if isinstance(e, Appended)]) == 7


def test_words_without_a_writing_of_their_own_pass_through_unmarked():
    decoder = RecognizerMarksDecoder(DecoderSettings())
    events = decoder.push_many([Word("안녕하세요", 0.0, 0.5), Word("감사합니다", 0.6, 1.0)])
    settled = [e for e in events if isinstance(e, Settled)]
    assert [(e.form, e.mark, e.case) for e in settled] == [
        ("안녕하세요", "none", "lower"),
        ("감사합니다", "none", "lower"),
    ]
    events = decoder.retract(1)
    assert decoder.word_count == 1 and any(type(e).__name__ == "Withdrawn" for e in events)


def test_two_of_three_commits_where_decodes_waver_and_two_in_a_row_waits():
    # Decodes of the same audio that waver: the second hears "bat", the third "cat" again.
    sequence = ["The cat sat", "The bat sat on", "The cat sat on the mat"]
    two = LocalAgreement()
    majority = LocalAgreement(two_of_three=True)
    for text in sequence[:-1]:
        two.agree(hyp(text))
        majority.agree(hyp(text))
    committed_two, _ = two.agree(hyp(sequence[-1]))
    committed_majority, _ = majority.agree(hyp(sequence[-1]))
    assert committed_two == []  # "the" went at the second decode; "bat" and "cat" disagree in a row
    # the third agrees with the first on "cat sat"; the last word still waits
    assert [w.text for w in committed_majority] == ["cat", "sat"]
    # what is committed never comes again, and the rule is kept across a reset
    committed, _ = majority.agree(hyp("The cat sat on the mat today"))
    assert [w.text for w in committed] == ["on", "the", "mat"]
    majority.reset()
    assert majority.two_of_three


def test_two_of_three_forgets_the_hypotheses_of_an_ended_utterance():
    majority = LocalAgreement(two_of_three=True)
    majority.agree(hyp("Stop here"))
    majority.finish(hyp("Stop here."))
    # a new utterance whose first decode happens to begin like the old one's commits nothing yet
    committed, _ = majority.agree(hyp("Stop now please", start=5.0))
    assert committed == []
