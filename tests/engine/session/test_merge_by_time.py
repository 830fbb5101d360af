"""A meeting's sides merged into one stream (``SidesMerger``): two files read as fast as they
decode are ordered by their own timelines, a word held back never lets a silence end the sentence
before it, and a word the echo guard hides is said and kept.

Real parts: WAV files read by the file source, the session's sides on their threads, the merger,
the punctuation engine's thread and streaming decoder, the echo guard and the journal. Only the
recognizer and the punctuation model are scripted: what is under test is the order and timing of
what they hand on."""

import threading
from types import SimpleNamespace

import numpy as np
import soundfile as sf

from engine.audio.pausable import SourceChoice, open_source
from engine.events import Appended, Settled, WordsHidden
from engine.punctuation.engine_thread import PunctuationEngine
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers.base import RecognizerUpdate
from engine.recognizers.stabiliser import StabiliserOutput
from engine.session.live import LiveSession
from engine.session.meeting import meeting_sides
from engine.session.merge import SidesMerger
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.labels import ME, OTHERS
from engine.transcript.journal import JournalWriter, read_hidden_words, read_journal
from engine.words import Word
from tests.scripted import SURE, UNSURE, ScriptedScorer

RATE = 16_000


def timeline(text: str, start: float, step: float = 0.4) -> list[Word]:
    return [
        Word(w, round(start + k * step, 2), round(start + k * step + 0.3, 2))
        for k, w in enumerate(text.split())
    ]


class TimelineRecognizer:
    """Hears the words of a script at their times: each word is final once the audio has run 0.3 s
    past its end. The microphone's stream recognizes nothing until the others' stream
    (``another_stream``, hearing ``others``) has recognized its whole file: the others' words are
    all committed first, the order a merge by commit would show."""

    name = "scripted"
    sample_rate = RATE
    writes_marks = commits_words = revises_writing = multilingual = detects_language = translating = False
    language = model_path = decodes = None

    def __init__(self, words: list[Word], others: list[Word] | None = None):
        self.words, self.others = words, others
        self.wait_for: threading.Event | None = None
        self.flushed = threading.Event()
        self.samples, self.given, self.closed = 0, 0, False

    def another_stream(self) -> "TimelineRecognizer":
        stream = TimelineRecognizer(self.others or [])
        self.wait_for = stream.flushed
        return stream

    def reset(self) -> None:
        self.samples = self.given = 0

    def close(self) -> None:
        self.closed = True

    def accept(self, pcm) -> RecognizerUpdate:
        if self.wait_for is not None:
            self.wait_for.wait(30)
        self.samples += len(pcm)
        return self._update(self.samples / RATE - 0.3)

    def flush(self) -> RecognizerUpdate:
        update = self._update(float("inf"))
        self.flushed.set()
        return update

    def _update(self, through: float) -> RecognizerUpdate:
        ready = [w for w in self.words[self.given :] if w.end <= through]
        self.given += len(ready)
        return RecognizerUpdate(final=ready or None, heard_through=self.samples / RATE)


def silent_wav(path, seconds: float):
    sf.write(path, np.zeros(int(seconds * RATE), np.int16), RATE, subtype="PCM_16")
    return path


def marks_at_pauses_decoder() -> StreamingDecoder:
    """A decoder whose model writes a period only where a pause follows the word: a sentence ends
    where the speaker stopped, or where the side changes (``speaker_turns``)."""
    scorer = ScriptedScorer(lambda word, lookahead, pause: SURE["period"] if pause else UNSURE["none"])
    return StreamingDecoder(scorer, DecoderSettings(l_max=6, silence_gap=1.2, pause_threshold=0.6))


MINE_FIRST = timeline("we spent forty two thousand dollars", 0.5)  # 0.5 – 2.8 s
THEIRS = timeline("that is over the plan", 3.4)  # 3.4 – 5.3 s
MINE_NEXT = timeline("so we move it to march fifteenth", 6.0)  # 6.0 – 8.7 s
ECHO = Word("plan", 5.06, 5.36)  # the others' last word, heard again by the microphone


