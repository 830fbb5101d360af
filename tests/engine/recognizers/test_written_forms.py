"""Written forms for the recognizers that write spoken forms (Vosk, PocketSphinx): "forty two
thousand dollars" is "$42,000", with the times of the words it was said in, on the file path and
through the live stabiliser; what a person writes in words stays words."""

import numpy as np
import pytest

from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.kinds import POCKETSPHINX, VOSK, WHISPER, WHISPER_BASE
from engine.recognizers.stabiliser import WordStabiliser
from engine.recognizers.written_forms import spoken_to_written, written_forms, written_updates
from engine.words import Word


def timed(text: str, confidence: float = 0.9) -> list[Word]:
    """``text``'s words, each 0.4 s long with 0.1 s between them."""
    return [
        Word(t, round(i * 0.5, 2), round(i * 0.5 + 0.4, 2), confidence) for i, t in enumerate(text.split())
    ]


def written(text: str) -> str:
    return " ".join(w.text for w in written_forms(timed(text)))


@pytest.mark.parametrize(
    "said, expected",
    [
        ("we spent forty two thousand dollars in the third quarter", "we spent $42,000 in the third quarter"),
        ("which is twelve percent over plan", "which is 12% over plan"),
        ("let's meet at ten thirty", "let's meet at 10:30"),
        ("the store opens at eight a m", "the store opens at 8 a.m."),
        ("the store opens at eight am", "the store opens at 8 a.m."),  # PocketSphinx's "am"
        ("it starts at nine o five", "it starts at 9:05"),
        ("it cost four dollars and fifty cents", "it cost $4.50"),
        ("the project needs three point five million dollars", "the project needs $3.5 million"),
        ("her fortieth birthday", "her 40th birthday"),
        ("the report is due on march fifteenth", "the report is due on march 15th"),
        ("it was founded in nineteen ninety nine", "it was founded in 1999"),
        ("call five five five one two three four", "call 555-1234"),
        ("version two point three point one", "version 2.3.1"),
        ("between eight and twelve people", "between 8 and 12 people"),
        ("rates rose twenty to thirty percent", "rates rose 20 to 30%"),
        ("the population is forty two million", "the population is 42 million"),
        ("a hundred and twenty people", "120 people"),
        ("we hired fourteen people", "we hired 14 people"),
    ],
)
def test_spoken_numbers_come_out_as_a_person_writes_them(said, expected):
    assert written(said) == expected


@pytest.mark.parametrize(
    "said",
    [
        "one of them was late again",
        "a hundred people were there",
        "we need three more chairs",
        "this is my third time here",
        "bring five or six copies",
        "the first of may",
        "the weather is nice today",
    ],
)
def test_what_a_person_writes_in_words_stays_words(said):
    words = timed(said)
    assert written_forms(words) == words  # the very same words, times and all


def test_a_merged_word_spans_its_words_times_with_their_least_confidence():
    words = timed("we spent forty two thousand dollars today")
    words[3] = Word("two", words[3].start, words[3].end, 0.4)
    out = written_forms(words)
    assert [w.text for w in out] == ["we", "spent", "$42,000", "today"]
    money = out[2]
    assert (money.start, money.end) == (words[2].start, words[5].end) == (1.0, 2.9)
    assert money.confidence == 0.4 and money.written == ""
    assert out[0] is words[0] and out[3] is words[6]  # the words around it untouched


def test_kinds_declare_who_writes_spoken_forms():
    assert VOSK.writes_spoken_forms and POCKETSPHINX.writes_spoken_forms
    assert not WHISPER.writes_spoken_forms and not WHISPER_BASE.writes_spoken_forms


class Declared:
    """A recognizer as ``spoken_to_written`` reads it: its kind's name and its language."""

    def __init__(self, name: str, language: str | None):
        self.name, self.language = name, language


def test_the_step_runs_where_the_kind_says_so_and_the_language_is_english():
    update = RecognizerUpdate(timed("at ten thirty"), timed("twelve percent"))
    for name, language in (("pocketsphinx", "en-us"), ("vosk", "en"), ("vosk", None)):
        out = spoken_to_written(Declared(name, language))(update)
        assert [w.text for w in out.partial] == ["at", "10:30"] and [w.text for w in out.final] == ["12%"]
    for name, language in (("vosk", "ko"), ("vosk", "fr")):
        assert spoken_to_written(Declared(name, language))(update) is update
    # Whisper writes written forms: only its own clock times are rewritten, never spoken words
    whisper = spoken_to_written(Declared("whisper", None))(update)
    assert [w.text for w in whisper.partial] == ["at", "ten", "thirty"]
    assert [w.text for w in whisper.final] == ["twelve", "percent"]


def test_an_update_without_a_final_keeps_none():
    out = written_updates(RecognizerUpdate(timed("forty two"), None, heard_through=3.0))
    assert [w.text for w in out.partial] == ["42"] and out.final is None and out.heard_through == 3.0


def test_live_the_stabiliser_commits_the_written_form_and_no_frozen_word_changes():
    """Vosk's hypothesis grows word by word, then its final comes: the committed words are the
    final's written forms, and a word the stabiliser froze is never taken back."""
    said = "so we spent forty two thousand dollars in the third quarter which is twelve percent over plan"
    words = timed(said)
    stabiliser, committed, frozen = WordStabiliser(), [], []
    for n in range(1, len(words) + 1):
        for _ in range(2):  # each hypothesis stands for two partials, as Vosk's do between words
            update = written_updates(RecognizerUpdate(words[:n], None))
            out = stabiliser.update(update, now=words[n - 1].end)
            assert out.retract <= len(committed) - len(frozen), "a frozen word was taken back"
            del committed[len(committed) - out.retract :]
            committed += [w.text for w in out.commit]
            frozen = committed[: out.horizon]
    out = stabiliser.update(written_updates(RecognizerUpdate([], words)), now=words[-1].end + 0.5)
    del committed[len(committed) - out.retract :]
    committed += [w.text for w in out.commit]
    assert committed == written(said).split()
    assert "$42,000" in committed and "12%" in committed


@pytest.mark.slow
def test_pocketsphinx_writes_money_and_percentages_as_a_person_does():
    """The real built-in recognizer on Piper's speech, through the file path's recognition."""
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
    from engine.session.batch import recognize_audio
    from tests.speech import piper

    pad = np.zeros(8000, np.int16)
    said = piper("We spent forty two thousand dollars. It rose twelve percent.", steady=True)
    audio = np.concatenate([pad, said, pad])
    words = recognize_audio(audio, PocketSphinxRecognizer(final_pass=True))
    texts = [w.text for w in words]
    assert "$42,000" in texts and "12%" in texts, texts
    money = words[texts.index("$42,000")]
    assert money.end - money.start > 1.0  # the four words' span, not one word's
