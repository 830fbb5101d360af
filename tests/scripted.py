"""A scorer that answers from a script, so the decoder's logic can be tested exactly."""

import numpy as np

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

    def __init__(self, script):
        self.script = script
        self.calls: list[list[tuple[str, int]]] = []

    def score(self, words, pauses, requests, window=None):
        self.calls.append([(words[p], l) for p, l in requests])
        punct = np.array([self.script(words[p], l, pauses[p]) for p, l in requests], dtype=float)
        case = np.array([LOWER for _ in requests], dtype=float)
        return punct, case