def test_two_files_are_merged_by_their_timelines_and_an_echo_is_hidden_but_kept(tmp_path):
    """The microphone's recognizer commits nothing until the others' file has been recognized to
    its end: by commit order all of the others' words would come first, and Me's two turns after
    them as one."""
    me = open_source(SourceChoice("file", str(silent_wav(tmp_path / "me.wav", 10))), realtime=False)
    others = open_source(SourceChoice("file", str(silent_wav(tmp_path / "others.wav", 10))), realtime=False)
    recognizer = TimelineRecognizer([*MINE_FIRST, ECHO, *MINE_NEXT], others=THEIRS)
    guard = EchoGuard()
    sides = meeting_sides(me, others, recognizer, guard=guard)
    assert all(side.runs_ahead for side in sides)
    journal = JournalWriter.create(tmp_path / "journal", header={"source": me.name})
    session = LiveSession(None, None, marks_at_pauses_decoder(), journal, sides=sides, echo_guard=guard)
    hidden = []
    session.subscribe(lambda events: hidden.extend(e for e in events if isinstance(e, WordsHidden)))
    session.start()
    assert session.wait(60)
    transcript = session.stop()

    said = [(w.heard.speaker, w.text) for w in transcript.words]
    expected = [(ME, w.text) for w in MINE_FIRST] + [(OTHERS, w.text) for w in THEIRS]
    expected += [(ME, w.text) for w in MINE_NEXT]
    assert said == expected
    # A sentence ends where a side's turn ends, and nowhere inside one.
    ends = [w.text for w in transcript.words if w.mark == "period"]
    assert ends == ["dollars", "plan", "fifteenth"], [w.display for w in transcript.words]
    # The echo was hidden: said once, and kept in the journal, marked, with its time.
    assert [(tuple(w.text for w in e.words), e.total) for e in hidden] == [(("plan",), 1)]
    kept = read_hidden_words(journal.path, reason="echo")
    assert [(w.text, w.start, w.speaker) for w in kept] == [("plan", 5.06, ME)]
    assert "plan" not in [
        w.text for w in read_journal(journal.path).transcript.words if w.heard.speaker == ME
    ]


def test_live_sides_keep_the_commit_order():
    # Sides read live (or paced) hear the same moment at once: nothing waits for the slower one.
    engine = PunctuationEngine(marks_at_pauses_decoder()).start()
    order = []
    engine.subscribe(lambda events: order.extend(e.word.text for e in events if isinstance(e, Appended)))
    merger = SidesMerger(engine, [ME, OTHERS], emit=lambda events: None)
    me, others = SimpleNamespace(index=0), SimpleNamespace(index=1)
    merger.deliver(others, StabiliserOutput(commit=timeline("late words", 4.0), committed_through=5.0), 5.0)
    merger.deliver(me, StabiliserOutput(commit=timeline("early", 1.0), committed_through=5.0), 5.0)
    assert engine.wait_idle(10)
    engine.stop()
    assert order == ["late", "words", "early"]


def test_a_word_held_for_the_guard_keeps_its_sentence_together():
    """Keep "…move it to March" and "15th" one sentence: the last word, whose end a recognizer
    stretched, waits for the guard, and the others' side running on must not let the pause
    before it end the sentence."""
    engine = PunctuationEngine(marks_at_pauses_decoder()).start()
    settled: dict[int, str] = {}
    appended: list[str] = []

    def record(events):
        for e in events:
            if isinstance(e, Appended):
                appended.append(e.word.text)
            elif isinstance(e, Settled):
                settled[e.position] = e.mark

    engine.subscribe(record)
    merger = SidesMerger(engine, [ME, OTHERS], emit=lambda events: None, guard=EchoGuard())
    me, others = SimpleNamespace(index=0), SimpleNamespace(index=1)
    words = [*timeline("move it to march", 19.4), Word("fifteenth", 21.1, 24.0)]
    merger.deliver(me, StabiliserOutput(commit=words, committed_through=23.0), 23.0)
    # The others heard on to 23.0 s, silent: "fifteenth" cannot be judged before they reach 24.5 s.
    merger.deliver(others, StabiliserOutput(committed_through=23.0), 23.0)
    assert engine.wait_idle(10)
    assert "march" in appended and "fifteenth" not in appended
    assert settled.get(appended.index("march")) != "period", settled
    merger.deliver(others, StabiliserOutput(committed_through=25.0), 25.0)
    merger.release_all()
    engine.stop()
    assert appended[-2:] == ["march", "fifteenth"]
    assert settled[len(appended) - 2] != "period", settled  # "…to march fifteenth", one sentence


def test_a_journal_whose_words_were_all_hidden_is_kept(tmp_path):
    journal = JournalWriter.create(tmp_path, header={"source": "microphone"})
    journal.record_hidden([Word("hello", 1.0, 1.4, speaker=ME)])
    journal.close()
    assert journal.path.exists()  # nothing shown, but a word the user may have said
    assert [w.text for w in read_hidden_words(journal.path)] == ["hello"]
    assert read_journal(journal.path).transcript.words == []
