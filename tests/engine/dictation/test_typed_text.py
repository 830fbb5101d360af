"""What dictation types, from a scripted stream of engine events (engine/dictation/typed_text.py)."""

import pytest

from engine.dictation.typed_text import DictationText, PressKey, TypedTail, TypeText
from engine.events import Appended, Finalized, Provisional, Retracted, Settled, Withdrawn
from engine.words import Word


class Stream:
    """Engine events as the session publishes them: words appended, then provisional, then
    settled with the decoder's sentence capitals, and the recognizer's utterance ends."""

    def __init__(self, start: int = 0):
        self.next = start
        self.texts: dict[int, str] = {}

    def words(self, spoken: str) -> list:
        events = []
        for text in spoken.split():
            events.append(Appended(self.next, Word(text.rstrip(",.?"))))
            self.texts[self.next] = text
            self.next += 1
        return events

    def settle(self, first: int, last: int) -> list:
        events = []
        for p in range(first, last + 1):
            raw = self.texts[p]
            mark = {",": "comma", ".": "period", "?": "question"}.get(raw[-1], "none")
            word = raw.rstrip(",.?")
            previous = self.texts.get(p - 1, ".")
            starts = p == 0 or previous[-1] in ".?"
            form = word[:1].upper() + word[1:] if starts or word == "i" else word
            events.append(Provisional(p, mark, "lower", 0.9, word))
            inner = word if form != word and word != "i" else ""
            events.append(Settled(p, mark, "capitalized" if starts else "lower", 1, form, 1.0, inner))
        return events


def typed(keystrokes) -> str:
    out = ""
    for k in keystrokes:
        if isinstance(k, TypeText):
            out += k.text
        elif k.key == "Return":
            out += "\n" * k.count
        else:
            out = out[: len(out) - k.count]
    return out


def test_only_settled_words_of_an_ended_utterance_are_typed_with_marks_spaces_and_capitals():
    s, d = Stream(), DictationText()
    assert d.apply(s.words("hello, world. how are you?")) == []  # nothing settled
    assert d.apply(s.settle(0, 3)) == []  # settled, but the recognizer may still take them back
    keys = d.apply([Finalized(5)])
    assert typed(keys) == "Hello, world. How are"  # "you" is not settled yet: never provisional text
    keys += d.apply(s.settle(4, 4))
    assert typed(keys) == "Hello, world. How are you?"
    assert all(not k.text.startswith(" ") for k in keys[:1]) and d.words_typed == 5
    keys += d.apply(s.words("fine thanks.") + s.settle(5, 6) + [Finalized(7)])
    assert typed(keys) == "Hello, world. How are you? Fine thanks."


def test_words_the_recognizer_replaced_are_never_typed():
    s, d = Stream(), DictationText()
    keys = d.apply(s.words("we wreck a nice") + s.settle(0, 2))
    # the recognizer changes its mind about the last three words before the utterance ends
    keys += d.apply([Withdrawn(1), Withdrawn(2), Retracted(1)])
    s.next = 1
    keys += d.apply(s.words("recognize speech.") + s.settle(1, 2) + [Finalized(3)])
    assert typed(keys) == "We recognize speech."
    assert "wreck" not in typed(keys) and "nice" not in typed(keys)


def test_nothing_already_typed_is_retyped_when_events_repeat():
    s, d = Stream(), DictationText()
    events = s.words("one two.") + s.settle(0, 1) + [Finalized(2)]
    first = d.apply(events)
    again = d.apply(s.settle(0, 1) + [Finalized(2)])  # a late duplicate of what was typed
    assert typed(first) == "One two." and again == []


def test_the_end_mark_the_session_ends_on_follows_the_last_word_typed():
    s, d = Stream(), DictationText()
    keys = d.apply(s.words("it works") + s.settle(0, 1) + [Finalized(2)])
    assert typed(keys) == "It works"
    # Stop: the decoder's finish settles the last word once more, with the sentence's end
    keys += d.apply([Settled(1, "period", "lower", 1, "works", 1.0, "")])
    assert typed(keys) == "It works."
    # only a mark the last word typed lacked, and only while it is the last thing typed
    late = d.apply([Settled(1, "question", "lower", 1, "works", 1.0, "")])
    s2, d2 = Stream(), DictationText()
    keys2 = d2.apply(s2.words("one two") + s2.settle(0, 1) + [Finalized(2)])
    keys2 += d2.apply([Settled(0, "period", "capitalized", 1, "One", 1.0, "one")])
    assert late == [] and typed(keys2) == "One two"


@pytest.mark.parametrize(
    ("spoken", "commands", "expected"),
    [
        ("dear sam, new line thanks for the call.", {"new line"}, "Dear sam,\nthanks for the call."),
        ("first part. new paragraph. second part.", {"new paragraph"}, "First part.\n\nSecond part."),
        ("keep this. drop this one, scratch that and this.", {"scratch that"}, "Keep this. and this."),
        ("keep this. new line scratch that", {"new line", "scratch that"}, "Keep this.\n"),
        ("dear sam new line", set(), "Dear sam new line"),  # commands are off by default
    ],
)
def test_spoken_commands_when_switched_on(spoken, commands, expected):
    s, d = Stream(), DictationText(commands)
    events = s.words(spoken)
    keys = d.apply(events + s.settle(0, s.next - 1) + [Finalized(s.next)])
    assert typed(keys) == expected


