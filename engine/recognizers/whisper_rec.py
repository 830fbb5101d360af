"""Whisper (faster-whisper, CTranslate2, int8 on the CPU) behind the streaming interface.

Whisper decodes a whole buffer of audio at a time; it cannot extend a hypothesis word by word
as Vosk does. So, live, the recognizer re-decodes a growing buffer every ``cadence`` seconds of
new speech and commits the words two consecutive decodes agree on (``LocalAgreement``): those
come out as ``final`` and are never retracted; the unconfirmed tail is the ``partial``.

- The Silero VAD (``StreamingVad``) watches every 32 ms frame. Without speech in the buffer
  there is no decode, so silence costs next to nothing; ``end_silence`` of it ends the
  utterance: the buffer is decoded once more, all of it committed, and the buffer emptied.
- The buffer (``SpeechBuffer``: the audio, its onsets and speech, its trims) is kept short,
  cut only where every word before is committed.
- Word times come from Whisper's word timestamps, on the stream's clock, so ``[PAUSE]`` and the
  exports work as with any recognizer.

For a whole file (``live=False``) the same VAD packs speech into windows of up to ``pack``
seconds, each decoded once and committed whole: no re-decoding, nothing provisional.

A multilingual model (the language pack's Whisper base) hears the language it is told
(``WhisperOptions.language``), or tells it once from the first speech: on the buffer once it
holds ``DETECT_AFTER`` seconds of speech, or at the first utterance end if that comes sooner.
The language is then kept for the rest of the stream (a decode that guessed anew each time
could switch languages mid-sentence), declared in ``language``, and reported once to
``on_language_detected``. ``task="translate"`` makes its words English, whatever was spoken.

Nothing reaches the network: the model is loaded by path with ``local_files_only``, the
tokenizer comes from the model folder (``REQUIRED_FILES``), and the hub is told to stay offline.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.recognizers import whisper_model
from engine.recognizers.base import RecognizerError, RecognizerUpdate, as_pcm_bytes
from engine.recognizers.decode_guard import DecodeGuard, segments_of
from engine.recognizers.local_agreement import LocalAgreement, without_initial_capitals
from engine.recognizers.silero_vad import FRAME, StreamingVad
from engine.recognizers.speech_buffer import SpeechBuffer
from engine.recognizers.whisper_options import WINDOW, WhisperOptions
from engine.words import Word

__all__ = [
    "DETECT_AFTER",
    "PROMPT_CHARS",
    "SLOWDOWN_MARGIN",
    "WhisperRecognizer",
]

PROMPT_CHARS = 200  # whisper_streaming's prompt length: enough context, a bounded decoder cost
# A decode that takes longer than the cadence sets the next interval to this many times its own
# length: the CPU then keeps a little time for the rest of the pipeline.
SLOWDOWN_MARGIN = 1.25
# A multilingual model without a language given tells it from this much speech, or from the first
# utterance if that ends sooner; Whisper's guess on a few words of speech is often wrong.
DETECT_AFTER = 10.0


# Every recognizer not closed yet: closed at exit, while the interpreter is whole. CTranslate2's
# model left to the end of the process (a reference kept by a traceback after Ctrl-C, say) was
# destroyed after its threads' runtime had gone: the process then crashed on its way out
# (SIGSEGV or "terminate called without an active exception") after the transcript was saved.
_OPEN: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for recognizer in list(_OPEN):
        recognizer.close()


class WhisperRecognizer:
    name = "whisper"
    sample_rate = SAMPLE_RATE
    # Its finals are local-agreement commitments and its partials are for display only: the
    # stabiliser must not commit partial words itself (``WordStabiliser.for_recognizer``).
    commits_words = True
    writes_marks = True  # its words come with its own marks and capitals (``Word.written``)

    def __init__(
        self, model_path: str | Path | None = None, live: bool = True, options: WhisperOptions | None = None
    ):
        folder = model_path if model_path is not None else whisper_model.shipped_model_folder()
        self.model_path = whisper_model.check_whisper_model(folder)
        self.live = live
        # Live, a committed word's mark and capital are rewritten by later decodes until they
        # settle (``RecognizerUpdate.rewritten``); a file's words are written once.
        self.revises_writing = live
        self.options = options or WhisperOptions()
        threads = self.options.threads or (1 if live else max(1, min(4, os.cpu_count() or 1)))
        self._model = whisper_model.load_whisper_model(self.model_path, threads)
        self._owns_model = True
        if not self._model.model.is_multilingual and (
            self.options.task != "transcribe" or self.options.language not in (None, "en")
        ):
            self.close()
            raise RecognizerError(
                f"{self.model_path} hears English only: other languages and translation need the "
                "language pack (pip install 'livecap[languages]')"
            )
        self._start_streaming(threads)

    def _start_streaming(self, threads: int) -> None:
        self.threads = threads
        self.multilingual = bool(self._model.model.is_multilingual)
        # The language it hears: an English-only model's is English; a multilingual one's is the
        # one it was given, or None until it has told it from the first speech.
        self.language = "en" if not self.multilingual else self.options.language
        self.translating = self.options.task == "translate"
        self.language_probability: float | None = None  # how sure the detection was; None: given
        # Called once with (language, probability) when the language has been told from speech.
        self.on_language_detected = None
        self._vad = StreamingVad()
        self._lock = threading.Lock()  # close() waits for a decode in progress
        _OPEN.add(self)
        self.decodes = 0  # decodes so far: the measuring tools report them
        self.decode_seconds = 0.0
        self.reset()

    # -- the interface -----------------------------------------------------------------------
    def reset(self) -> None:
        self._vad.reset()
        if self.multilingual:  # a new stream may be in another language: told anew
            self.language, self.language_probability = self.options.language, None
        self._agreement = LocalAgreement(
            self.options.settle_after if self.live else 0, self.options.two_of_three
        )
        self._looped = False  # the last hypothesis was cut where it fell into a loop (``DecodeGuard``)
        self._guard = DecodeGuard()  # which words of a decode to keep; it follows the VAD's speech
        self._buffer = SpeechBuffer(self.options, self.live, self._guard.speech)
        self._since_decode = 0  # samples accepted since the latest decode, or since speech began
        self._decoded_at = 0  # stream sample up to which the latest decode heard the buffer
        # Seconds of audio between decodes: the cadence, or longer while a decode takes longer than
        # that (a slow or busy CPU), so that the recognizer never falls further and further behind.
        self._interval = self.options.cadence
        self._committed: dict[int, Word] = {}  # recent committed words by index, for the prompt and trims

    def accept(self, pcm) -> RecognizerUpdate:
        chunk = np.frombuffer(as_pcm_bytes(pcm), dtype="<i2").astype(np.float32) / 32768.0
        self._since_decode += len(chunk)
        if self._buffer.add(chunk, self._vad.probabilities(chunk)):
            self._since_decode = 0  # the first decode of an utterance hears a cadence of it
        return self._with_writings(self._step())

    def _step(self) -> RecognizerUpdate:
        buffer = self._buffer
        if not buffer.has_speech:
            buffer.drop_silence()
            return RecognizerUpdate(partial=self._agreement.unconfirmed)
        silence = buffer.silence
        if self.live:
            # Past max_buffer with nothing committed to cut at (a noise Whisper hears no words in,
            # a speaker who never pauses): end the utterance rather than outgrow the window.
            stuck = len(buffer.audio) > (self.options.max_buffer + 2 * self.options.cadence) * SAMPLE_RATE
            if silence >= self.options.end_silence or stuck:
                return RecognizerUpdate(partial=[], final=self._end_utterance())
            if self._since_decode >= self._interval * SAMPLE_RATE:
                committed, tail = self._agreement.agree(self._decode(buffer.audio))
                self._remember(committed)
                trimmed_at = self._buffer.trim(self._committed.values())
                if trimmed_at is not None:
                    self._agreement.forget_before(trimmed_at)
                return RecognizerUpdate(partial=tail, final=committed or None)
            return RecognizerUpdate(partial=self._agreement.unconfirmed)
        buffered = len(buffer.audio) / SAMPLE_RATE
        if (silence >= self.options.end_silence and buffered >= self.options.pack) or silence >= 2.0:
            return RecognizerUpdate(final=self._end_utterance())
        if buffered >= WINDOW - 1:
            return RecognizerUpdate(final=self._decode_full_window())
        return RecognizerUpdate()

    def _with_writings(self, update: RecognizerUpdate) -> RecognizerUpdate:
        """``update`` with the committed words' newer writings, and how many have settled."""
        writings = self._agreement.take_writings()
        for index, word in writings.rewritten.items():
            if index in self._committed:
                self._committed[index] = word
        update.rewritten = writings.rewritten
        update.writings_settled = writings.settled if self.revises_writing else None
        # Every word heard is committed or in the hypothesis: all of the stream the VAD judged
        # while no speech waits in the buffer, else up to the latest decode (its words past the
        # commitment are the hypothesis; the audio after it nobody has decoded yet).
        heard = self._decoded_at if self._buffer.has_speech else self._buffer.vad_at
        update.heard_through = heard / SAMPLE_RATE
        return update

    def another_stream(self) -> WhisperRecognizer:
        """A stream of its own on this one's loaded model (CTranslate2 serves the two streams'
        decodes one after the other, so a meeting's sides alternate rather than compete)."""
        if self._model is None:
            raise RecognizerError("The Whisper recognizer was closed; start a new session")
        other = object.__new__(WhisperRecognizer)
        other.model_path, other.live, other.options = self.model_path, self.live, self.options
        other.revises_writing = self.revises_writing
        other.name = self.name
        other._model, other._owns_model = self._model, False
        other._start_streaming(self.threads)
        return other

    def close(self) -> None:
        """Release the model (CTranslate2 stops its threads; a stream sharing another's model only
        lets go of it). Idempotent; a later decode raises ``RecognizerError``."""
        with self._lock:
            if self._model is not None and self._owns_model:
                # The CTranslate2 object itself, not only faster-whisper's wrapper: a frame kept
                # alive elsewhere may still hold the wrapper (a known CTranslate2 exit problem).
                self._model.model = None
            self._model = None
        _OPEN.discard(self)

    @property
    def detects_language(self) -> bool:
        """It tells the language from each stream's first speech (multilingual, none given)."""
        return self.multilingual and self.options.language is None

    @property
    def closed(self) -> bool:
        return self._model is None

    def flush(self) -> RecognizerUpdate:
        """End of input: decode what the buffer holds and commit all of it."""
        return self._with_writings(
            RecognizerUpdate(
                partial=[],
                final=self._end_utterance() if self._buffer.has_speech else self._agreement.finish(),
            )
        )

    def time_decode(self) -> float:
        """CPU seconds one live decode costs on this CPU, without its words: 5 s of silence decoded
        once to warm up, then twice, timed, the smaller kept. CPU time, not wall time: other
        programs busy for a moment (a build, a browser starting) must not decide for the whole
        session; while they are, the recognizer spaces its decodes out (``SLOWDOWN_MARGIN``).
        The stream's state is untouched.

        Silence, as English, transcribing, whatever the stream's language and task, because it is
        the one input Whisper writes nothing for: on noise, or on silence in another language,
        what it makes up, and so what the decode costs, changed several times over from one
        session's language to the next. A decode of speech costs more; the kinds' limits are set
        against this probe (docs/experiments, "Whisper base live")."""
        audio = np.zeros(5 * SAMPLE_RATE, np.float32)
        decodes, spent = self.decodes, self.decode_seconds
        self._transcribe(audio, 0.0, probe=True)
        costs = []
        for _ in range(2):
            started = time.process_time()  # every thread of the process: CTranslate2's included
            self._transcribe(audio, 0.0, probe=True)
            costs.append(time.process_time() - started)
        self.decodes, self.decode_seconds = decodes, spent
        return min(costs)

    # -- decoding ------------------------------------------------------------------------------
    def _decode(self, audio: np.ndarray, utterance_end: bool = False) -> list[Word]:
        if self.language is None and (
            utterance_end or self._buffer.speech_frames * FRAME >= DETECT_AFTER * SAMPLE_RATE
        ):
            self._detect_language(audio)
        started = time.perf_counter()
        words = self._transcribe(
            audio, self._buffer.start_time, self._prompt() if (self.live and self.options.prompt) else None
        )
        margin = SLOWDOWN_MARGIN if self.options.keep_pace else 0.0
        self._interval = max(self.options.cadence, margin * (time.perf_counter() - started))
        self._since_decode = 0
        self._decoded_at = self._buffer.samples
        return words

    def _transcribe(
        self, audio: np.ndarray, offset: float, prompt: str | None = None, probe: bool = False
    ) -> list[Word]:
        """Whisper's words for ``audio``, with times from ``offset`` (seconds on the stream's clock);
        ``probe``: as English, transcribing (``time_decode``)."""
        started = time.perf_counter()
        with self._lock:
            if self._model is None:
                raise RecognizerError("The Whisper recognizer was closed; start a new session")
            words = self._words(audio, offset, prompt, probe)
        self.decodes += 1
        self.decode_seconds += time.perf_counter() - started
        return words

    def tell_language(self, audio: np.ndarray) -> tuple[str, float]:
        """(language code, probability) Whisper hears in ``audio`` (float32 at 16 kHz): how a stream
        told no language tells it; the stream's own language is left as it is."""
        with self._lock:
            if self._model is None:
                raise RecognizerError("The Whisper recognizer was closed; start a new session")
            self._model.encoder_frames.value = None  # detection hears the whole window, as trained
            language, probability, _ = self._model.detect_language(audio)
        return language, float(probability)

    def _detect_language(self, audio: np.ndarray) -> None:
        """Tell the language from ``audio`` once, keep it, and report it."""
        self.language, self.language_probability = self.tell_language(audio)
        if self.on_language_detected is not None:
            self.on_language_detected(self.language, self.language_probability)

    def _encoder_frames(self, audio: np.ndarray) -> int | None:
        """Feature frames (10 ms each) the encoder hears for ``audio``: live, the buffer with
        its margin; None (the whole window) for files, or past the window."""
        if not self.live or not self.options.encoder_margin and not self.options.encoder_least:
            return None
        seconds = max(len(audio) / SAMPLE_RATE + self.options.encoder_margin, self.options.encoder_least)
        return None if seconds >= WINDOW else int(seconds * 100)

    def _words(self, audio: np.ndarray, offset: float, prompt: str | None, probe: bool = False) -> list[Word]:
        self._model.encoder_frames.value = self._encoder_frames(audio)
        language, task = ("en", "transcribe") if probe else (self.language, self.options.task)
        segments, info = self._model.transcribe(
            audio, language=language, task=task, beam_size=self.options.beam(self.live),
            temperature=0.0, condition_on_previous_text=False, initial_prompt=prompt,
            word_timestamps=True, without_timestamps=False, vad_filter=False,
        )  # fmt: skip
        # The decoding happens as the generator runs.
        decoded = segments_of(segments, offset, None if probe else self._buffer.after_onset)
        if probe:
            return [w for segment in decoded for w in segment.words]
        self._guard.speech.forget_before(self._buffer.start_time - 1.0)
        kept = self._guard.keep(decoded, self._history(), self._agreement.committed_end)
        self._looped = kept.looped
        return without_initial_capitals(kept.words)

    def _history(self) -> list[str]:
        """The words committed lately, oldest first: a phrase they hold twice is not said a third time."""
        return [w.text for w in self._committed.values()]

    def _end_utterance(self) -> list[Word]:
        words = self._decode(self._buffer.audio, utterance_end=True)
        if self._looped and words:
            # The audio after a loop, decoded on its own, may start the same loop again.
            words = self._guard.without_loops(
                words + self._after_loop(words[-1].end), self._history(), self._agreement.committed_end
            )
        committed = self._agreement.finish(words)
        self._remember(committed)
        self._buffer.end_utterance(self._committed.values())
        return committed

    def _after_loop(self, resume: float) -> list[Word]:
        """The words of the buffer after ``resume`` (seconds), where the utterance's last
        hypothesis was cut as a loop: that audio decoded on its own, once, so the speech after a
        loop is not lost with the buffer."""
        buffer = self._buffer
        at = max(0, int(round(resume * SAMPLE_RATE)) - buffer.start)
        if len(buffer.audio) - at < SAMPLE_RATE // 2:
            return []
        return self._transcribe(buffer.audio[at:], (buffer.start + at) / SAMPLE_RATE)

    def _decode_full_window(self) -> list[Word]:
        """Files: the buffer reached Whisper's window in one long stretch of speech. Commit all but
        the last word (it may be cut in two) and keep the audio from its start."""
        words = self._decode(self._buffer.audio, utterance_end=True)
        keep = self._agreement.finish(words[:-1] if len(words) > 1 else words)
        self._remember(keep)
        buffer = self._buffer
        cut = len(buffer.audio) if len(words) <= 1 else int(words[-1].start * SAMPLE_RATE) - buffer.start
        buffer.cut(max(0, min(cut, len(buffer.audio))))
        return keep

    # -- committed words ------------------------------------------------------------------------
    def _remember(self, committed: list[Word]) -> None:
        first = self._agreement.committed_count - len(committed)
        for i, word in enumerate(committed):
            self._committed[first + i] = word
        for index in sorted(self._committed)[:-64]:
            del self._committed[index]

    def _prompt(self) -> str | None:
        buffer_start = self._buffer.start_time
        text = " ".join(
            w.written or w.text
            for w in self._committed.values()
            if w.end is not None and w.end <= buffer_start
        )
        return text[-PROMPT_CHARS:] or None
