"""A scorer that answers from a script, so the decoder's logic can be tested exactly."""

import numpy as np

from engine.punctuation.scoring import Tagged, score_from_tags

SURE = {
    "none": [0.97, 0.01, 0.01, 0.01],
    "comma": [0.01, 0.97, 0.01, 0.01],
    "period": [0.01, 0.01, 0.97, 0.01],
    "question": [0.01, 0.01, 0.01, 0.97],
}
UNSURE = {
    "none": [0.40, 0.30, 0.20, 0.10],
    "comma": [0.30, 0.40, 0.20, 0.10],
    "period": [0.20, 0.30, 0.40, 0.10],
    "question": [0.20, 0.10, 0.30, 0.40],
}
LOWER = [0.9, 0.05, 0.05]


class ScriptedScorer:
    """``script(word, lookahead, pause_after) -> probabilities`` decides every answer; calls are recorded."""

    window = 32
    uses_cues = False

    def __init__(self, script):
        self.script = script
        self.calls: list[list[tuple[str, int]]] = []  # per score(): the (word, lookahead) requests
        self.windows: list[int] = []  # the right edge of every window tagged

    def tag(self, words, pauses, ends, window=None, cues=None):
        """Windows as the model sees them if every word were one token: at most window - 2 words."""
        reach = (window or self.window) - 2
        out = []
        for end in ends:
            self.windows.append(end)
            first = max(0, end - reach + 1)
            punct = [self.script(words[j], end - j, pauses[j]) for j in range(first, end + 1)]
            out.append(Tagged(first, np.array(punct, dtype=float), np.array([LOWER] * len(punct))))
        return out

    def score(self, words, pauses, requests, window=None, cues=None):
        self.calls.append([(words[p], l) for p, l in requests])
        return score_from_tags(self, words, pauses, requests, window)


class ScriptedRecognizer:
    """A recognizer that answers each ``accept`` with the next update of a script (then nothing):
    partials that change their mind, and finals, exactly as given. Words are timed 0.4 s apart."""

    name = "scripted"
    sample_rate = 16000
    # Declared as a recognizer like Vosk's: bare words, partials committed by the stabiliser.
    writes_marks = commits_words = revises_writing = multilingual = detects_language = translating = False
    language = model_path = decodes = None

    def __init__(self, script: list[tuple[list[str], list[str] | None]]):
        self.script = script  # per accept(): (partial words, final words or None)
        self.calls = 0
        self.samples = 0  # fed since the reset: like Vosk, it has heard all of them
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def another_stream(self) -> "ScriptedRecognizer":
        return ScriptedRecognizer(self.script)

    @staticmethod
    def timed(texts: list[str], first: int = 0):
        from engine.words import Word

        return [Word(t, 0.4 * (first + i), 0.4 * (first + i) + 0.3) for i, t in enumerate(texts)]

    def accept(self, pcm):
        from engine.recognizers.base import RecognizerUpdate

        step = self.script[self.calls] if self.calls < len(self.script) else ([], None)
        self.calls += 1
        self.samples += len(pcm) // 2 if isinstance(pcm, bytes) else len(pcm)
        partial, final = step
        heard = self.samples / self.sample_rate
        return RecognizerUpdate(
            self.timed(partial), None if final is None else self.timed(final), heard_through=heard
        )

    def flush(self):
        from engine.recognizers.base import RecognizerUpdate

        return RecognizerUpdate(heard_through=self.samples / self.sample_rate)

    def reset(self) -> None:
        self.calls = 0
        self.samples = 0
