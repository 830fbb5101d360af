"""Tuning sweeps over an exported tagger, run on dev text apart from the reported text:
the punctuation logit biases with the entropy threshold (live), and the mask-combine settings
(offline). Each reads one pass of windows per document and varies only how the answers combine.

    python -m training.evaluate --sweep-bias --skip-words-per-file 10000 --thresholds 0.4 0.6 0.8
    python -m training.evaluate --sweep-offline --max-words-per-file 3000
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import replace

import numpy as np

from engine.punctuation.casing import CaseRenderer
from engine.punctuation.labelled_text import Document
from engine.punctuation.model import PunctuationModel
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.scoring import ModelScorer
from engine.punctuation.settings import DecoderSettings
from engine.words import CASE_LABELS, PUNCT_LABELS
from training.eval_tables import CachedScorer, run_streaming, timed_words
from training.metrics import Rows, f1_of


def log(msg: str) -> None:
    print(f"tuning: {msg}", file=sys.stderr, flush=True)


class MemoScorer:
    """The real model's ``tag``, remembered per (document and stride, window, right edge): the offline sweep's
    mask and weighting variants reuse the windows of their (W, s) instead of running them again."""

    uses_cues = False  # text documents: the windows carry no cues

    def __init__(self, model):
        self.scorer, self.window, self.memo = ModelScorer(model), model.config.window, {}
        self.document = None

    def tag(self, words, pauses, ends, window=None, cues=None):
        keys = [(self.document, window, e) for e in ends]
        todo = [e for k, e in zip(keys, ends) if k not in self.memo]
        for e, t in zip(todo, self.scorer.tag(words, pauses, todo, window)):
            self.memo[(self.document, window, e)] = t
        return [self.memo[k] for k in keys]


def sweep_offline(model: PunctuationModel, files: dict[str, list[Document]]) -> dict:
    """Overall F1 and speed of mask-combine settings on the text condition: W, s, m_l, m_r, weighting.
    The windows are the cost (``words_per_s`` is measured on each (W, s)'s first, uncached run);
    the masks and weights only change how their answers combine."""
    memo = MemoScorer(model)
    out, speed = [], {}
    for window, stride in itertools.product((48, 64, 96), (4, 8, 16)):
        if stride > window // 4:
            continue  # too few windows per word to combine anything
        for m_l, m_r, weighting in itertools.product((0, 2, 4), (2, 4, 6), (True, False)):
            settings = dict(
                window=window, stride=stride, min_left=m_l, min_right=m_r, edge_weighting=weighting
            )
            rows, t0, words_total = Rows(), time.perf_counter(), 0
            for file, docs in files.items():
                for k, d in enumerate(docs):
                    memo.document = (file, k, stride)  # so each (W, s) pays for its own windows once
                    chosen = {f"offline_{key}": value for key, value in settings.items()}
                    decoder = OfflineDecoder(memo, DecoderSettings(**chosen, pause_threshold=None))
                    settled = decoder.decode(timed_words(d.words, None, None), end_of_input=True)
                    rows.add("offline", file, d.marks, [PUNCT_LABELS.index(s.mark) for s in settled])
                    words_total += len(d.words)
            speed.setdefault((window, stride), round(words_total / (time.perf_counter() - t0), 1))
            scores = rows.punctuation("offline")
            out.append(
                {
                    **settings,
                    "f1": f1_of(scores),
                    "files": {f: r["overall"]["f1"] for f, r in scores["files"].items()},
                    "words_per_s": speed[(window, stride)],
                }
            )
        log(f"offline sweep W {window}, s {stride}: best F1 {max(r['f1'] for r in out[-18:])}")
    out.sort(key=lambda r: -r["f1"])
    return {"best": out[0], "rows": out}


NONE_BIASES = (0.0, -0.25, -0.5, -0.75, -1.0, -1.25, -1.5)
COMMA_BIASES = (0.0, 0.25, 0.5)
CASE_LOWER_BIASES = (0.0, -0.5, -1.0, -1.5, -2.0)


def sweep_bias(
    model: PunctuationModel,
    files: dict[str, list[Document]],
    thresholds=(0.4,),
    max_lookahead: float = 1.5,
) -> dict:
    """Live F1, average lookahead, fixed l = 4 and non-lowercase F1 for punctuation logit biases
    (on "none" and on "comma") and entropy thresholds, from one pass of windows per document;
    then, at the best of them, non-lowercase F1 for case logit biases on "lower" (``case``).
    Run it on dev text apart from the text that is reported (``--skip-words-per-file``)."""
    cfg, dec = model.config, model.config.decoder
    casing = CaseRenderer(cfg.lexicon)
    current = np.asarray(cfg.punct_bias, dtype=np.float32)
    current_case = np.asarray(cfg.case_bias, dtype=np.float32)

    def live(h: float) -> DecoderSettings:  # the shipped decoder with threshold h, on text without timings
        return replace(dec, threshold=h, silence_gap=None, pause_threshold=None)

    docs = []
    for file, ds in files.items():
        for d in ds:
            flags = [False] * len(d.words)
            docs.append((file, d, CachedScorer(model, d.words, flags), timed_words(d.words, None, None)))
        log(f"[bias sweep] {file} tagged")
    rows = []
    for none, comma in itertools.product(NONE_BIASES, COMMA_BIASES):
        bias = np.array([none, comma, 0.0, 0.0], dtype=np.float32)
        biased = [(file, d, scorer.reweighted(bias - current), words) for file, d, scorer, words in docs]
        fixed_l4 = Rows()  # fixed lookahead does not depend on h
        for file, d, scorer, _ in biased:
            fixed_l4.add("l4", file, d.marks, scorer.fixed(4)[0].argmax(1))
        for h in thresholds:
            marks, cases = Rows(), Rows()
            for file, d, scorer, words in biased:
                m, c, used = run_streaming(scorer, words, live(h), casing)
                marks.add("live", file, d.marks, m, used)
                cases.add("live", file, d.displayed_cases(), c)
            scores = marks.punctuation("live")
            rows.append(
                {
                    "bias": dict(zip(PUNCT_LABELS, map(float, bias))),
                    "threshold": h,
                    "live_f1": f1_of(scores),
                    "avg_lookahead": scores["overall"]["avg_lookahead"],
                    "precision": scores["overall"]["overall"]["precision"],
                    "recall": scores["overall"]["overall"]["recall"],
                    "fixed_l4_f1": f1_of(fixed_l4.punctuation("l4")),
                    "non_lower_f1": cases.casing("live")["overall"]["non_lower"]["f1"],
                    "files": {f: r["overall"]["f1"] for f, r in scores["files"].items()},
                    "cache_misses": sum(scorer.misses for _, _, scorer, _ in biased),
                }
            )
            log(f"bias {rows[-1]['bias']}, h {h}: live {rows[-1]['live_f1']} at {rows[-1]['avg_lookahead']}")
    allowed = [r for r in rows if r["avg_lookahead"] <= max_lookahead]
    best = max(allowed or rows, key=lambda r: r["live_f1"])
    # The case bias changes no mark (the punctuation does not read the case), so it is swept
    # at the chosen marks alone.
    bias = np.array(list(best["bias"].values()), dtype=np.float32)
    case_rows = []
    for lower in CASE_LOWER_BIASES:
        case_bias = np.array([lower, 0.0, 0.0], dtype=np.float32)
        cases = Rows()
        for file, d, scorer, words in docs:
            _, c, _ = run_streaming(
                scorer.reweighted(bias - current, case_bias - current_case),
                words,
                live(best["threshold"]),
                casing,
            )
            cases.add("live", file, d.displayed_cases(), c)
        scores = cases.casing("live")
        case_rows.append(
            {
                "case_bias": dict(zip(CASE_LABELS, map(float, case_bias))),
                "non_lower": scores["overall"]["non_lower"],
                "files": {f: r["non_lower"]["f1"] for f, r in scores["files"].items()},
            }
        )
        log(f"case bias {case_rows[-1]['case_bias']}: non-lowercase F1 {case_rows[-1]['non_lower']['f1']}")
    case_rows.sort(key=lambda r: -r["non_lower"]["f1"])
    return {
        "best": best,
        "rows": sorted(rows, key=lambda r: -r["live_f1"]),
        "case": {"best": case_rows[0], "rows": case_rows},
    }
