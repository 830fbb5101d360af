"""``SpeechBuffer``: the audio the Whisper recognizer has yet to finish with, on the stream's clock,
and what the VAD heard in it.

The recognizer (``whisper_rec``) decides when to decode and what to commit; this keeps the audio
those decodes hear and the VAD's bookkeeping around it:

- The Silero VAD's probabilities are judged frame by frame (32 ms) with hysteresis: where speech
  began after silence (onsets), where the latest speech ended, whether the buffer holds speech
  not yet committed, and how much speech the stream has held (for the language detection).
  Every speech frame is also told to the decode guard's ``SpeechSpans``, which drops words no
  speech supports.
- Without speech the buffer keeps only a short stretch before the next onset; live with
  ``keep_context``, an ended utterance's last committed speech through a short pause.
- Live, the buffer is trimmed at a committed sentence end once it is long, and at the last
  committed word past ``max_buffer``: a decode always costs a 30 s window, but the decoder's
  share grows with the words in the buffer.

Positions are stream samples at 16 kHz; word times are seconds on the same clock.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.audio import SAMPLE_RATE
from engine.recognizers.decode_guard import SpeechSpans
from engine.recognizers.silero_vad import FRAME
from engine.recognizers.whisper_options import WhisperOptions
from engine.words import Word

__all__ = ["CONTEXT_ONSET", "CONTEXT_PAUSE", "SENTENCE_ENDS", "SpeechBuffer"]

SENTENCE_ENDS = (".", "?", "!")
# Live with ``keep_context``: the longest pause after which the next utterance still hears the last
# one's speech, and the audio kept before the first context word's start (Whisper's word starts
# come a little late, and a word heard without its onset is misheard).
CONTEXT_PAUSE = 3.0
CONTEXT_ONSET = 0.1
# Silero's hysteresis: once in speech, a frame stays speech down to this much below the threshold.
HYSTERESIS = 0.15
# Audio kept before speech starts: Whisper needs the onset of the first word.
BEFORE_SPEECH = 0.4


class SpeechBuffer:
    """One stream's audio buffer and the VAD's view of it; a new stream gets a new buffer."""

    def __init__(self, options: WhisperOptions, live: bool, speech: SpeechSpans):
        self.options = options
        self.live = live
        self.speech = speech  # the decode guard's record of the speech frames
        self.audio = np.zeros(0, dtype=np.float32)
        self.start = 0  # stream sample of self.audio[0]
        self.samples = 0  # samples received since the stream began
        self.vad_at = 0  # stream sample up to which the VAD has judged frames
        self.last_speech = 0  # stream sample where the latest speech frame ended
        self.in_speech = False
        self.onsets: list[float] = []  # stream times where speech began after silence, in the buffer
        self.has_speech = False  # the buffer holds speech not yet committed
        self.speech_frames = 0  # speech frames heard since the stream began, for the language detection

    @property
    def start_time(self) -> float:
        """Seconds on the stream's clock where the buffer begins."""
        return self.start / SAMPLE_RATE

    @property
    def silence(self) -> float:
        """Seconds since the latest speech ended, as far as the VAD has judged the stream."""
        return (self.vad_at - self.last_speech) / SAMPLE_RATE

    def add(self, chunk: np.ndarray, probabilities: np.ndarray) -> bool:
        """Append ``chunk`` (float32) and judge the VAD's frame ``probabilities``. True where the
        buffer held no speech and now does: an utterance has begun."""
        self.audio = np.concatenate([self.audio, chunk])
        self.samples += len(chunk)
        had_speech = self.has_speech
        self._watch(probabilities)
        return self.has_speech and not had_speech

    def _watch(self, probabilities: np.ndarray) -> None:
        """Follow speech and silence, frame by frame."""
        high = self.options.speech_threshold
        for p in probabilities:
            self.vad_at += FRAME
            if p >= high or (self.in_speech and p >= high - HYSTERESIS):
                if not self.in_speech:
                    self.onsets.append((self.vad_at - FRAME) / SAMPLE_RATE)
                self.in_speech = True
                self.has_speech = True
                self.speech_frames += 1
                self.last_speech = self.vad_at
                self.speech.heard((self.vad_at - FRAME) / SAMPLE_RATE, self.vad_at / SAMPLE_RATE)
            else:
                self.in_speech = False

    def drop_silence(self) -> None:
        """No speech in the buffer: let go of all but the audio just before the next speech."""
        # The context an ended utterance left waits through a short pause only: after a long one the
        # next words rarely continue the sentence, and the buffer would hold mostly silence.
        if self.live and self.options.keep_context and self.silence < CONTEXT_PAUSE:
            return
        keep = int(BEFORE_SPEECH * SAMPLE_RATE)
        if len(self.audio) > 2 * keep:
            self.cut(len(self.audio) - keep)

    def trim(self, committed: Iterable[Word]) -> float | None:
        """Live: keep the buffer short, cutting only where every word before is committed (the
        recognizer's recent ``committed`` words, in order). The time cut at, or None."""
        seconds = len(self.audio) / SAMPLE_RATE
        if seconds <= self.options.trim_after:
            return None
        buffer_start = self.start_time
        inside = [w for w in committed if w.end is not None and w.end > buffer_start]
        ends = [w for w in inside if w.written.endswith(SENTENCE_ENDS)]
        if ends:
            at = ends[-1].end
        elif seconds > self.options.max_buffer and inside:
            at = inside[-1].end
        else:
            return None
        self.cut(int(round(at * SAMPLE_RATE)) - self.start)
        return at

    def end_utterance(self, committed: Iterable[Word]) -> None:
        """The buffer's speech is all committed: cut it, keeping what ``context_start`` keeps."""
        self.has_speech = False
        self.cut(self.context_start(committed))

    def context_start(self, committed: Iterable[Word]) -> int:
        """Where to cut the buffer at an utterance end: all of it, or, live with ``keep_context``,
        just before the ``committed`` words of its last ``keep_context`` seconds of speech. Whisper
        hears a short utterance alone far worse than with the sentence before it, above all in
        echo and noise; the local agreement knows those words as committed and skips them."""
        if not (self.live and self.options.keep_context):
            return len(self.audio)
        since = max(self.start_time, self.last_speech / SAMPLE_RATE - self.options.keep_context)
        starts = [w.start for w in committed if w.start is not None and w.start >= since]
        if not starts:
            return len(self.audio)
        return max(0, min(int((min(starts) - CONTEXT_ONSET) * SAMPLE_RATE) - self.start, len(self.audio)))

    def cut(self, samples: int) -> None:
        """Drop the buffer's first ``samples``."""
        self.audio = self.audio[samples:]
        self.start += samples
        self.onsets = [t for t in self.onsets if t >= self.start_time - 1.0]

    def after_onset(self, start: float, end: float) -> float:
        """A word's start, moved to where the VAD heard speech begin when the word straddles that
        onset: Whisper stretches the first word after a silence back over it (to the buffer's
        start), which would hide the pause before it from ``[PAUSE]`` and the exports."""
        for onset in self.onsets:
            if start < onset < end:
                return onset
        return start
