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
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.prosody.tracker import annotate_recording
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.base import Recognizer
from engine.recognizers.written_forms import spoken_to_written
from engine.transcript.transcript import Transcript, TranscriptWord
from engine.vocabulary import Vocabulary, match_vocabulary
from engine.words import Word

Progress = Callable[[str, float, float], None]  # (stage, done, total)
StepProgress = Callable[[int, int], None]  # (positions scored, positions to score); may raise to cancel


class Interrupted(Exception):
    """Ctrl-C during ``transcribe_file``: ``transcript`` holds what was recognized (and
    punctuated) before it, ``seconds`` how much of the audio that covers; ``complete`` when that
    is all of it (Ctrl-C came after the last chunk was heard: while punctuating, say)."""

    def __init__(self, transcript: Transcript, seconds: float, complete: bool = False):
        super().__init__(f"interrupted after {seconds:.1f} s")
        self.transcript, self.seconds, self.complete = transcript, seconds, complete


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
    with _ctrl_c_between_chunks() as interrupted:
        return _recognize(audio, recognizer, progress, chunk_seconds, interrupted)


def _recognize(
    audio: np.ndarray, recognizer: Recognizer, progress: Progress | None, chunk_seconds: float, interrupted
) -> list[Word]:
    """``recognize_audio``'s loop; ``interrupted`` (a ``threading.Event``) is the caller's Ctrl-C."""
    written = spoken_to_written(recognizer)  # finals in written forms, as a live session has them
    recognizer.reset()
    step = int(chunk_seconds * SAMPLE_RATE)
    total = len(audio) / SAMPLE_RATE
    words: list[Word] = []
    for at in range(0, len(audio), step):
        if interrupted.is_set():
            words.extend(annotate_recording(audio, written(recognizer.flush()).final or [], _last(words)))
            raise _PartialRecognition(words, at / SAMPLE_RATE)
        update = written(recognizer.accept(audio[at : at + step]))
        if update.final:  # with their prosody, measured as a live session measures it
            words.extend(annotate_recording(audio, update.final, _last(words)))
        if progress:
            progress("recognizing", min(at + step, len(audio)) / SAMPLE_RATE, total)
    words.extend(annotate_recording(audio, written(recognizer.flush()).final or [], _last(words)))
    if interrupted.is_set():  # during the last chunk: everything was heard, but stop as asked
        raise _PartialRecognition(words, total)
    return words


def _last(words: list[Word]) -> Word | None:
    return words[-1] if words else None


def repunctuate(
    words: Sequence[Word | TranscriptWord],
    model,
    settings: DecoderSettings | None = None,
    progress: StepProgress | None = None,
    workers: int = 1,
    recognizer: str | None = None,
) -> Transcript:
    """``words`` (text and times) with marks and case from the offline decoder on ``settings``
    (default: the model's recommended ones), for the words of the recognizer kind ``recognizer``
    (the model's cue fusion for it; None: not known, the default fusion). The marks a recognizer
    wrote are not copied: a model with ``hint_fusion`` folds them into its own, one that reads
    word cues reads them as hints. The words are a whole session or file, so the last one ends a
    sentence.

    A word whose mark settled (``TranscriptWord.settled``: a live session settled it, or a journal
    kept it) keeps its mark, case and form exactly: the user saw them settle, a dictation may have
    typed them. The decoder fills only the words that never settled, reading the whole text; when
    every word settled it does not run at all.

    ``progress`` is called after each chunk of positions; raising from it cancels (the exception
    propagates, the chunks not yet started are dropped). ``workers`` chunks are scored at once.
    """
    from engine.punctuation.offline import OfflineDecoder

    settled = [isinstance(w, TranscriptWord) and w.settled for w in words]
    if all(settled):  # nothing to fill (an empty list included)
        return Transcript([replace(w, settled=True) for w in words])
    plain = [w.heard if isinstance(w, TranscriptWord) else w for w in words]
    decoder = OfflineDecoder.from_model(model, settings, workers=workers, recognizer=recognizer)
    if not any(settled):
        decided = decoder.decode(plain, progress, end_of_input=True)
        return Transcript([_decided(w, s.mark, s.case, s.form, True) for w, s in zip(plain, decided)])
    return _fill_unsettled(words, settled, plain, decoder, progress)


def _decided(word: Word, mark: str, case: str, form: str | None, settled: bool = False) -> TranscriptWord:
    return TranscriptWord(heard=word, mark=mark, case=case, form=form, settled=settled)


