"""A term learned while a session runs (``LiveTerms.learn``, ``LiveSession.learn``): it applies to
the words not passed on yet, never to settled ones; a session started without a vocabulary learns
one, its casing too; and the journal it writes is found by a history search for ``postgres*``, and
counted, in a real SQLite index."""

import shutil

import numpy as np
import pytest
import soundfile as sf

from engine.audio.file_source import FileSource
from engine.history import HistoryIndex
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.stabiliser import StabiliserOutput
from engine.session.live import LiveSession
from engine.session.terms import LiveTerms
from engine.transcript.journal import JournalWriter
from engine.vocabulary import Vocabulary, parse_vocabulary
from engine.vocabulary.matching import VocabularyMatcher
from engine.words import Word
from tests.scripted import ScriptedRecognizer

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

LEARNED = parse_vocabulary(["kubectl: cube control", "PostgreSQL: post gres, postgres"])


def commit(text: str, first: int = 0, **fields) -> StabiliserOutput:
    words = [Word(t, 0.4 * (first + i), 0.4 * (first + i) + 0.3) for i, t in enumerate(text.split())]
    return StabiliserOutput(commit=words, **fields)


def texts(out: StabiliserOutput) -> list[str]:
    return [w.text for w in out.commit]


def test_a_learned_term_applies_to_the_next_words_and_never_to_the_words_passed_on():
    terms = LiveTerms(VocabularyMatcher(Vocabulary()))
    first = terms.update(commit("we ran cube"), now=1.2)
    assert texts(first) == ["we", "ran", "cube"]  # no vocabulary: nothing is held
    terms.learn(VocabularyMatcher(LEARNED))  # the user adds kubectl from a caption
    later = terms.update(commit("control then cube control", 3, horizon=3), now=2.4)
    # "cube" went on before the term was known: it stays, and nothing is taken back or rewritten.
    assert texts(later) == ["control", "then", "kubectl"]
    assert later.retract == 0 and not later.rewritten
    assert later.horizon == 3  # the stabiliser's counts still line up after the swap
    out = terms.update(StabiliserOutput(retract=1, commit=commit("control", 7).commit), now=2.8)
    assert out.retract == 1 and texts(out) == ["kubectl"]  # a retraction into the term: whole


def test_a_session_started_without_a_vocabulary_learns_one_and_journals_its_form(tmp_path, tiny_model):
    """The session's sides and the decoder's casing take the vocabulary ``learn`` gives; the
    journal then holds "PostgreSQL", which the history finds by ``postgres*`` and counts."""
    wav = tmp_path / "silence.wav"
    sf.write(wav, np.zeros(32_000, np.int16), 16_000, subtype="PCM_16")
    script = [(["we", "use", "postgres"], None), ([], "we use postgres and post gres".split())]
    journal = JournalWriter.create(tmp_path / "journal", header={"recognizer": "scripted"})
    session = LiveSession(
        FileSource(wav, realtime=False),
        ScriptedRecognizer(script),
        StreamingDecoder.from_model(tiny_model),
        journal,
    )
    session.learn(LEARNED)  # before its first words: every word is "not passed on yet"
    session.start()
    assert session.wait(30)
    transcript = session.stop()
    assert [w.text for w in transcript.words] == ["we", "use", "PostgreSQL", "and", "PostgreSQL"]
    assert {w.word for w in transcript.words if w.text == "PostgreSQL"} == {"PostgreSQL"}  # its case
    with HistoryIndex.open(tmp_path / "history.sqlite3", tmp_path / "journal") as index:
        (hit,) = index.search("postgres*")
        assert [hit.snippet[a:b] for a, b in hit.spans] == ["PostgreSQL", "PostgreSQL"]
        counted = index.times_heard(["PostgreSQL", "kubectl", "post gres", "and PostgreSQL"])
        # A phrase of two words is one occurrence; the words the term replaced are not there.
        assert counted == {"PostgreSQL": 2, "kubectl": 0, "post gres": 0, "and PostgreSQL": 1}


class LearningRecognizer(ScriptedRecognizer):
    """A scripted recognizer that has the session learn ``vocabulary`` as its ``at``-th chunk comes
    (the user's right-click, between two of the side's batches)."""

    def __init__(self, script, at: int, learn):
        super().__init__(script)
        self.at, self.learn = at, learn

    def accept(self, pcm):
        if self.calls == self.at:
            self.learn()
        return super().accept(pcm)


def test_a_running_session_writes_a_term_learned_mid_way_only_in_the_words_after(tmp_path, tiny_model):
    wav = tmp_path / "silence.wav"
    sf.write(wav, np.zeros(32_000, np.int16), 16_000, subtype="PCM_16")
    script = [([], "we ran postgres".split()), ([], "then postgres again".split())]
    holder = {}
    recognizer = LearningRecognizer(script, 1, lambda: holder["session"].learn(LEARNED))
    session = LiveSession(
        FileSource(wav, realtime=False), recognizer, StreamingDecoder.from_model(tiny_model)
    )
    holder["session"] = session
    events = []
    session.subscribe(events.extend)
    session.start()
    assert session.wait(30)
    transcript = session.stop()
    # The first "postgres" was passed on before the term was known: it stays as it was.
    assert [w.text for w in transcript.words] == ["we", "ran", "postgres", "then", "PostgreSQL", "again"]
    assert transcript.words[4].word == "PostgreSQL"
    assert not [e for e in events if type(e).__name__ in ("Retracted", "Withdrawn")]