def test_scratch_that_removes_only_what_was_typed_last():
    s, d = Stream(), DictationText({"scratch that"})
    keys = d.apply(s.words("one. two three.") + s.settle(0, 2) + [Finalized(3)])
    keys += d.apply(s.words("scratch that") + s.settle(3, 4) + [Finalized(5)])
    assert [k for k in keys if isinstance(k, PressKey)] == [PressKey("BackSpace", len(" Two three."))]
    assert typed(keys) == "One."
    keys += d.apply(s.words("scratch that") + s.settle(5, 6) + [Finalized(7)])
    assert typed(keys) == ""  # the first sentence, typed at the line's start, had no leading space
    keys += d.apply(s.words("scratch that") + s.settle(7, 8) + [Finalized(9)])
    assert typed(keys) == "" and keys[-1] == PressKey("BackSpace", len("One."))  # nothing more to remove


def test_a_focus_change_mid_sentence_drops_the_rest_and_resumes_at_the_next_sentence():
    s, d = Stream(), DictationText()
    a = d.apply(s.words("first one here.") + s.settle(0, 2) + [Finalized(3)], focus="A")
    assert typed(a) == "First one here."
    a += d.apply(s.words("second") + s.settle(3, 3) + [Finalized(4)], focus="A")
    b = d.apply(s.words("sentence goes on.") + s.settle(4, 6) + [Finalized(7)], focus="B")
    assert b == []  # the focus moved mid-sentence: the rest of it is not typed anywhere
    b += d.apply(s.words("third one.") + s.settle(7, 8) + [Finalized(9)], focus="B")
    assert typed(a) == "First one here. Second" and typed(b) == "Third one."  # no stray space in B


def test_livecaps_own_window_is_never_typed_into():
    s, d = Stream(), DictationText(own_windows={"LIVECAP"})
    own = d.apply(s.words("not here.") + s.settle(0, 1) + [Finalized(2)], focus="LIVECAP")
    other = d.apply(s.words("but here.") + s.settle(2, 3) + [Finalized(4)], focus="EDITOR")
    assert own == [] and typed(other) == "But here."


def test_switched_on_mid_session_it_types_from_the_next_word_said():
    s = Stream()
    s.words("said before.")  # appended before dictation was switched on
    d = DictationText()
    keys = d.apply(s.words("now this.") + s.settle(0, 3) + [Finalized(4)])
    assert typed(keys) == "Now this."


def test_unknown_commands_are_refused():
    with pytest.raises(ValueError, match="unknown spoken command"):
        DictationText({"delete everything"})


def test_resuming_after_a_pause_mid_sentence_types_a_space_and_no_sentence_capital():
    """Paused after "toxicological", resumed: the first word after the pause is separated by a
    space and, the user's sentence going on, takes no capital that only starts a sentence."""
    s, before = Stream(), DictationText()
    keys = before.apply(s.words("the report was toxicological") + s.settle(0, 3) + [Finalized(4)], "editor")
    assert typed(keys) == "The report was toxicological"
    s.words("so it said.")  # said while paused: never typed, and the decoder ended a sentence there
    s.settle(4, 6)
    after = DictationText(resume=before.tail)
    keys = after.apply(s.words("you often iqbal.") + s.settle(7, 9) + [Finalized(10)], "editor")
    assert typed(keys) == " you often iqbal."


def test_resuming_after_a_typed_sentence_end_capitalises_and_spaces():
    s, before = Stream(), DictationText()
    before.apply(s.words("look for it.") + s.settle(0, 2) + [Finalized(3)], "editor")
    after = DictationText(resume=before.tail)
    s.words("and then")  # settled lowercase mid-sentence by the decoder
    s.settle(3, 4)
    s.texts[2] = "it"  # the decoder took the full stop for a comma: "and" is not capitalised
    keys = after.apply(s.words("more words.") + s.settle(5, 6) + [Finalized(7)], "editor")
    assert typed(keys) == " More words."


def test_resuming_in_another_window_or_after_a_new_line_starts_afresh():
    s, before = Stream(), DictationText(commands=["new line"])
    before.apply(s.words("one two") + s.settle(0, 1) + [Finalized(2)], "editor")
    elsewhere = DictationText(resume=before.tail)
    other = Stream(start=10)
    keys = elsewhere.apply(other.words("three.") + other.settle(10, 10) + [Finalized(11)], "terminal")
    assert typed(keys) == "Three."  # another window: its own start, no space before it
    keys = before.apply(s.words("new line") + s.settle(2, 3) + [Finalized(4)], "editor")
    assert keys == [PressKey("Return", 1)]
    assert before.tail == TypedTail("editor", "One two\n")
    after = DictationText(resume=before.tail)
    keys = after.apply(s.words("four.") + s.settle(4, 4) + [Finalized(5)], "editor")
    assert typed(keys) == "four."  # after the line break: no space; mid-sentence: no capital


def test_resuming_where_the_desktop_cannot_name_the_window_still_continues_the_sentence():
    """Wayland: the focus is unknown (None) before and after the pause; it is the same field."""
    s, before = Stream(), DictationText()
    keys = before.apply(s.words("look for it") + s.settle(0, 2) + [Finalized(3)], None)
    assert typed(keys) == "Look for it"
    after = DictationText(resume=before.tail)
    keys = after.apply(s.words("now.") + s.settle(3, 3) + [Finalized(4)], None)
    assert typed(keys) == " now."


def test_in_a_meeting_only_my_words_are_typed():
    from dataclasses import replace

    s, d = Stream(), DictationText()
    mine = s.words("please send the notes.")
    theirs = [Appended(e.position, replace(e.word, speaker="others:1")) for e in s.words("sure, tomorrow.")]
    more = s.words("thank you.")
    events = mine + theirs + more + s.settle(0, s.next - 1) + [Finalized(s.next)]
    assert typed(d.apply(events)) == "Please send the notes. Thank you."
    assert d.words_typed == 6
