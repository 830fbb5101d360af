"""The engine's caption fold (engine/transcript/caption_fold.py): a session's events folded into
caption lines with speaker labels, settled and provisional marks and each side's unstable words,
the same for the app's feed and the terminal; settled labels never change."""

from engine.events import (
    Appended,
    AudioLevel,
    PartialWords,
    Provisional,
    Retracted,
    Settled,
    SpeakersLabelled,
    Withdrawn,
)
from engine.speakers.labels import SpeakerNames
from engine.transcript.caption_fold import PROVISIONAL, SETTLED, UNSTABLE, CaptionFold, first_changed
from engine.words import Word

ME, ANA = "me", "others:2"  # a second voice: named "Others 2"


def heard(p: int, text: str, speaker: str = "") -> Appended:
    return Appended(p, Word(text, p * 0.4, p * 0.4 + 0.3, speaker=speaker))


def test_a_meeting_folds_into_labelled_lines_with_settled_provisional_and_unstable_words():
    fold = CaptionFold()
    fold.apply([heard(0, "are", ME), heard(1, "we", ME), Settled(0, "none", "capitalized", 1, "Are")])
    fold.apply([Provisional(1, "question", "lower", 0.6, "we"), heard(2, "yes", "others")])
    fold.apply([PartialWords((Word("and", 1.4, 1.6),), ME), AudioLevel(0.3, ME)])  # a level: not captions
    fold.apply([SpeakersLabelled(((2, ANA),), settled_through=0)])
    lines = fold.lines()
    assert [(line.speaker, [(w.text, w.state) for w in line.words]) for line in lines] == [
        (ME, [("Are", SETTLED), ("we?", PROVISIONAL)]),
        (ANA, [("yes", PROVISIONAL)]),
        (ME, [("and", UNSTABLE)]),
    ]
    assert fold.text(SpeakerNames()) == "Me: Are we?\nOthers 2: yes\nMe: and"


def test_a_settled_mark_and_a_settled_label_never_change():
    fold = CaptionFold()
    fold.apply(
        [heard(0, "hi", ME), heard(1, "there", "others"), Settled(0, "period", "capitalized", 1, "Hi")]
    )
    fold.apply([SpeakersLabelled(((1, ANA),), settled_through=2)])
    fold.apply([SpeakersLabelled(((1, "others:3"),), settled_through=2)])  # too late: label settled
    assert fold.words[0].display == "Hi." and fold.settled[0]
    assert fold.words[1].speaker == ANA and [line.speaker for line in fold.lines()] == [ME, ANA]
    fold.apply([Withdrawn(0)])  # only a withdrawn word loses its settled mark
    assert not fold.settled[0]


def test_each_change_says_where_the_drawing_differs_from():
    fold = CaptionFold()
    change = fold.apply([heard(0, "one"), heard(1, "two"), heard(2, "tree")])
    assert change.first == 0 and change.retracted is None and change.changed
    change = fold.apply([Retracted(2), heard(2, "three"), Settled(0, "none", "lower", 1, "one")])
    assert (change.first, change.retracted) == (0, 2)
    assert fold.apply([PartialWords((Word("four"),))]).first is None  # only the unstable words
    assert not fold.apply([PartialWords((Word("four"),))]).changed  # the same again: nothing
    assert first_changed([AudioLevel(0.1), SpeakersLabelled(((1, ANA), (0, ANA)), 0)]) == 0
    assert fold.restart().restarted and fold.words == [] and fold.unstable == ()


def test_a_sides_unstable_words_replace_only_its_own_and_stale_ones_go_when_its_words_commit():
    fold = CaptionFold()
    fold.apply([PartialWords((Word("hi", 0.0, 0.3), Word("there", 0.4, 0.7)), "others")])
    fold.apply([PartialWords((Word("so", 1.0, 1.2),), ME)])
    assert [(w.text, w.speaker) for w in fold.unstable] == [("hi", "others"), ("there", "others"), ("so", ME)]
    fold.apply([heard(0, "hi", ANA)])  # the others commit "hi": their stale unstable "hi" goes
    assert [w.text for w in fold.unstable] == ["there", "so"]
