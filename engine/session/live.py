"""A live captioning session: source → recognizer thread → stabiliser → engine thread → sinks.

Two threads do the work. The recognizer thread reads audio chunks, feeds the
recognizer, turns its partials and finals into committed words (the
stabiliser) and hands those to the punctuation engine, whose own thread
decides marks and publishes the decoder's events. A meeting has one recognizer
thread per side (``engine.session.side``), and their words merge into the one
stream the engine punctuates (``engine.session.merge``), each carrying its
speaker. Subscribers get both kinds
of event lists: the engine's (``Appended``, ``Provisional``, ``Settled``,
``Withdrawn``, ``Retracted``, ``Finalized``, ``EngineFailed``) on the engine thread, and the
session's own (``PartialWords``, ``AudioLevel``, ``SourceNotice``, ``InputHint``) on the
recognizer thread. A subscriber that draws must therefore take its own lock
(or, in a GUI, hop to its UI thread).

Nothing here grows with the length of a session except the transcript itself
(``TranscriptBuilder``, a few hundred bytes a word): the stabiliser forgets an
utterance at its final, the decoder trims settled words, the journal writer
keeps only unsettled ones, and the queues are bounded.

The batch path (a whole file, or re-punctuating a finished transcript) is ``engine.session.batch``.
"""

from __future__ import annotations

import logging
import threading

from engine.audio.base import AudioError
from engine.events import SourceNotice
from engine.fanout import FanOut, Subscriber
from engine.punctuation.decoder import Decoder
from engine.punctuation.engine_thread import PunctuationEngine
from engine.recognizers.base import Recognizer
from engine.recognizers.stabiliser import WordStabiliser
from engine.session.merge import SidesMerger
from engine.session.side import DRAIN_CHUNKS, READ_TIMEOUT, SessionSide, rms_level
from engine.session.terms import LiveTerms, known_forms
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.voices import OthersVoices
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.journal import JournalWriter
from engine.transcript.transcript import Transcript
from engine.vocabulary import Vocabulary
from engine.vocabulary.matching import VocabularyMatcher
from engine.vocabulary.word_list import WordList

__all__ = ["DRAIN_CHUNKS", "READ_TIMEOUT", "LiveSession", "meeting_stabiliser", "rms_level"]

log = logging.getLogger(__name__)


def meeting_stabiliser() -> WordStabiliser:
    """A meeting side's stabiliser: it commits only words its recognizer will never take back
    (``SidesMerger``): a recognizer's own commitments, or another's finals."""
    return WordStabiliser(commit_partials=False)