def _fill_unsettled(words, settled: list[bool], plain: list[Word], decoder, progress) -> Transcript:
    """Settled words as they are; the others marked from the decoder's probabilities over the whole
    text, each capitalised after the mark that really precedes it (a settled one included)."""
    from engine.punctuation.scoring import sentence_final_mark
    from engine.words import CASE_LABELS, PUNCT_LABELS

    punct, case = decoder.probabilities(plain, progress)
    out, previous, last = [], None, len(plain) - 1
    for i, (word, w) in enumerate(zip(words, plain)):
        if settled[i]:
            out.append(replace(word, settled=True))
        else:
            mark = sentence_final_mark(punct[i]) if i == last else PUNCT_LABELS[int(np.argmax(punct[i]))]
            before = plain[i - 1].text if i > 0 else None
            after = plain[i + 1].text if i < last else None
            label, form = decoder.casing.render(
                w.text, CASE_LABELS[int(np.argmax(case[i]))], previous, before, after
            )
            out.append(_decided(w, mark, label, form, True))
        previous = out[-1].mark
    return Transcript(out)


def keep_written_marks(words: Sequence[Word]) -> Transcript:
    """``words`` with the marks and capitals their recognizer wrote, as the live captions show
    them (``RecognizerMarksDecoder``: a sentence's first word capitalised)."""
    from engine.events import Settled
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder

    settled = [
        e for e in RecognizerMarksDecoder(DecoderSettings()).push_many(list(words)) if isinstance(e, Settled)
    ]
    return Transcript([_decided(w, s.mark, s.case, s.form) for w, s in zip(words, settled)])


def with_forms(transcript: Transcript, forms: dict[int, str]) -> Transcript:
    """``transcript`` with each word at an index of ``forms`` written in that form (a term of the
    vocabulary: "kubectl" stays lower case at a sentence's start, "PostgreSQL" keeps its capitals)."""
    if not forms:
        return transcript
    return Transcript(
        [replace(w, form=forms[i]) if i in forms else w for i, w in enumerate(transcript.words)]
    )


def finish_file_words(
    words: Sequence[Word],
    recognizer: str,
    model,
    settings: DecoderSettings | None = None,
    written_marks: bool = False,
    vocabulary: Vocabulary | None = None,
    progress: StepProgress | None = None,
) -> Transcript:
    """A file's recognized ``words`` (by the recognizer kind ``recognizer``) made a transcript, as
    ``transcribe_file`` makes it: the words that are ``vocabulary``'s terms replaced by them
    (``match_vocabulary``), then punctuated (``repunctuate``; ``written_marks``: the marks the
    recognizer wrote instead), each term written in its form whatever the case given it."""
    matched = match_vocabulary(words, vocabulary or Vocabulary())
    if written_marks:
        return with_forms(keep_written_marks(matched.words), matched.forms)
    punctuated = repunctuate(matched.words, model, settings, progress, recognizer=recognizer)
    return with_forms(punctuated, matched.forms)


def transcribe_file(
    path: str | Path,
    recognizer: Recognizer,
    model,
    progress: Progress | None = None,
    settings: DecoderSettings | None = None,
    written_marks: bool = False,
    vocabulary: Vocabulary | None = None,
) -> Transcript:
    """Recognize a whole file, then ``repunctuate`` its words (``written_marks``: keep the marks
    the recognizer wrote instead); between the two, the words that are ``vocabulary``'s terms
    are replaced by them (``match_vocabulary``), written in the term's form whatever the case
    the punctuation gives. Ctrl-C raises ``Interrupted`` with the words heard so far,
    punctuated: an hour's work is not thrown away. While recognizing it stops at the next chunk;
    from the last chunk on (punctuating is short beside recognizing) it is held until the file's
    words are punctuated, and ``Interrupted`` then holds them all (``complete``). The same held
    Ctrl-C covers both stages and the step between them, so none of it can lose the file."""
    from engine.audio.file_source import read_all

    audio = read_all(path)
    total = len(audio) / SAMPLE_RATE
    on_step = (lambda done, total: progress("punctuating", done, total)) if progress else None

    def punctuate(words, step=None):
        return finish_file_words(words, recognizer.name, model, settings, written_marks, vocabulary, step)

    with _ctrl_c_between_chunks() as interrupted:
        try:
            words = _recognize(audio, recognizer, progress, 0.5, interrupted)
        except _PartialRecognition as partial:
            heard = punctuate(partial.words)
            raise Interrupted(heard, partial.seconds, complete=partial.seconds >= total) from None
        del audio  # an hour of audio is 115 MB; the model does not need it any more
        transcript = punctuate(words, on_step)
    if interrupted.is_set():  # while punctuating: the file is whole, but stop as asked
        raise Interrupted(transcript, total, complete=True)
    return transcript
