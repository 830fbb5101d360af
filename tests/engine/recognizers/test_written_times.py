"""Whisper's clock times ("at 10.30", "at 745") written as a person writes them, where the words
around a number make it a time, and nowhere else; one word for one, live across finals."""

import pytest

from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.written_times import ClockTimes, clock_times
from engine.words import Word


def written(text: str) -> str:
    words = [Word(t.strip(".,").lower(), written=t) for t in text.split()]
    return " ".join(w.written for w in clock_times(words)[0])


@pytest.mark.parametrize(
    "heard,expected",
    [
        ("Let's meet at 10.30 in the small room.", "Let's meet at 10:30 in the small room."),
        ("The flight lands at 745 in the evening.", "The flight lands at 7:45 in the evening."),
        ("The bus comes at 1240 after lunch.", "The bus comes at 12:40 after lunch."),
        ("It ran until 11.15, at night.", "It ran until 11:15, at night."),
        ("Open from 9.30 to 10.45 daily.", "Open from 9:30 to 10:45 daily."),
        ("Open from 9 to 1030 daily.", "Open from 9 to 10:30 daily."),
        ("It opens 8.15 a.m. sharp.", "It opens 8:15 a.m. sharp."),
        ("Call me 10.30pm tonight.", "Call me 10:30pm tonight."),
    ],
)
def test_a_number_the_words_around_make_a_time_is_written_as_one(heard, expected):
    assert written(heard) == expected


@pytest.mark.parametrize(
    "heard",
    [
        "It rose 3.5 percent.",
        "We run version 10.30 now.",
        "It sold at 12.50 dollars each.",
        "It flew at 1500 feet.",
        "Priced at 100 today.",
        "It rose by 10.25 percent.",
        "We drove at 120 miles an hour.",
        "We meet at 10:30 today.",
        "Pages 10.30 to 11.45 are missing.",
        "There were 745 people.",
    ],
)
def test_numbers_that_are_no_time_stay_as_written(heard):
    assert written(heard) == heard


def test_live_the_words_before_come_from_earlier_finals_and_a_newer_writing_stays_a_time():
    step = ClockTimes()
    first = step(RecognizerUpdate(final=[Word("meet", written="meet"), Word("at", written="at")]))
    assert [w.text for w in first.final] == ["meet", "at"]
    update = step(
        RecognizerUpdate(
            partial=[Word("in", written="in")],
            final=[Word("10.30", 1.0, 1.4, 0.8, "10.30")],
        )
    )
    time = update.final[0]
    assert (time.text, time.written, time.start, time.end, time.confidence) == (
        "10:30",
        "10:30",
        1.0,
        1.4,
        0.8,
    )
    # a hypothesis after "at", committed words before it: "at" announces it
    assert step(RecognizerUpdate(partial=[Word("745", written="745")])).partial[0].text == "745"
    later = step(RecognizerUpdate(partial=[], rewritten={2: Word("10.30", written="10.30.")}))
    assert later.rewritten[2].written == "10:30."  # Whisper's newer mark, on the time
    fresh = ClockTimes()
    hypothesis = fresh(RecognizerUpdate(partial=[Word("at", written="at"), Word("745", written="745")]))
    assert [w.text for w in hypothesis.partial] == ["at", "7:45"]


def test_a_whisper_session_writes_clock_times_and_one_that_writes_spoken_forms_gets_its_step():
    from engine.recognizers.written_forms import spoken_to_written, written_updates

    class Heard:
        language, translating = "en", False

        def __init__(self, name):
            self.name = name

    assert isinstance(spoken_to_written(Heard("whisper")), ClockTimes)
    assert spoken_to_written(Heard("whisper")) is not spoken_to_written(Heard("whisper"))  # one per session
    assert spoken_to_written(Heard("pocketsphinx")) is written_updates
