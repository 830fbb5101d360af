"""Turn folders of punctuated UTF-8 .txt files into a labelled training corpus.

Reading, cleaning and labelling the text is the engine's (``engine.punctuation.labelled_text``,
which the evaluation tools share); here: the casing lexicon, the held-out split, the
corpus cache, and the command line.

    python -m training.prepare FOLDER [FOLDER...] --out /tmp/corpus.npz --stats
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from engine.punctuation.labelled_text import Document, PrepareError, prepare_folder
from engine.words import CASE_LABELS, PUNCT_LABELS

LEXICON_MIN_SHARE = 0.8  # a mixed-case spelling must win this share of mid-sentence uses
CACHE_VERSION = 1


# ---- lexicon, split, cache --------------------------------------------------
def build_lexicon(
    docs: list[Document], min_count: int = 3, min_share: float = LEXICON_MIN_SHARE
) -> dict[str, str]:
    """lowercase -> most frequent mixed-case spelling ("iphone" -> "iPhone"), for words
    spelled mixed-case in at least min_share of their uses off a sentence start."""
    forms: dict[str, Counter] = defaultdict(Counter)
    for d in docs:
        for i, form in d.mixed.items():
            if not d.sentence_initial[i]:
                forms[d.words[i]][form] += 1
    uses = Counter(
        w for d in docs for w, first in zip(d.words, d.sentence_initial) if not first and w in forms
    )
    return {
        word: c.most_common(1)[0][0]
        for word, c in forms.items()
        if sum(c.values()) >= max(min_count, min_share * uses[word])
    }


def split_documents(
    docs: list[Document], dev_fraction: float, seed: int = 0
) -> tuple[list[Document], list[Document]]:
    """(train, held-out): about dev_fraction of each source file's words is held out,
    so the 13,000 tiny fortunes cannot crowd the novels out of the held-out slice."""
    by_source: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_source[d.name.rsplit("#", 1)[0]].append(i)
    rng, held = np.random.default_rng(seed), set()
    for source in sorted(by_source):
        budget = dev_fraction * sum(len(docs[i].words) for i in by_source[source])
        for i in rng.permutation(by_source[source])[:-1]:  # a source keeps a document for training
            if budget <= 0:
                break
            held.add(int(i))
            budget -= len(docs[i].words)
    return [d for i, d in enumerate(docs) if i not in held], [d for i, d in enumerate(docs) if i in held]


def save_corpus(docs: list[Document], path: str | Path) -> None:
    """One compressed .npz, no pickled objects: words and names as '\\n'-joined
    UTF-8 bytes, labels concatenated, documents as offsets into them."""
    join = lambda strings: np.frombuffer("\n".join(strings).encode("utf-8"), dtype=np.uint8)  # no '\n' inside
    offsets = np.concatenate([[0], np.cumsum([len(d.words) for d in docs])]).astype(np.int64)
    mixed = [(int(offsets[k]) + i, form) for k, d in enumerate(docs) for i, form in sorted(d.mixed.items())]
    concat = lambda attr, dtype: np.concatenate([getattr(d, attr) for d in docs] or [np.zeros(0, dtype)])
    np.savez_compressed(
        path,
        version=np.array(CACHE_VERSION),
        offsets=offsets,
        names=join([d.name for d in docs]),
        words=join([w for d in docs for w in d.words]),
        marks=concat("marks", np.int8),
        cases=concat("cases", np.int8),
        sentence_initial=concat("sentence_initial", bool),
        mixed_forms=join([f for _, f in mixed]),
        mixed_at=np.array([i for i, _ in mixed], dtype=np.int64),
    )


def load_corpus(path: str | Path) -> list[Document]:
    unjoin = lambda array: array.tobytes().decode("utf-8").split("\n") if array.size else []
    with np.load(path, allow_pickle=False) as z:
        if int(z["version"]) != CACHE_VERSION:
            raise PrepareError(
                f"{path}: cache version {int(z['version'])}, not {CACHE_VERSION}; prepare again"
            )
        offsets, names, words = z["offsets"], unjoin(z["names"]), unjoin(z["words"])
        marks, cases, initial = z["marks"], z["cases"], z["sentence_initial"]
        mixed_at, mixed_forms = z["mixed_at"], unjoin(z["mixed_forms"])
    docs = []
    for k, name in enumerate(names):
        a, b = int(offsets[k]), int(offsets[k + 1])
        lo, hi = np.searchsorted(mixed_at, [a, b])
        mixed = {int(mixed_at[j]) - a: mixed_forms[j] for j in range(lo, hi)}
        docs.append(
            Document(name, words[a:b], marks[a:b].copy(), cases[a:b].copy(), initial[a:b].copy(), mixed)
        )
    return docs


# ---- CLI --------------------------------------------------------------------
def stats(docs: list[Document]) -> dict:
    """Per source file: words, documents, and the share (%) of each mark and case."""
    groups: dict[str, list[Document]] = defaultdict(list)
    for d in docs:
        groups[d.name.rsplit("#", 1)[0]].append(d)
    share = lambda group, attr, i: round(
        100 * np.mean(np.concatenate([getattr(d, attr) for d in group]) == i), 2
    )
    return {
        source: {
            "words": sum(len(d.words) for d in group),
            "documents": len(group),
            **{m: share(group, "marks", i) for i, m in enumerate(PUNCT_LABELS) if i},
            **{c: share(group, "cases", i) for i, c in enumerate(CASE_LABELS) if i},
        }
        for source, group in groups.items()
    }


def main(argv: list[str] | None = None) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(prog="python -m training.prepare", description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", help="folders of UTF-8 .txt files (searched recursively)")
    parser.add_argument("--out", required=True, help="the cache to write (.npz)")
    parser.add_argument(
        "--stats", action="store_true", help="print words and mark/case shares per file as JSON"
    )
    args = parser.parse_args(argv)
    t0, log = time.time(), lambda msg: print(f"prepare: {msg}", file=sys.stderr, flush=True)
    try:
        docs = [d for folder in args.folders for d in prepare_folder(folder, log=log)]
        if not docs:
            raise PrepareError("no words left after cleaning")
        save_corpus(docs, args.out)
    except (PrepareError, OSError) as e:
        print(f"prepare: error: {e}", file=sys.stderr)
        return 2
    log(
        f"{sum(len(d.words) for d in docs):,} words, {len(docs):,} documents -> {args.out} "
        f"({time.time() - t0:.1f} s)"
    )
    if args.stats:
        print(json.dumps(stats(docs), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
