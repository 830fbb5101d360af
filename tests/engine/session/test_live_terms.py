"""The vocabulary's terms in live captions (``engine.session.terms``): committed words matched with
real espeak-ng phonemes before the punctuation engine; a term said across two batches, a word
already passed on that never changes, a retraction into a term, and a whole session (file source,
stabiliser, merger, streaming decoder on the tiny ONNX model, journal) writing the term's form."""

import shutil

import numpy as np
import pytest
import soundfile as sf

from engine.audio.file_source import FileSource
from engine.audio.pausable import SourceChoice
from engine.evaluation.vocabulary_material import load_distractors
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.stabiliser import StabiliserOutput
from engine.session.build import SessionSpec, build_live_session
from engine.session.live import LiveSession
from engine.session.resources import SessionResources
from engine.session.terms import LiveTerms, known_forms
from engine.transcript.journal import JournalWriter, read_journal
from engine.vocabulary import parse_vocabulary
from engine.vocabulary.matching import VocabularyMatcher
from engine.words import Word
from tests.scripted import ScriptedRecognizer

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

VOCABULARY = parse_vocabulary(["kubectl: cube control, cube cuttle", "PostgreSQL: post gres Q L, postgres"])


@pytest.fixture(scope="module")
def matcher():
    return VocabularyMatcher(VOCABULARY)


def timed(text: str, first: int = 0) -> list[Word]:
    return [Word(t, 0.4 * (first + i), 0.4 * (first + i) + 0.3) for i, t in enumerate(text.split())]


def commit(text: str, first: int = 0, **fields) -> StabiliserOutput:
    return StabiliserOutput(commit=timed(text, first), **fields)


def texts(out: StabiliserOutput) -> list[str]:
    return [w.text for w in out.commit]


def test_a_term_said_across_two_batches_goes_on_as_the_term(matcher):
    terms = LiveTerms(matcher)
    first = terms.update(commit("we ran cube", committed_through=1.2), now=1.2)
    assert texts(first) == ["we", "ran"]  # "cube" may begin "cube control": held
    assert [w.text for w in first.unstable] == ["cube"]  # shown as still being heard
    assert first.committed_through == pytest.approx(0.8)  # the clock stops before the held word
    second = terms.update(commit("control on the", 3, horizon=3), now=1.6)
    assert texts(second) == ["kubectl", "on", "the"]
    assert second.commit[0].start == pytest.approx(0.8) and second.commit[0].end == pytest.approx(1.5)
    assert second.horizon == 2  # "we ran cube" were final: the two words passed on for them
    assert second.retract == 0


def test_a_word_already_passed_on_is_never_changed(matcher):
    terms = LiveTerms(matcher, hold_seconds=0.5)
    terms.update(commit("we ran cube"), now=1.2)
    waited = terms.update(StabiliserOutput(), now=1.8)  # no more words for longer than a hold
    assert texts(waited) == ["cube"]
    later = terms.update(commit("control", 3), now=2.0)
    assert texts(later) == ["control"] and later.retract == 0 and not later.rewritten


def test_a_retraction_into_a_term_takes_the_term_back_and_matches_again(matcher):
    terms = LiveTerms(matcher)
    out = terms.update(commit("we use post gres", endpoint=False), now=2.0)
    assert texts(out) == ["we", "use", "PostgreSQL"]
    out = terms.update(StabiliserOutput(retract=1, commit=timed("grass today", 3)), now=2.4)
    assert out.retract == 1  # the term, which stood for "post gres"
    assert texts(out) == ["post", "grass", "today"]  # "post" passed on again, no term in it
    out = terms.update(StabiliserOutput(endpoint=True, horizon=5), now=2.8)
    assert out.horizon == 5 and not out.commit


