"""``repunctuate`` keeps every settled mark: the offline decoder (the tiny ONNX model) fills only
the words that never settled. The settled marks here are chosen to differ from the decoder's own
choice at every word, so a pass that re-decided any of them would show."""

from engine.events import Appended, Provisional, Settled, Withdrawn
from engine.session.batch import repunctuate
from engine.transcript.builder import TranscriptBuilder
from engine.words import SENTENCE_END_MARKS, Word

TEXT = "so we start can you hear me at the back or shall i speak up a little more for you all"
OTHER_MARK = {"none": "comma", "comma": "period", "period": "question", "question": "none"}


def timed_words() -> list[Word]:
    return [Word(t, k * 0.4, k * 0.4 + 0.3) for k, t in enumerate(TEXT.split())]


def contrary(word, ends_sentence=False) -> tuple[str, str, str]:
    """(mark, case, form) the decoder did not choose for ``word``: another mark (one that ends a
    sentence, if asked), the other capital."""
    mark = OTHER_MARK[word.mark]
    if ends_sentence:
        mark = "question" if word.mark == "period" else "period"
    case = "lower" if word.case != "lower" else "capitalized"
    form = word.text.lower() if case == "lower" else word.text.capitalize()
    return mark, case, form


def live_transcript(words, decided, settled_count):
    """What a live session's builder holds: the first ``settled_count`` words settled with marks
    the offline decoder would not choose, the rest provisional."""
    builder = TranscriptBuilder()
    events = [Appended(p, w) for p, w in enumerate(words)]
    for p, d in enumerate(decided.words):
        mark, case, form = contrary(d, ends_sentence=p == settled_count - 1)
        kind = Settled if p < settled_count else Provisional
        events.append(kind(p, mark, case, 1, form) if kind is Settled else kind(p, mark, case, 0.5, form))
    builder.apply(events)
    return builder


def test_every_settled_mark_and_capital_survives_and_only_the_rest_is_filled(tiny_model):
    words = timed_words()
    decided = repunctuate(words, tiny_model)  # the decoder's own choice at every word
    k = 12
    builder = live_transcript(words, decided, k)
    live = [(w.mark, w.case, w.form) for w in builder.words]

    result = repunctuate(builder.words, tiny_model)

    assert [w.text for w in result.words] == [w.text for w in words]
    assert [(w.mark, w.case, w.form) for w in result.words[:k]] == live[:k]  # exactly as settled
    # The rest is the decoder's, reading the whole text: its marks where nothing had settled...
    assert [w.mark for w in result.words[k:]] == [w.mark for w in decided.words[k:]]
    assert result.words[-1].mark in SENTENCE_END_MARKS  # the end of the session ends a sentence
    # ...each capitalised after the mark that really stands before it: here a settled sentence end.
    assert live[k - 1][0] in SENTENCE_END_MARKS and result.words[k].word[0].isupper()
    assert [(w.start, w.end) for w in result.words] == [(w.start, w.end) for w in words]


def test_when_every_mark_settled_the_decoder_does_not_run_and_changes_nothing(tiny_model):
    words = timed_words()
    builder = live_transcript(words, repunctuate(words, tiny_model), len(words))
    before = [(w.text, w.mark, w.case, w.form, w.start, w.end) for w in builder.words]
    # No model at all: a pass over settled words has nothing to ask it.
    result = repunctuate(builder.words, None)
    assert [(w.text, w.mark, w.case, w.form, w.start, w.end) for w in result.words] == before


def test_a_withdrawn_word_is_no_longer_settled(tiny_model):
    words = timed_words()
    builder = live_transcript(words, repunctuate(words, tiny_model), len(words))
    builder.apply([Withdrawn(len(words) - 1)])
    assert [w.settled for w in builder.words] == [True] * (len(words) - 1) + [False]
    assert builder.transcript.copy().words[-2].settled and not builder.transcript.copy().words[-1].settled


def test_a_month_beside_its_day_is_capitalised_in_the_words_filled_after_settled_ones():
    # "march" is a month only beside a day: the filled words are cased with their neighbours.
    from engine.punctuation.model import PunctuationModel, model_folder

    model = PunctuationModel(model_folder(None), threads=1)  # the shipped model, which writes "march"
    words = [Word(t, k * 0.4, k * 0.4 + 0.3) for k, t in enumerate("ok so we move it to march 15th".split())]
    decided = repunctuate(words, model)
    builder = live_transcript(words, decided, 2)  # "ok so" settled, the rest never did
    result = repunctuate(builder.words, model)
    assert result.words[6].word == "March", [w.word for w in result.words]
