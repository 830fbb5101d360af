"""PocketSphinx: the built-in recognizer, with the English model inside the wheel.

Its accuracy is modest, but it needs no download, so captions work on first
start. Utterances are cut by pocketsphinx's WebRTC-style ``Vad``: audio goes
to the decoder as soon as it arrives (partials stay live), and an utterance
ends, giving a final, after ``silence`` seconds classified as non-speech.

Why not pocketsphinx's own ``Endpointer``: it hands speech back one window
(0.3 s and more) late, and that delay would land on every caption.

Live captions decode in one pass (``final_pass=False``, the default). With
pocketsphinx's usual second passes (fwdflat, then bestpath on the lattice) the
final result rewrote an early word of nearly every utterance, and the
stabiliser, which can only withdraw the tail of what it committed, then
withdrew everything from there on: most committed words were retracted and
settled marks came many seconds late (``python -m engine.evaluation.e2e --fast
[--final-pass]``; the figures are in docs/QUALITY.md). The single
pass runs with the language weight the fwdflat pass would have used (``lw``
8.5, not 6.5), which keeps most of the accuracy (docs/QUALITY.md).
It also costs less CPU, but gives no word posteriors:
confidences are then 1.0 ("unknown"). Batch transcription, where retractions
cost nothing, keeps both passes (``final_pass=True``).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable

from engine.audio import SAMPLE_RATE
from engine.recognizers.base import (
    RecognizerError,
    RecognizerUpdate,
    as_pcm_bytes,
    clamp_confidence,
)
from engine.words import Word

# Live decoding: the first (fwdtree) pass only, with the fwdflat pass's language weight.
ONE_PASS = {"fwdflat": False, "bestpath": False, "lw": 8.5}
# Fillers in the default dictionary and the decoder's own markers: <s>, </s>, <sil>, [NOISE], ++NOISE++.
_FILLER = re.compile(r"^(<.*>|\[.*\]|\+\+.*\+\+)$")
# Alternate pronunciations are separate dictionary entries: "the(2)" is still "the".
_ALT_PRON = re.compile(r"\(\d+\)$")


def clean_word(token: str) -> str | None:
    """The spoken word behind a decoder token, or None for silence and noise markers."""
    if _FILLER.match(token):
        return None
    return _ALT_PRON.sub("", token) or None


def words_from_segments(segments: Iterable, offset: float, frame_rate: int, final: bool) -> list[Word]:
    """Words from ``Decoder.seg()`` items (``word``, ``start_frame``, ``end_frame``, ``prob``).

    Frames count from the start of the utterance, which began ``offset`` seconds into
    the stream. Posteriors exist only after ``end_utt`` with bestpath; during an
    utterance, or without bestpath, pocketsphinx reports 1.0, which we pass on as
    "no confidence known".
    """
    words = []
    for seg in segments or ():
        text = clean_word(seg.word)
        if text is None:
            continue
        confidence = clamp_confidence(seg.prob) if final else 1.0
        words.append(
            Word(
                text,
                round(offset + seg.start_frame / frame_rate, 3),
                round(offset + (seg.end_frame + 1) / frame_rate, 3),
                confidence,
            )
        )
    return words


def align_to_hypothesis(hypothesis: str, timed: list[Word]) -> list[Word]:
    """The hypothesis's words, with times from ``timed`` where its words line up.

    ``hyp()`` is the authority on the text; ``seg()`` normally agrees word for word,
    but should they differ, the unmatched words keep no times rather than wrong ones.
    """
    words, i = [], 0
    for text in hypothesis.split():
        j = next((k for k in range(i, len(timed)) if timed[k].text == text), None)
        if j is None:
            words.append(Word(text))
        else:
            words.append(timed[j])
            i = j + 1
    return words


class PocketSphinxRecognizer:
    name = "pocketsphinx"
    sample_rate = SAMPLE_RATE
    final_pass = False
    language = "en-us"  # its built-in model
    multilingual = False
    detects_language = False
    translating = False
    model_path = None  # the model inside the pocketsphinx package
    writes_marks = False  # bare lower-case words
    commits_words = False  # its partials are committed by the stabiliser once stable
    # With the final passes a final may rewrite words, never a final word's writing: it has none.
    revises_writing = False
    decodes = None  # it decodes as audio arrives

    def __init__(
        self,
        silence: float = 0.5,
        vad_mode: int = 0,
        start_frames: int = 3,
        preroll: float = 0.3,
        max_utterance: float = 20.0,
        final_pass: bool = False,
        **decoder_config,
    ):
        """``final_pass``: run pocketsphinx's fwdflat and bestpath passes at the end of each
        utterance (more accurate finals with confidences, but they rewrite committed words:
        for batch work); ``silence``: non-speech that ends an utterance;
        ``vad_mode``: 0 (loose) to 3 (strict);
        ``start_frames``: consecutive 30 ms speech frames that start one (a click is not speech);
        ``preroll``: audio kept before the start, so soft onsets are not clipped;
        ``max_utterance``: force a final after this long, so a noisy room still gets finals.
        ``decoder_config`` goes to ``pocketsphinx.Decoder`` (e.g. ``hmm``, ``lm``, ``dict``)."""
        # What ``another_stream`` builds its twin from.
        self._arguments = dict(
            silence=silence, vad_mode=vad_mode, start_frames=start_frames, preroll=preroll,
            max_utterance=max_utterance, final_pass=final_pass, **decoder_config,
        )  # fmt: skip
        try:
            import pocketsphinx
        except ImportError as exc:
            raise RecognizerError("PocketSphinx is not installed: run `pip install pocketsphinx`") from exc
        settings = {"loglevel": "FATAL"}  # its INFO log would flood the terminal
        if not final_pass:
            settings.update(ONE_PASS)
        settings.update(decoder_config)
        try:
            self._decoder = pocketsphinx.Decoder(**settings)
            self._new_vad = lambda: pocketsphinx.Vad(vad_mode, SAMPLE_RATE)
            self._vad = self._new_vad()
        except (RuntimeError, ValueError, KeyError) as exc:
            advice = (
                f"check the settings {sorted(decoder_config)}"
                if decoder_config
                else "its built-in model may be damaged: "
                "reinstall it with `pip install --force-reinstall pocketsphinx`"
            )
            raise RecognizerError(f"PocketSphinx could not start ({exc}); {advice}") from exc
        self._frame_bytes = self._vad.frame_bytes
        self._frame_seconds = self._vad.frame_length
        self._frame_rate = int(self._decoder.config["frate"])
        self.silence, self.start_frames, self.max_utterance = silence, start_frames, max_utterance
        self.final_pass = final_pass
        self._preroll_frames = max(start_frames, round(preroll / self._frame_seconds))
        self._in_utterance = False
        self._initial_cmn = self._decoder.get_cmn()
        self._closed = False
        self.reset()

    # -- the interface -----------------------------------------------------------------
    def accept(self, pcm) -> RecognizerUpdate:
        self._check_open()
        data = self._pending + as_pcm_bytes(pcm)
        usable = len(data) - len(data) % self._frame_bytes
        self._pending = data[usable:]
        finals: list[Word] | None = None
        batch: list[bytes] = []  # frames for the decoder: one process_raw per call is much cheaper
        for at in range(0, usable, self._frame_bytes):
            frame = data[at : at + self._frame_bytes]
            ended = self._step(frame, self._vad.is_speech(frame), batch)
            if ended is not None:
                finals = (finals or []) + ended
        if self._in_utterance and batch:
            self._process(b"".join(batch))
        # It decodes each frame as it comes: its partial holds every word heard so far.
        return RecognizerUpdate(self._partial(), finals, heard_through=self.stream_time)

    def flush(self) -> RecognizerUpdate:
        self._check_open()
        if not self._in_utterance:
            self._clock += len(self._pending) // 2
            self._pending = b""
            self._preroll.clear()
            return RecognizerUpdate([], None, heard_through=self.stream_time)
        if self._pending:  # the last fraction of a frame still belongs to the utterance
            self._process(self._pending)
            self._clock += len(self._pending) // 2
            self._pending = b""
        return RecognizerUpdate([], self._end_utterance(), heard_through=self.stream_time)

    def reset(self) -> None:
        self._check_open()
        if self._in_utterance:
            self._decoder.end_utt()  # its words belong to the old stream: dropped
        self._in_utterance = False
        # Live cepstral mean normalisation learns the old stream's microphone; a new stream
        # (maybe another device) starts from the model's prior, and the same audio always
        # decodes the same way.
        self._decoder.set_cmn(self._initial_cmn)
        self._vad = self._new_vad()  # its hangover would carry speech over from the old stream
        self._pending = b""
        self._clock = 0  # samples consumed in whole frames
        self._preroll: deque[bytes] = deque(maxlen=self._preroll_frames)
        self._speech_run = 0
        self._silence_run = 0
        self._utterance_start = 0.0

    def another_stream(self) -> PocketSphinxRecognizer:
        """Another decoder on the same settings (its built-in model is small: it is loaded again)."""
        self._check_open()
        return PocketSphinxRecognizer(**self._arguments)

    def close(self) -> None:
        """Let the decoder go. Idempotent; later calls raise ``RecognizerError``."""
        self._closed = True
        self._decoder = None

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise RecognizerError("The PocketSphinx recognizer was closed; start a new session")

    @property
    def stream_time(self) -> float:
        """Seconds of audio consumed so far: the audio clock for ``WordStabiliser``."""
        return (self._clock + len(self._pending) // 2) / SAMPLE_RATE

    # -- endpointing -----------------------------------------------------------------------
    def _step(self, frame: bytes, speech: bool, batch: list[bytes]) -> list[Word] | None:
        """Advance one frame; return the final words if this frame ended an utterance."""
        self._clock += len(frame) // 2
        now = self._clock / SAMPLE_RATE
        if not self._in_utterance:
            self._preroll.append(frame)
            self._speech_run = self._speech_run + 1 if speech else 0
            if self._speech_run >= self.start_frames:
                self._utterance_start = now - len(self._preroll) * self._frame_seconds
                self._decoder.start_utt()
                self._in_utterance = True
                self._silence_run = 0
                batch.extend(self._preroll)
                self._preroll.clear()
            return None
        batch.append(frame)
        self._silence_run = 0 if speech else self._silence_run + 1
        too_long = now - self._utterance_start >= self.max_utterance
        if self._silence_run * self._frame_seconds >= self.silence or too_long:
            self._process(b"".join(batch))
            batch.clear()
            words = self._end_utterance()
            if too_long and speech:  # still talking: carry straight on in a new utterance
                self._utterance_start = now
                self._decoder.start_utt()
                self._in_utterance = True
            return words
        return None

    def _end_utterance(self) -> list[Word]:
        self._decoder.end_utt()
        self._in_utterance = False
        self._speech_run = 0
        hyp = self._decoder.hyp()
        timed = words_from_segments(self._decoder.seg(), self._utterance_start, self._frame_rate, final=True)
        return align_to_hypothesis(hyp.hypstr, timed) if hyp is not None else []

    def _partial(self) -> list[Word]:
        if not self._in_utterance:
            return []
        hyp = self._decoder.hyp()  # cheap mid-utterance: a backtrace, no lattice search
        if hyp is None or not hyp.hypstr:
            return []
        timed = words_from_segments(self._decoder.seg(), self._utterance_start, self._frame_rate, final=False)
        return align_to_hypothesis(hyp.hypstr, timed)

    def _process(self, data: bytes) -> None:
        try:
            self._decoder.process_raw(data)
        except RuntimeError as exc:
            raise RecognizerError(
                f"PocketSphinx failed to decode audio ({exc}); call reset() to start over"
            ) from exc
