"""Training windows: a window ends at a random word, and every word in it is labelled.

Built with the engine's own ``build_window``, so training and the live decoder read the
same tokens. Each window is roughened the way live captions are rough:
- ASR-like noise: words substituted, deleted or inserted at a small rate;
- contextual dropout (Silva, Theobald and Apostoloff, *Multimodal punctuation prediction with
  contextual dropout*, §3): the last words of some windows become a drop token, so the model
  does not lean on any one future word; the future is also cut short by the random right edge;
- timings: our text has no audio, so a window is given a timeline drawn from what recognizers
  really produced on synthesised speech (``training.speech_cues``): the gap after each word and
  its lengthening given the mark after it, and the speaker's pace. ``[PAUSE]`` follows the drawn
  gaps, and the model's word cues (``engine.punctuation.word_cues``) are computed from the same
  timeline; some windows also carry a recognizer's written marks as hints, corrupted as that
  recognizer corrupts them. Whole windows go without timings (bare text), so the model uses
  them without depending on them. A model without cues keeps the older synthetic pauses: a
  pause after a word with a probability that depends on its mark.

Each label carries its lookahead (words to its right inside the window), which the loss
weights: the live decoder reads words at lookahead 0-4, the offline decoder further left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.punctuation.model_inputs import DEFAULT_PAUSE_THRESHOLD, SpecialIds, WordTokenizer, build_window
from engine.punctuation.word_cues import CUE_COUNT, letters

IGNORE = -100  # label value that the loss skips


@dataclass
class Noise:
    substitute: float = 0.02
    delete: float = 0.02  # only words with no mark after them: deleting "end." would move a label
    insert: float = 0.02
    future_dropout: float = 0.15  # share of windows whose last 1-2 words become the drop token
    # P(pause after a word | its mark). Periods and questions: most sentence ends are audible
    # pauses; commas: about a third; plain word gaps rarely pass the 0.28 s threshold (Minixhofer
    # 2021, §3.3, reports 7.9 % of word transitions above it, most of them at punctuation).
    pause_given_mark: tuple[float, float, float, float] = (0.03, 0.35, 0.75, 0.75)
    pause_dropout: float = 0.4  # share of windows with no pause tokens at all (text-only input)
    last_pause: float = 0.3  # the gap after the newest word is rarely known yet
    hints: float = 0.4  # share of timed windows that also carry a recognizer's written marks
    # Each timed window's gaps times a factor drawn log-uniformly from this range. The gaps come
    # from one synthesiser's readings, and people (and other voices) pause longer or shorter than
    # it does; stretched gaps teach the model a long pause it never heard, and to read a pause
    # against the window's other pauses rather than as an absolute length. (1, 1): as measured.
    pause_stretch: tuple[float, float] = (1.0, 1.0)
    enabled: bool = True


@dataclass
class WordStream:
    """All documents as flat arrays; each word knows where its document starts."""

    word_ids: list[tuple[int, ...]]  # WordPiece ids per word
    marks: np.ndarray
    cases: np.ndarray  # case label, IGNORE where sentence-initial
    displayed: np.ndarray  # case as written, sentence-initial capitals included (what hints see)
    letters: np.ndarray  # letters + 2 per word (``word_cues.letters``): what a word's duration scales with
    doc_start: np.ndarray
    source: np.ndarray  # index into ``sources``: which file each word came from
    sources: list[str]
    vocab_pool: list[tuple[int, ...]] = field(default_factory=list)  # random words for noise

    def __len__(self) -> int:
        return len(self.marks)


def source_of(document_name: str) -> str:
    """'folder/file.txt#3' -> 'file': the source file a document was cut from."""
    return document_name.rsplit("#", 1)[0].rsplit("/", 1)[-1].removesuffix(".txt")


def build_stream(docs, tokenizer: WordTokenizer) -> WordStream:
    unique = sorted({w for d in docs for w in d.words})
    ids = dict(zip(unique, tokenizer.encode_words(unique)))
    sources = sorted({source_of(d.name) for d in docs})
    index = {s: k for k, s in enumerate(sources)}
    word_ids, marks, cases, starts, source, displayed, letter_counts = [], [], [], [], [], [], []
    for d in docs:
        n0 = len(word_ids)
        word_ids += [ids[w] for w in d.words]
        marks.append(np.asarray(d.marks, dtype=np.int64))
        c = np.asarray(d.cases, dtype=np.int64).copy()
        c[np.asarray(d.sentence_initial, dtype=bool)] = IGNORE  # the decoder derives those capitals
        cases.append(c)
        displayed.append(np.asarray(d.displayed_cases(), dtype=np.int64))
        letter_counts.append(np.array([letters(w) for w in d.words], dtype=np.int64))
        starts.append(np.full(len(d.words), n0))
        source.append(np.full(len(d.words), index[source_of(d.name)], dtype=np.int32))
    empty = lambda dtype: [np.zeros(0, dtype)]
    return WordStream(
        word_ids,
        np.concatenate(marks or empty(np.int64)),
        np.concatenate(cases or empty(np.int64)),
        np.concatenate(displayed or empty(np.int64)),
        np.concatenate(letter_counts or empty(np.int64)),
        np.concatenate(starts or empty(np.int64)),
        np.concatenate(source or empty(np.int32)),
        sources,
        [ids[w] for w in unique],
    )


@dataclass
class Labelled:
    """One window and, per token, its labels (IGNORE off the carriers) and its word's lookahead."""

    ids: list[int]
    marks: np.ndarray
    cases: np.ndarray
    lookahead: np.ndarray  # -1 off the carriers
    cues: np.ndarray | None = None  # [len(ids), CUE_COUNT] when the maker draws cues


