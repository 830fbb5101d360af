"""Audio sources: microphone, system audio (meetings) and files, all delivered as 16 kHz mono int16."""

# The one sample rate of the pipeline: every source delivers it, every recognizer is fed it.
# Defined here, not in ``base``, so recognizers can import it without loading the resampler.
SAMPLE_RATE = 16_000
