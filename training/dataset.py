"""Training samples: one per word position, built with the engine's own ``build_sample``.

Each draw picks a lookahead l in [l_min, l_max] and then roughens the window the
way live captions are rough:
- ASR-like noise: context words substituted, deleted or inserted at a small rate;
- contextual dropout (Silva, Theobald and Apostoloff, Multimodal punctuation prediction with
  contextual dropout, §3): future words replaced by a drop token, or
  half or all of the future cut away, so any lookahead the decoder gives works;
- synthetic ``[PAUSE]`` tokens: our text has no timings, so a pause follows a word
  with a probability that depends on the mark after it (speakers pause at
  sentence ends far more than between words), and whole samples go without
  pauses, so the model uses them without depending on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.punctuation.model_inputs import SpecialIds, WordTokenizer, build_sample

IGNORE = -100  # label value that the loss skips


@dataclass
class Noise:
    substitute: float = 0.02
    delete: float = 0.02
    insert: float = 0.02
    future_dropout: float = 0.2  # share of samples whose future context is damaged
    # P(pause after a word | its mark). Periods and questions: most sentence ends are audible
    # pauses; commas: about a third; plain word gaps rarely pass the 0.28 s threshold (Minixhofer
    # 2021, §3.3, reports 7.9 % of word transitions above it, most of them at punctuation).
    pause_given_mark: tuple[float, float, float, float] = (0.03, 0.35, 0.75, 0.75)
    pause_dropout: float = 0.4  # share of samples with no pause tokens at all (text-only input)
    enabled: bool = True


@dataclass
class WordStream:
    """All documents as flat arrays; each word knows where its document starts and ends."""

    word_ids: list[tuple[int, ...]]  # WordPiece ids per word
    marks: np.ndarray
    cases: np.ndarray  # case label, IGNORE where sentence-initial
    doc_start: np.ndarray
    doc_end: np.ndarray  # exclusive
    vocab_pool: list[tuple[int, ...]] = field(default_factory=list)  # random words for noise

    def __len__(self) -> int:
        return len(self.marks)


def build_stream(docs, tokenizer: WordTokenizer) -> WordStream:
    unique = sorted({w for d in docs for w in d.words})
    ids = dict(zip(unique, tokenizer.encode_words(unique)))
    word_ids, marks, cases, starts, ends = [], [], [], [], []
    for d in docs:
        n0 = len(word_ids)
        word_ids += [ids[w] for w in d.words]
        marks.append(np.asarray(d.marks, dtype=np.int64))
        c = np.asarray(d.cases, dtype=np.int64).copy()
        c[np.asarray(d.sentence_initial, dtype=bool)] = IGNORE
        cases.append(c)
        starts.append(np.full(len(d.words), n0))
        ends.append(np.full(len(d.words), n0 + len(d.words)))
    pool = [ids[w] for w in unique]
    return WordStream(
        word_ids,
        np.concatenate(marks),
        np.concatenate(cases),
        np.concatenate(starts),
        np.concatenate(ends),
        pool,
    )


def balanced_positions(stream: WordStream, none_ratio: float, rng: np.random.Generator) -> np.ndarray:
    """Every marked position, plus "none" positions downsampled to ``none_ratio`` x the commonest mark."""
    counts = np.bincount(stream.marks, minlength=4)
    keep_none = int(min(counts[0], none_ratio * counts[1:].max()))
    none = np.flatnonzero(stream.marks == 0)
    chosen = np.concatenate([np.flatnonzero(stream.marks != 0), rng.choice(none, keep_none, replace=False)])
    rng.shuffle(chosen)
    return chosen


class SampleMaker:
    def __init__(
        self,
        stream: WordStream,
        special: SpecialIds,
        window: int = 32,
        l_min: int = 0,
        l_max: int = 4,
        noise: Noise | None = None,
    ):
        self.s, self.special, self.window = stream, special, window
        self.l_min, self.l_max = l_min, l_max
        self.noise = noise or Noise(enabled=False)

    def make(self, i: int, rng: np.random.Generator, lookahead: int | None = None) -> list[int]:
        s, noise = self.s, self.noise
        l = int(rng.integers(self.l_min, self.l_max + 1)) if lookahead is None else lookahead
        lo = max(int(s.doc_start[i]), i - self.window)  # each word is >= 1 token: enough left context
        hi = min(int(s.doc_end[i]), i + l + 1)
        left = [(s.word_ids[j], int(s.marks[j])) for j in range(lo, i)]
        right = [(s.word_ids[j], int(s.marks[j])) for j in range(i + 1, hi)]
        if noise.enabled:
            left, right = self._asr_noise(left, rng), self._asr_noise(right, rng)
            if right and rng.random() < noise.future_dropout:
                choice = rng.integers(3)
                if choice == 0:
                    right = [((self.special.drop,), m) if rng.random() < 0.5 else (w, m) for w, m in right]
                elif choice == 1:
                    right = right[: len(right) // 2]
                else:
                    right = []
        words = left + [(s.word_ids[i], int(s.marks[i]))] + right
        ids = [w for w, _ in words]
        pauses = None
        if noise.enabled and rng.random() >= noise.pause_dropout:
            p = np.asarray(noise.pause_given_mark)[[m for _, m in words]]
            pauses = list(rng.random(len(words)) < p)
            pauses[-1] = pauses[-1] and rng.random() < 0.3  # the last gap is rarely known yet
        return build_sample(ids, len(left), len(right), self.special, pauses, self.window)

    def _asr_noise(self, words, rng):
        n = self.noise
        out = []
        for w, m in words:
            r = rng.random()
            if r < n.delete:
                continue
            if r < n.delete + n.substitute:
                w = self.s.vocab_pool[rng.integers(len(self.s.vocab_pool))]
            out.append((w, m))
            if rng.random() < n.insert:
                out.append((self.s.vocab_pool[rng.integers(len(self.s.vocab_pool))], 0))
        return out

    def batch(self, positions, rng, lookahead: int | None = None):
        samples = [self.make(int(i), rng, lookahead) for i in positions]
        return samples, self.s.marks[positions], self.s.cases[positions]
