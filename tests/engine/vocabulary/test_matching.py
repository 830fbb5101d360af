"""Recognized words matched with the vocabulary by how they sound (real espeak-ng), and a file's
transcript with its terms (real PocketSphinx on espeak-ng speech)."""

import shutil

import pytest

from engine.evaluation.vocabulary_material import load_distractors
from engine.vocabulary import match_vocabulary, parse_vocabulary
from engine.words import Word

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")


def words(text: str, written: bool = False) -> list[Word]:
    """Words half a second apart, each 0.4 s long (``written``: as Whisper writes them)."""
    return [
        Word(
            w.lower(),
            round(0.5 * i, 2),
            round(0.5 * i + 0.4, 2),
            0.9 - i / 100,
            written=" " + w if written else "",
        )
        for i, w in enumerate(text.split())
    ]


def test_a_spoken_form_replaces_the_right_span_keeping_its_times():
    vocabulary = parse_vocabulary(
        ["PostgreSQL: post gres Q L, postgres", "Małgorzata Szczepańska: ma gosha shche pan ska"]
    )
    heard = words("we moved it to post gress q l, then ma gosha shche pan ska checked it.", written=True)
    matched = match_vocabulary(heard, vocabulary)
    texts = [w.text for w in matched.words]
    assert texts == "we moved it to PostgreSQL then Małgorzata Szczepańska checked it.".split()
    term = matched.words[4]
    assert (term.start, term.end) == (heard[4].start, heard[7].end)  # "post" .. "l,"
    assert term.confidence == min(w.confidence for w in heard[4:8])
    assert term.written == " PostgreSQL,"  # the comma the recognizer wrote after "l" stays
    first, last = matched.words[6], matched.words[7]
    assert first.start == heard[9].start and last.end == heard[13].end and first.end == last.start
    assert matched.forms == {4: "PostgreSQL", 6: "Małgorzata", 7: "Szczepańska"}


def test_words_that_sound_like_a_term_become_it():
    vocabulary = parse_vocabulary(["Grafana", "Kraków", "Siobhan"])
    matched = match_vocabulary(
        words("the graph on a dashboards in krakow show shiv on the numbers"), vocabulary
    )
    assert [w.text for w in matched.words][:5] == ["the", "Grafana", "dashboards", "in", "Kraków"]
    assert "Siobhan" in [w.text for w in matched.words]


def test_distractors_are_never_inserted_into_a_transcript_that_does_not_say_them():
    """500 entries (names, products, acronyms, places, medicines), and ordinary meeting talk with
    words that sound like some of them ("right" and Wright, "invoice" and Envoy, "data team" and
    Datadog, "opens at" and OpenSearch): nothing changes."""
    vocabulary = load_distractors().merged(parse_vocabulary(["Wright", "Tomas"]))
    talk = (
        "right so send the invoice to the data team before the office opens at nine and check the "
        "sales office numbers with the big room booked for the week run to mass the results "
        "we hired a new engineer the contractors will run the old queue on Monday"
    )
    heard = words(talk)
    matched = match_vocabulary(heard, vocabulary)
    assert [w.text for w in matched.words] == [w.text for w in heard]
    assert matched.matches == [] and matched.forms == {}


def test_an_acronym_is_written_from_its_letters_never_from_words_that_sound_like_them():
    """Whisper wrote "are two O" where a name was said: RTO sounds like it, and is not written;
    nor is IAM for "I am"; its letters, heard one by one or as one word, are."""
    vocabulary = parse_vocabulary(["RTO", "GDPR", "IAM", "GPU"])
    heard = words("and there are two O asked if I am sure about the G D P R rules", written=True)
    matched = match_vocabulary(heard, vocabulary)
    texts = [w.text for w in matched.words]
    assert texts == "and there are two o asked if i am sure about the GDPR rules".split()
    assert [m.entry.term for m in matched.matches] == ["GDPR"]
    assert match_vocabulary(words("a new GPU and IAM roles"), vocabulary).forms == {2: "GPU", 4: "IAM"}


def test_an_everyday_word_is_not_taken_for_a_name_by_its_letters():
    vocabulary = parse_vocabulary(["Mark", "Jenkins", "Mark Twain: mark twain"])
    matched = match_vocabulary(words("mark the jenkins build and read mark twain"), vocabulary)
    assert [w.text for w in matched.words] == [
        "mark",
        "the",
        "Jenkins",
        "build",
        "and",
        "read",
        "Mark",
        "Twain",
    ]


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_files_transcript_writes_the_term_in_its_form(tmp_path, tiny_model, monkeypatch):
    """``transcribe_file`` with a vocabulary: PocketSphinx's "going to" is the user's spoken form
    of "GoTo", which the transcript writes as the vocabulary does, over the two words' time."""
    from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
    from engine.session import batch
    from tests.speech import write_speech_wav

    recognized = []

    def seen(words, vocabulary):  # the real matching, its input kept
        recognized.extend(words)
        return match_vocabulary(words, vocabulary)

    monkeypatch.setattr(batch, "match_vocabulary", seen)
    wav = write_speech_wav(tmp_path / "one.wav", repeats=1)
    vocabulary = parse_vocabulary(["GoTo: going to"])
    termed = batch.transcribe_file(
        wav, PocketSphinxRecognizer(final_pass=True), tiny_model, vocabulary=vocabulary
    )
    heard = [w.text for w in recognized]
    assert "going" in heard and heard[heard.index("going") + 1] == "to", heard
    at = heard.index("going")
    term = termed.words[at]
    assert term.word == "GoTo" and term.text == "GoTo"
    assert (term.start, term.end) == (recognized[at].start, recognized[at + 1].end)
    assert [w.text for w in termed.words] == heard[:at] + ["GoTo"] + heard[at + 2 :]


def test_words_nearly_as_close_to_another_entry_are_written_as_heard():
    """A mangled name that sounds about as much like one entry as another ("Mero": Miro or
    Xero; "Melak sicken": Malak, or meloxicam over both words) was one of two terms: writing
    either may write one that was not said, so neither is written. A clear winner still is."""
    alone = match_vocabulary(words("we track every design in mero"), parse_vocabulary(["Miro"]))
    assert alone.words[-1].text == "Miro"
    both = match_vocabulary(words("we track every design in mero"), parse_vocabulary(["Miro", "Xero"]))
    assert [w.text for w in both.words] == "we track every design in mero".split()
    heard = words("the vet recommended melak sicken for the dog")
    assert "Malak" in [w.text for w in match_vocabulary(heard, parse_vocabulary(["Malak"])).words]
    rivals = match_vocabulary(heard, parse_vocabulary(["Malak", "meloxicam"]))
    assert rivals.matches == [] and rivals.words == heard
    clear = match_vocabulary(
        words("we moved the tables to postker"), parse_vocabulary(["PostgreSQL: postgres", "Postman"])
    )
    assert clear.words[-1].text == "PostgreSQL"
