"""livecap's headless engine: audio, recognition, streaming punctuation, transcripts.

Nothing in this package imports Qt or torch.
"""

__version__ = "0.1.0"
