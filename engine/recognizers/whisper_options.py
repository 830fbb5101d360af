"""``WhisperOptions``: how the Whisper recognizer (``whisper_rec``) decodes, each setting
documented once here; the command line's ``--whisper-option``, the measuring tools and the kinds'
openers (``kinds``) all name these fields."""

from __future__ import annotations

from dataclasses import dataclass

from engine.recognizers.local_agreement import SETTLE_AFTER

__all__ = ["FILE_BEAM", "TASKS", "WINDOW", "WhisperOptions"]

WINDOW = 30.0  # Whisper's window: audio past it is not heard in one decode
TASKS = ("transcribe", "translate")
FILE_BEAM = 5  # a file's beam when ``beam_size`` is None: faster-whisper's own default


@dataclass(frozen=True)
class WhisperOptions:
    """How the Whisper recognizer decodes. The live defaults were chosen from the cadence curve in
    docs/PERFORMANCE.md (latency against CPU and WER) and from live against file on the same audio
    (docs/experiments, "Live Whisper against the same audio as a file")."""

    cadence: float = 0.75  # live: seconds of new audio between two decodes while speech goes on
    threads: int | None = None  # CTranslate2 threads; None: 1 live (a core stays free), up to 4 for files
    prompt: bool = False  # live: prompt each decode with the committed text before the buffer
    end_silence: float = 0.5  # seconds of silence that end an utterance
    trim_after: float = 8.0  # live: past this buffer length, trim at the last committed sentence end
    max_buffer: float = 15.0  # live: past this, trim at the last committed word whatever it is
    pack: float = 24.0  # files: decode once this much audio is gathered and an utterance has ended
    speech_threshold: float = 0.5  # Silero's probability above which a frame is speech
    # None: greedy live, where each decode is redone 0.75 s later and its CPU is the cost that
    # counts; a beam of ``FILE_BEAM`` for files, decoded once, where it gains the most in echo and
    # on calls for about a fifth more CPU (docs/QUALITY_ROOMS.md)
    beam_size: int | None = None
    # live: words a later decode must have heard past a committed word before its mark and capital
    # settle (``LocalAgreement``); its text is final at once
    settle_after: int = SETTLE_AFTER
    # live: a hypothesis commits the words it shares with either of the two before it, not only
    # with the one just before (``LocalAgreement.two_of_three``): for a model whose decodes waver
    two_of_three: bool = False
    # live: the encoder hears the buffer and this many seconds of silence after it, at least
    # ``encoder_least`` seconds, not Whisper's whole 30 s window: a short buffer's decode then costs
    # a fraction of the CPU. A 20 s window gave about the same words in echo and on calls, and
    # cost the commit bound on 2 cores (docs/QUALITY_ROOMS.md); 0: the whole
    # window, as files
    encoder_margin: float = 1.0
    encoder_least: float = 10.0
    # A multilingual model's language ("de"); None: told from the first speech (``DETECT_AFTER``).
    # An English-only model hears English whatever this says.
    language: str | None = None
    # "transcribe": the words as spoken; "translate": English words (a multilingual model only).
    task: str = "transcribe"
    # live: seconds of an ended utterance's committed speech kept in the buffer, which the next
    # utterance's decodes hear again as context, as a file's window hears the sentences before it
    # (a pause shorter than ``CONTEXT_PAUSE`` in ``speech_buffer``); 0: each utterance heard alone
    keep_context: float = 5.0
    # live: space decodes out while one takes longer than the cadence, so that a slow CPU never
    # falls further and further behind. Off only where the audio waits for the decodes (a file fed
    # in lockstep for measuring): the decodes then depend on the audio, not on the machine's load.
    keep_pace: bool = True

    def beam(self, live: bool) -> int:
        """The beam a decode uses: ``beam_size`` where it is set, else greedy live and
        ``FILE_BEAM`` for files."""
        if self.beam_size is not None:
            return self.beam_size
        return 1 if live else FILE_BEAM

    def __post_init__(self):
        if self.beam_size is not None and not 1 <= self.beam_size <= 16:
            raise ValueError(f"beam_size must be 1 to 16, got {self.beam_size}")
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        if not 0.1 <= self.cadence <= 10:
            raise ValueError(f"cadence must be between 0.1 and 10 seconds, got {self.cadence}")
        if self.encoder_margin < 0 or not 0 <= self.encoder_least <= WINDOW:
            raise ValueError(f"encoder_margin must be >= 0 and encoder_least 0 to {WINDOW:.0f} seconds")
        if self.pack > WINDOW - 1 or self.max_buffer > WINDOW - 1:
            raise ValueError(f"pack and max_buffer must stay under Whisper's {WINDOW:.0f} s window")
