"""The batch path: a whole recording at once, punctuated by the offline decoder.

The offline decoder sees all the right context, so its marks are better than the live
captions'. Two callers need it: ``livecap transcribe`` (a file: recognize it, then
``repunctuate`` its words) and the app after a session or before an export (``repunctuate``
the live transcript's words). Both go through ``repunctuate``, so the same words with the
same settings give the same transcript either way.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.base import Recognizer
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.words import Word

Progress = Callable[[str, float, float], None]  # (stage, done, total)
StepProgress = Callable[[int, int], None]  # (positions scored, positions to score); may raise to cancel


class Interrupted(Exception):
    """Ctrl-C during ``transcribe_file``: ``transcript`` holds what was recognized (and
    punctuated) before it, ``seconds`` how much of the audio that covers."""

    def __init__(self, transcript: Transcript, seconds: float):
        super().__init__(f"interrupted after {seconds:.1f} s")
        self.transcript, self.seconds = transcript, seconds


class _PartialRecognition(Exception):
    def __init__(self, words: list[Word], seconds: float):
        super().__init__()
        self.words, self.seconds = words, seconds


@contextmanager
def _ctrl_c_between_chunks() -> Iterator[threading.Event]:
    """Ctrl-C sets the returned event instead of raising where it lands.

    A KeyboardInterrupt raised between two of PocketSphinx's C calls (after ``end_utt``,
    before our state says so) left the decoder in a state that crashed the process on the
    next call. So the interrupt is only noted, and the chunk loop stops at a chunk boundary,
    where the recognizer is whole and can be flushed. Off the main thread Python delivers no
    signals, so there is nothing to defer.
    """
    asked = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield asked
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:  # someone else owns Ctrl-C: leave it to them
        yield asked
        return
    signal.signal(signal.SIGINT, lambda *_: asked.set())
    try:
        yield asked
    finally:
        signal.signal(signal.SIGINT, previous)


def recognize_audio(
    audio: np.ndarray, recognizer: Recognizer, progress: Progress | None = None, chunk_seconds: float = 0.5
) -> list[Word]:
    """Every final word of ``audio`` (16 kHz mono int16), with times from its first sample.

    Ctrl-C stops at the next chunk (half a second of audio) and raises ``_PartialRecognition``
    with every word heard so far, the utterance in progress included."""
    recognizer.reset()
    step = int(chunk_seconds * SAMPLE_RATE)
    total = len(audio) / SAMPLE_RATE
    words: list[Word] = []
    with _ctrl_c_between_chunks() as interrupted:
        for at in range(0, len(audio), step):
            if interrupted.is_set():
                words.extend(recognizer.flush().final or [])
                raise _PartialRecognition(words, at / SAMPLE_RATE)
            update = recognizer.accept(audio[at : at + step])
            if update.final:
                words.extend(update.final)
            if progress:
                progress("recognizing", min(at + step, len(audio)) / SAMPLE_RATE, total)
        words.extend(recognizer.flush().final or [])
        if interrupted.is_set():  # during the last chunk: everything was heard, but stop as asked
            raise _PartialRecognition(words, total)
    return words


def repunctuate(
    words: Sequence[Word | TranscriptWord],
    model,
    settings: DecoderSettings | None = None,
    progress: StepProgress | None = None,
    workers: int = 1,
) -> Transcript:
    """``words`` (text and times) with marks and case from the offline decoder on ``settings``
    (default: the model's recommended ones). The marks a recognizer wrote are not copied: a model
    with ``hint_fusion`` folds them into its own, one that reads word cues reads them as hints.
    The words are a whole session or file, so the last one ends a sentence.

    ``progress`` is called after each chunk of positions; raising from it cancels (the exception
    propagates, the chunks not yet started are dropped). ``workers`` chunks are scored at once.
    """
    from engine.punctuation.offline import OfflineDecoder

    plain = [Word(w.text, w.start, w.end, w.confidence, getattr(w, "written", "")) for w in words]
    if not plain:
        return Transcript([])
    settled = OfflineDecoder.from_model(model, settings, workers=workers).decode(
        plain, progress, end_of_input=True
    )
    return Transcript(
        [
            TranscriptWord(w.text, w.start, w.end, w.confidence, s.mark, s.case, s.form, w.written)
            for w, s in zip(plain, settled)
        ]
    )


def keep_written_marks(words: Sequence[Word]) -> Transcript:
    """``words`` with the marks and capitals their recognizer wrote, as the live captions show
    them (``RecognizerMarksDecoder``: a sentence's first word capitalised)."""
    from engine.punctuation.events import Settled
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder

    settled = [
        e for e in RecognizerMarksDecoder(DecoderSettings()).push_many(list(words)) if isinstance(e, Settled)
    ]
    return Transcript(
        [
            TranscriptWord(w.text, w.start, w.end, w.confidence, s.mark, s.case, s.form, w.written)
            for w, s in zip(words, settled)
        ]
    )


def transcribe_file(
    path: str | Path,
    recognizer: Recognizer,
    model,
    progress: Progress | None = None,
    settings: DecoderSettings | None = None,
    written_marks: bool = False,
) -> Transcript:
    """Recognize a whole file, then ``repunctuate`` its words (``written_marks``: keep the marks
    the recognizer wrote instead). Ctrl-C while recognizing raises ``Interrupted`` with the words
    heard so far, punctuated: an hour's work is not thrown away."""
    from engine.audio.file_source import read_all

    audio = read_all(path)
    on_step = (lambda done, total: progress("punctuating", done, total)) if progress else None

    def punctuate(words, step=None):
        return keep_written_marks(words) if written_marks else repunctuate(words, model, settings, step)

    try:
        words = recognize_audio(audio, recognizer, progress)
    except _PartialRecognition as partial:
        raise Interrupted(punctuate(partial.words), partial.seconds) from None
    del audio  # an hour of audio is 115 MB; the model does not need it any more
    return punctuate(words, on_step)