def labelled(built, marks, cases) -> Labelled:
    """A built window (``build_window``) with each word's mark and case on its carrier token, and
    its lookahead; ``marks[j]`` and ``cases[j]`` belong to the window's word list's word j."""
    n = len(built.ids)
    out_marks = np.full(n, IGNORE, dtype=np.int64)
    out_cases = np.full(n, IGNORE, dtype=np.int64)
    lookahead = np.full(n, -1, dtype=np.int64)
    for k, token in enumerate(built.carriers):
        out_marks[token], out_cases[token] = marks[built.first + k], cases[built.first + k]
        lookahead[token] = len(built.carriers) - 1 - k
    return Labelled(built.ids, out_marks, out_cases, lookahead, built.cues)


def stretch_factor(bounds: tuple[float, float], rng: np.random.Generator) -> float:
    """A factor drawn log-uniformly between ``bounds`` (no draw when they are equal, so the
    measured gaps keep their random sequence)."""
    low, high = bounds
    if low == high:
        return float(low)
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


class WindowMaker:
    def __init__(self, stream: WordStream, special: SpecialIds, noise: Noise | None = None, cues=None):
        """``cues``: a ``training.speech_cues.SpeechCues`` to draw timings and hints from (a model
        that reads word cues); None keeps the older synthetic pauses and no cues."""
        self.s, self.special = stream, special
        self.noise = noise or Noise(enabled=False)
        self.cues = cues

    def make(self, end: int, window: int, rng: np.random.Generator, pauses: bool | None = None) -> Labelled:
        """The window of at most ``window`` tokens ending at word ``end``. ``pauses``: force
        synthetic pauses on (True) or off (False); None draws them as the noise says."""
        s, noise = self.s, self.noise
        lo = max(int(s.doc_start[end]), end - window)  # each word is >= 1 token: enough words
        words = [
            (s.word_ids[j], int(s.marks[j]), int(s.cases[j]), int(s.letters[j]), int(s.displayed[j]))
            for j in range(lo, end + 1)
        ]
        if noise.enabled:
            words = self.asr_noise(words, rng)
            if rng.random() < noise.future_dropout and len(words) > 3:
                for k in range(1, int(rng.integers(1, 3)) + 1):
                    _, _, _, n_letters, shown = words[-k]
                    words[-k] = ((self.special.drop,), IGNORE, IGNORE, n_letters, shown)
        flags, cue_rows = None, None
        with_pauses = (noise.enabled and rng.random() >= noise.pause_dropout) if pauses is None else pauses
        if with_pauses and self.cues is not None:
            last_known = rng.random() < noise.last_pause
            cue_rows, gaps = self.cues.draw(
                np.array([w[3] for w in words]),
                np.array([w[1] for w in words]),
                np.array([w[4] for w in words]),
                rng,
                hints=rng.random() < noise.hints,
                last_gap_known=last_known,
                gap_scale=stretch_factor(noise.pause_stretch, rng),
            )
            flags = list(gaps >= DEFAULT_PAUSE_THRESHOLD)  # a NaN (unknown) gap is no pause
        elif with_pauses:
            p = np.asarray(noise.pause_given_mark)[[max(w[1], 0) for w in words]]
            flags = list(rng.random(len(words)) < p)
            flags[-1] = flags[-1] and rng.random() < noise.last_pause
        if self.cues is not None and cue_rows is None:
            cue_rows = np.zeros((len(words), CUE_COUNT), dtype=np.float32)  # bare text
        built = build_window([w[0] for w in words], len(words) - 1, self.special, flags, window, cue_rows)
        return labelled(built, [w[1] for w in words], [w[2] for w in words])

    def asr_noise(self, words, rng):
        """Misheard, missed and extra words; a word with a mark after it, and the last word,
        are never deleted."""
        n, pool = self.noise, self.s.vocab_pool
        out = []
        last = len(words) - 1
        for k, (w, m, c, n_letters, shown) in enumerate(words):
            r = rng.random()
            if r < n.delete:
                if m == 0 and k != last:  # the window still ends at its own word
                    continue
            elif r < n.delete + n.substitute:
                w, c = pool[rng.integers(len(pool))], IGNORE  # a misheard word: its case means nothing
            out.append((w, m, c, n_letters, shown))
            if rng.random() < n.insert:
                out.append((pool[rng.integers(len(pool))], 0, IGNORE, 6, 0))
        return out


def collate_cues(windows: list[Labelled], count: int) -> np.ndarray:
    """The windows' cue rows right-padded into float32 [B, T, count] (T as ``collate``'s)."""
    width = max(len(w.ids) for w in windows)
    out = np.zeros((len(windows), width, count), dtype=np.float32)
    for row, w in enumerate(windows):
        if w.cues is not None:
            out[row, : len(w.ids)] = w.cues
    return out


def collate(windows: list[Labelled], pad_id: int) -> tuple[np.ndarray, ...]:
    """Right-padded ``input_ids``, ``attention_mask``, punct labels, case labels, lookaheads [B, T]."""
    width = max(len(w.ids) for w in windows)
    b = len(windows)
    ids = np.full((b, width), pad_id, dtype=np.int64)
    mask = np.zeros((b, width), dtype=np.int64)
    marks = np.full((b, width), IGNORE, dtype=np.int64)
    cases = np.full((b, width), IGNORE, dtype=np.int64)
    lookahead = np.full((b, width), -1, dtype=np.int64)
    for row, w in enumerate(windows):
        n = len(w.ids)
        ids[row, :n], mask[row, :n] = w.ids, 1
        marks[row, :n], cases[row, :n], lookahead[row, :n] = w.marks, w.cases, w.lookahead
    return ids, mask, marks, cases, lookahead