# ---- the live session ----------------------------------------------------------------------
class LiveSession:
    """``source`` and ``recognizer`` make a one-source session; ``sides`` (``SessionSide``s with
    their speaker ids) make a meeting, and then ``source``, ``recognizer`` and ``stabiliser``
    must be None. ``echo_guard``: a meeting's guard against the others' words heard again by the
    microphone (``engine.speakers.echo_guard``); None: every Me word is shown. ``voices``: tells
    the others' voices apart (``engine.speakers.voices``); None: they are all "others".
    ``vocabulary``: the user's terms, put in the committed words (``engine.session.terms``)."""

    def __init__(
        self,
        source,
        recognizer: Recognizer | None,
        decoder: Decoder,
        journal: JournalWriter | None = None,
        stabiliser: WordStabiliser | None = None,
        read_timeout: float = READ_TIMEOUT,
        sides: list[SessionSide] | None = None,
        echo_guard: EchoGuard | None = None,
        voices: OthersVoices | None = None,
        vocabulary: Vocabulary | None = None,
    ):
        if sides is None:
            sides = [SessionSide(source, recognizer, stabiliser, read_timeout=read_timeout)]
        elif source is not None or recognizer is not None or stabiliser is not None:
            raise ValueError("a session has either one source and recognizer, or sides")
        self.sides = sides
        # The terms go in as words are committed (``engine.session.terms``); every side has its
        # LiveTerms even without a vocabulary, so that a term learned mid-session (``learn``)
        # finds the stabiliser's words counted from the start.
        # Without one, no word list is loaded (it is read when a term is learned).
        no_words = None if vocabulary else WordList([])
        matcher = VocabularyMatcher(vocabulary or Vocabulary(), no_words)
        for side in sides:
            side.terms = LiveTerms(matcher)
        self.engine = PunctuationEngine(decoder)
        self.journal = journal
        self.builder = TranscriptBuilder()  # the whole transcript, kept on the engine thread
        self.error: str | None = None  # why the input ended early, if it did
        self._fanout = FanOut("session subscriber")
        speakers = [side.speaker for side in sides]
        self.merger = SidesMerger(
            self.engine, speakers, self._emit, echo_guard, voices,
            by_time=any(side.runs_ahead for side in sides),  # two files read as fast as they decode
            on_hidden=journal.record_hidden if journal is not None else None,  # kept, marked
        )  # fmt: skip
        # Called once the sources have stopped (a meeting's echo canceller is unloaded).
        self.closers: list = []
        self._stop = threading.Event()
        self._input_done = threading.Event()  # every side's input ended
        self._inputs_watcher = threading.Thread(target=self._watch_inputs, name="session-inputs", daemon=True)
        self._stopped = False
        # The engine's subscribers, in order: also told of the last sentence's end at stop().
        self._engine_subscribers: list[Subscriber] = [self.builder.apply]
        if journal is not None:
            self._engine_subscribers.append(journal.apply)
            if journal.on_error is None:  # a full disk: the user must hear that the journal stopped
                journal.on_error = lambda message: self._emit([SourceNotice("error", message)])
        self._engine_subscribers.append(self._fanout.publish)  # engine events, on the engine thread
        for subscriber in self._engine_subscribers:
            self.engine.subscribe(subscriber)

    def learn(self, vocabulary: Vocabulary) -> None:
        """Use ``vocabulary`` (the user's, a term added) from each side's next batch on: words
        not committed yet get its terms and the casing writes them its way; settled words never
        change. Safe from any thread; espeak-ng is asked here, on the caller's."""
        matcher = VocabularyMatcher(vocabulary)
        for side in self.sides:
            side.terms.learn(matcher)
        self.engine.decoder.learn_forms(known_forms(vocabulary))

    # The one-source session's parts (a meeting's first side's).
    @property
    def source(self):
        return self.sides[0].source

    @property
    def recognizer(self) -> Recognizer:
        return self.sides[0].recognizer

    @property
    def stabiliser(self) -> WordStabiliser:
        return self.sides[0].stabiliser

    # -- lifecycle -------------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> None:
        self._fanout.subscribe(callback)

    def unsubscribe(self, callback: Subscriber) -> None:
        self._fanout.unsubscribe(callback)

    def start(self) -> LiveSession:
        for side in self.sides:
            side.recognizer.reset()  # word times count from this session's first sample
        self.engine.start()
        started, failed = [], []
        try:
            for side in self.sides:
                try:
                    side.source.start()
                except (AudioError, OSError) as exc:
                    # A meeting goes on with the side that works (no sound server for the others,
                    # an unplugged microphone), and says so; a one-source session cannot.
                    if len(self.sides) == 1:
                        raise
                    failed.append((side, exc))
                else:
                    started.append(side)
            if not started:
                raise failed[0][1]
        except BaseException:
            for side in started:
                side.source.stop()
            self._close_resources()
            self.engine.stop()
            if self.journal is not None:
                self.journal.close(clean=True)
            raise
        for side in started:
            side.start(self._deliver, self._emit, self._stop)
        for side, exc in failed:
            side.could_not_start(str(exc), self._emit)
        self._inputs_watcher.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the input has ended (a file finished, or an error); True if it has.
        Safe to interrupt with Ctrl-C (see ``SessionSide.input_done``)."""
        return self._input_done.wait(timeout)

    @property
    def input_ended(self) -> bool:
        return self._input_done.is_set()

    def stop(self, timeout: float = 30.0) -> Transcript:
        """Stop the sources, drain what they still hold, flush the recognizers (their last decode),
        the stabilisers and the engine (every mark settles, the last word ends a sentence), close
        the journal. Returns the transcript. Idempotent; safe to call right after a Ctrl-C."""
        if self._stopped:
            return self.transcript
        self._stopped = True
        self._stop.set()
        for side in self.sides:
            try:
                side.source.stop()
            except Exception:  # a broken device must not keep us from saving the words we have
                log.exception("stopping the audio source failed")
        for side in self.sides:
            # The drain and the recognizer's last decode happen there; only then may the engine stop.
            side.join(timeout)
        if self._inputs_watcher.ident is not None:
            # It ends once every side has (its flush goes first); waited on as the sides are.
            self._input_done.wait(timeout)
            self._inputs_watcher.join(timeout)
        self.merger.release_all()
        for side in self.sides:
            if side.owns_recognizer:
                side.recognizer.close()
        self._close_resources()
        settled = False
        try:
            self.engine.stop(timeout)
            settled = self.engine.failed is None
            if settled:
                self._end_last_sentence()
        finally:
            if self.journal is not None:
                # Clean only if every word got its mark: otherwise recovery should offer it.
                self.journal.close(clean=settled)
        return self.transcript

    def _close_resources(self) -> None:
        closers, self.closers = self.closers, []
        for close in closers:
            try:
                close()
            except Exception:  # the sound server went away: nothing left to undo there
                log.exception("closing a session resource failed")

    @property
    def transcript(self) -> Transcript:
        """The transcript so far (call after ``stop()`` for a settled one)."""
        return self.builder.transcript

    @property
    def samples(self) -> int:
        """Audio fed to the recognizer (the first side's, in a meeting)."""
        return self.sides[0].samples

    @property
    def stream_time(self) -> float:
        return self.sides[0].stream_time

    @property
    def recognizer_cpu_seconds(self) -> float:
        """The recognizer threads' own CPU so far."""
        return sum(side.cpu_seconds for side in self.sides)

    @property
    def words_pushed(self) -> int:
        """Words committed to the engine (replacements included)."""
        return self.merger.words_pushed

    @property
    def words_retracted(self) -> int:
        return self.merger.words_retracted

    @property
    def words_recognized(self) -> int:
        """Words the stabiliser committed and did not take back: what the transcript must hold."""
        return self.words_pushed - self.words_retracted

    def _end_last_sentence(self) -> None:
        """The session is over, so its last word ends a sentence: the decoder's ``finish`` (the
        one re-settling it allows, since nothing can follow) goes to every engine subscriber, the
        journal included, so the settled marks everyone keeps are the final ones. Runs after the
        engine thread ended: the decoder is this thread's now."""
        events = self.engine.decoder.finish()
        if not events:
            return
        for subscriber in self._engine_subscribers:
            try:
                subscriber(events)
            except Exception:  # one broken subscriber must not keep the others from the last mark
                log.exception("a session subscriber failed on the last sentence's end")

    # -- the sides' threads ---------------------------------------------------------------
    def _deliver(self, side: SessionSide, out, now: float) -> None:
        if side.error and self.error is None:
            self.error = side.error
        self.merger.deliver(side, out, now)

    def _watch_inputs(self) -> None:
        """Tell the merger of each side whose input ended (its held words are judged, its clock
        stops counting); when all have, flush the engine and end the session's input."""
        for side in self.sides:
            side.input_done.wait()
            if side.error and self.error is None:
                self.error = side.error
            self.merger.side_ended(side)
        try:
            self.engine.flush()
        except RuntimeError:  # the engine failed; stop() reports it
            log.debug("the engine had failed before the input ended")
        self._input_done.set()

    def _emit(self, events: list) -> None:  # the session's own events, on the sides' threads
        self._fanout.publish(events)
