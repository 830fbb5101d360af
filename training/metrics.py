"""Precision, recall and F1 per mark, and the micro-average over the three marks ("none" left out),
counted on label arrays and reported in percent; the ratios are ``engine.evaluation.scores``."""

from __future__ import annotations

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
