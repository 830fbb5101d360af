"""Prosody: what the audio says about each recognized word, beside its text and times.

``features.word_prosody`` measures a word's pitch at its start and end, its pitch slope over its
end, its energy drop, its final syllable's length and the silence heard before it, with numpy, on
audio the recognizer already heard; ``tracker.ProsodyTracker`` keeps a session side's recent
audio and puts those measures on each committed word (``Word.prosody``). The punctuation engine
turns them into word cues (``engine.punctuation.word_cues``) relative to the speaker's recent voice.
"""

from engine.prosody.features import PROSODY_FIELDS, word_prosody
from engine.prosody.tracker import ProsodyTracker

__all__ = ["PROSODY_FIELDS", "ProsodyTracker", "word_prosody"]