def test_distractors_are_never_inserted_live():
    """500 entries never said, meeting talk committed two or three words at a time: every word
    goes on as it was heard."""
    terms = LiveTerms(VocabularyMatcher(load_distractors()))
    talk = (
        "right so the invoice from the data team opens at nine and we ship the release on "
        "friday after the review with marketing"
    ).split()
    passed, now = [], 0.0
    for at in range(0, len(talk), 3):
        now += 1.0
        passed += texts(terms.update(StabiliserOutput(commit=timed(" ".join(talk[at : at + 3]), at)), now))
    passed += texts(terms.update(StabiliserOutput(endpoint=True), now + 0.1))
    assert passed == talk


def silent_wav(path, seconds: float):
    sf.write(path, np.zeros(int(seconds * 16_000), np.int16), 16_000, subtype="PCM_16")
    return path


def test_a_live_session_writes_the_terms_in_the_transcript_and_the_journal(tmp_path, tiny_model):
    """Partials committed by the stabiliser a few words at a time, as from Vosk: "cube" is
    committed before "control" is heard. The term's form sets its case in the streaming decoder."""
    script = [
        (["we", "ran"], None),
        (["we", "ran", "cube"], None),
        (["we", "ran", "cube"], None),
        (["we", "ran", "cube", "control"], None),
        (["we", "ran", "cube", "control", "on"], None),
        (["we", "ran", "cube", "control", "on"], None),
        (None, "we ran cube control on postgres today".split()),
    ]
    script = [(p or [], f) for p, f in script]
    recognizer = ScriptedRecognizer(script)
    journal = JournalWriter.create(tmp_path / "journal", header={"recognizer": "scripted"})
    decoder = StreamingDecoder.from_model(tiny_model, known_forms=known_forms(VOCABULARY))
    source = FileSource(silent_wav(tmp_path / "silence.wav", 2.0), realtime=False)
    session = LiveSession(source, recognizer, decoder, journal, vocabulary=VOCABULARY)
    session.start()
    assert session.wait(30)
    transcript = session.stop()
    heard = [w.text for w in transcript.words]
    assert heard == ["we", "ran", "kubectl", "on", "PostgreSQL", "today"]
    shown = {w.text: w.word for w in transcript.words}
    assert shown["PostgreSQL"] == "PostgreSQL"  # never "Postgresql"
    assert shown["kubectl"] == "kubectl"
    assert [w.text for w in read_journal(journal.path).transcript.words] == heard
    assert session.builder.all_settled


def test_the_terms_forms_set_their_case_a_sentences_first_word_too():
    renderer = CaseRenderer(known_forms=known_forms(VOCABULARY))
    assert renderer.render("postgresql", "lower", "none") == ("capitalized", "PostgreSQL")
    assert renderer.render("kubectl", "capitalized", "period") == ("lower", "kubectl")
    assert renderer.render("kubectl", "capitalized", None) == ("lower", "kubectl")
    mark = CaseRenderer(known_forms=known_forms(parse_vocabulary(["Mark: mark"])))
    assert mark.render("mark", "lower", "none") == ("lower", "mark")  # every "mark" is not the name


def test_a_session_built_from_a_spec_with_a_vocabulary_writes_its_terms(tmp_path, tiny_model_dir):
    """The front ends' factory: the spec's vocabulary reaches the sides and the decoder's casing."""
    script = [(["cube", "cuttle", "is", "fine"], None), ([], "cube cuttle is fine".split())]
    resources = SessionResources(lambda kind, model: (ScriptedRecognizer(script), ""))
    spec = SessionSpec(
        source=SourceChoice("file", str(silent_wav(tmp_path / "silence.wav", 1.0))),
        realtime=False,
        recognizer="pocketsphinx",
        model_dir=tiny_model_dir,
        journal_dir=tmp_path / "journal",
        vocabulary=VOCABULARY,
    )
    session, _ = build_live_session(spec, resources)
    session.start()
    assert session.wait(30)
    transcript = session.stop()
    assert [w.word for w in transcript.words][:1] == ["kubectl"]  # its form, first in a sentence
    assert [w.text for w in read_journal(session.journal.path).transcript.words] == [
        "kubectl",
        "is",
        "fine",
    ]
