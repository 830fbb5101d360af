"""Precision, recall and F1 per mark, and the micro-average over the three marks ("none" left out),
counted on label arrays and reported in percent; the ratios are ``engine.evaluation.scores``.
``Rows`` collects the labels of an evaluation per row and file and scores them at the end."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from engine.evaluation.scores import HitCounts
from engine.words import PUNCT_LABELS


def punctuation_scores(reference, predicted) -> dict:
    ref, pred = np.asarray(reference), np.asarray(predicted)
    out, tp_all, fp_all, fn_all = {}, 0, 0, 0
    for k, name in enumerate(PUNCT_LABELS[1:], start=1):
        tp = int(((pred == k) & (ref == k)).sum())
        fp = int(((pred == k) & (ref != k)).sum())
        fn = int(((pred != k) & (ref == k)).sum())
        tp_all, fp_all, fn_all = tp_all + tp, fp_all + fp, fn_all + fn
        out[name] = _prf(tp, fp, fn) | {"support": int((ref == k).sum())}
    out["overall"] = _prf(tp_all, fp_all, fn_all)
    return out


def _prf(tp: int, fp: int, fn: int) -> dict:
    """In percent, two places: the unit of training's reports."""
    hits = HitCounts(tp, fp, fn)
    return {
        "precision": round(100 * hits.precision, 2),
        "recall": round(100 * hits.recall, 2),
        "f1": round(100 * hits.f1, 2),
    }


def casing_scores(reference, predicted) -> dict:
    """Accuracy over all words, and F1 on words whose reference is not lowercase."""
    ref, pred = np.asarray(reference), np.asarray(predicted)
    cased_ref, cased_pred = ref != 0, pred != 0
    tp = int((cased_ref & (pred == ref)).sum())
    fp = int((cased_pred & (pred != ref)).sum())
    fn = int((cased_ref & (pred != ref)).sum())
    return {
        "accuracy": round(100 * float((ref == pred).mean()), 2) if len(ref) else 0.0,
        "non_lower": _prf(tp, fp, fn) | {"support": int(cased_ref.sum())},
    }


class Rows:
    """Reference and predicted labels per row and file, scored at the end."""

    def __init__(self):
        self.data: dict = defaultdict(lambda: defaultdict(lambda: ([], [], [])))

    def add(self, key, file: str, ref, pred, lookahead=None) -> None:
        refs, preds, looks = self.data[key][file]
        refs.append(np.asarray(ref, dtype=int))
        preds.append(np.asarray(pred, dtype=int))
        if lookahead is not None:
            looks.append(np.asarray(lookahead, dtype=float))

    def _cat(self, key, file=None):
        files = [file] if file else list(self.data[key])
        parts = [self.data[key][f] for f in files]
        cat = [
            np.concatenate([a for p in parts for a in p[k]]) if any(p[k] for p in parts) else None
            for k in range(3)
        ]
        return cat

    def punctuation(self, key, full: bool = True) -> dict:
        """{"overall": scores, "files": {file: scores}} (+ "avg_lookahead"); compact rows keep only F1s."""

        def one(file=None):
            ref, pred, look = self._cat(key, file)
            s = punctuation_scores(ref, pred)
            row = s if full else {"f1": s["overall"]["f1"], **{m: s[m]["f1"] for m in PUNCT_LABELS[1:]}}
            if look is not None:
                row = {**row, "avg_lookahead": round(float(look.mean()), 3)}
            return row

        return {"overall": one(), "files": {f: one(f) for f in self.data[key]}}

    def casing(self, key) -> dict:
        def one(file=None):
            ref, pred, _ = self._cat(key, file)
            return casing_scores(ref, pred)

        return {"overall": one(), "files": {f: one(f) for f in self.data[key]}}


def f1_of(row: dict) -> float:
    return row["overall"]["overall"]["f1"]
