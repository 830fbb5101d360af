"""Evaluate an exported (int8 ONNX) punctuation model on the dev texts, through the engine's own code.

    python -m training.evaluate [--model-dir DIR] [--dev FOLDER] [--max-words-per-file N]
                                [--out report.json] [--figure etd.png] [--threads 2]

Every decoder in the engine only ever asks the model one question: "which mark
follows word i, given l words after it, in a window of w tokens?". So for each
document and condition we ask the real ``ModelScorer`` (``build_sample`` +
``PunctuationModel``) that question ONCE for every position and every (l, w)
any decoder needs, in batches, and keep the answers in a ``Table``. Then:

- fixed lookahead l: the argmax of the table at l (near the end of a document
  the sample simply has less lookahead, exactly as ``build_sample`` clips it);
- entropy threshold decoding: the engine's own ``StreamingDecoder`` runs over
  the words with a ``TableScorer`` that answers its requests from the table;
- offline: the engine's own ``OfflineDecoder`` runs with a ``TableScorer``.

A ``TableScorer`` only answers when the request's context (the words and
``[PAUSE]`` flags the sample can reach) is exactly what the table was built
with; anything else goes to the real model (counted as ``table_misses``). So the
decoders see the same probabilities they would see live, and an h sweep costs
decoder time, not model time.

Conditions:
- ``text``: no ``[PAUSE]`` tokens (all pauses False), the main rows;
- ``pauses``: the dev text has no timings, so pauses are synthesised from the
  reference marks by the training rule (``Noise.pause_given_mark``, fixed seed).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.evaluation.corpus import dev_corpus
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.labelled_text import Document, PrepareError, prepare_folder
from engine.punctuation.model import ModelError, PunctuationModel, default_model_dir
from engine.punctuation.streaming import ModelScorer
from engine.words import CASE_LABELS, PUNCT_LABELS
from training.dataset import Noise
from training.eval_tables import build_table, run_offline, run_streaming, synthesize_pauses, timed_words
from training.metrics import casing_scores, punctuation_scores

DEFAULT_MAX_WORDS = 10_000
THRESHOLDS = tuple(round(0.1 * k, 1) for k in range(1, 16))  # 0.1 .. 1.5 bits
FIXED_LOOKAHEADS = tuple(range(5))  # 0 .. 4
# The sweep varies h only; l_min and l_max are the model's own (config.json), so that every row is
# a setting the app's latency slider can choose (engine/punctuation/latency.py reads these rows).
SWEEP_L_MIN = 1
PERIOD = PUNCT_LABELS.index("period")
# Targets the project set itself (see the report's "targets" block).
TARGET_F1_L4, TARGET_F1_L0 = 75.0, 55.0
TARGET_AVG_LOOKAHEAD, TARGET_GAP_L4 = 1.5, -2.0
TARGET_QUESTION_F1, TARGET_NON_LOWER_F1 = 70.0, 85.0
SUGGEST_WITHIN, SUGGEST_MAX_LOOKAHEAD = 1.0, 1.5


def log(msg: str) -> None:
    print(f"evaluate: {msg}", file=sys.stderr, flush=True)


# ---- bookkeeping ------------------------------------------------------------------
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
    return row["overall"]["overall"]["f1"] if "overall" in row["overall"] else row["overall"]["f1"]


# ---- data -----------------------------------------------------------------------------
def load_dev(folder: Path, max_words: int) -> dict[str, list[Document]]:
    """file -> its first ``max_words`` words as documents (in order; the last one is cut at a sentence
    end when there is one in its second half, so the stream ends as a real one would)."""
    docs = prepare_folder(folder, log=log)
    files: dict[str, list[Document]] = defaultdict(list)
    budget: dict[str, int] = {}
    for d in docs:
        file = d.name.rsplit("#", 1)[0]
        left = budget.setdefault(file, max_words if max_words > 0 else sys.maxsize)
        if left <= 0:
            continue
        if len(d.words) > left:
            ends = np.flatnonzero(d.marks[:left] >= PERIOD) + 1
            cut = int(ends[-1]) if len(ends) and ends[-1] >= left // 2 else left
            d = Document(
                d.name,
                d.words[:cut],
                d.marks[:cut].copy(),
                d.cases[:cut].copy(),
                d.sentence_initial[:cut].copy(),
                {k: v for k, v in d.mixed.items() if k < cut},
            )
            left = 0
        else:
            left -= len(d.words)
        budget[file] = left
        files[file].append(d)
    return dict(files)


# ---- the evaluation -----------------------------------------------------------------------
def evaluate(
    model: PunctuationModel,
    files: dict[str, list[Document]],
    thresholds: Sequence[float] = THRESHOLDS,
    batch: int = 256,
    seed: int = 0,
) -> dict:
    cfg = model.config
    dec = cfg.decoder
    window = cfg.window
    scorer = ModelScorer(model)
    casing = CaseRenderer(cfg.lexicon)
    offline_views = [tuple(v) for v in dec.offline_views]
    top = max(max(FIXED_LOOKAHEADS), dec.l_max)
    text_views = {(l, window) for l in range(top + 1)} | set(offline_views)
    pause_views = {(l, window) for l in FIXED_LOOKAHEADS} | set(offline_views)
    live_views = {(l, window) for l in range(max(max(FIXED_LOOKAHEADS), dec.l_max) + 1)}
    use_pauses = cfg.pause_threshold is not None
    noise = Noise()

    recommended = dict(
        l_min=dec.l_min, l_max=dec.l_max, threshold=dec.threshold, silence_gap=None, pause_threshold=None
    )
    sweep_settings = {
        h: dict(l_min=SWEEP_L_MIN, l_max=dec.l_max, threshold=h, silence_gap=None, pause_threshold=None)
        for h in thresholds
    }
    lmin0 = dict(recommended, l_min=0)

    rows, case_rows = Rows(), Rows()
    misses = defaultdict(int)
    samples = defaultdict(int)
    model_seconds = 0.0
    pause_count = [0, 0]  # pauses, words
    for file, docs in files.items():
        rng = np.random.default_rng([seed, zlib.crc32(file.encode("utf-8"))])
        n_words = sum(len(d.words) for d in docs)
        # -- text: no [PAUSE] tokens -------------------------------------------------
        t0 = time.perf_counter()
        tables = [build_table(scorer, d.words, [False] * len(d.words), text_views, batch) for d in docs]
        model_seconds += time.perf_counter() - t0
        samples["text"] += sum(t.samples for t in tables)
        log(
            f"[text] {file}: {n_words:,} words, {sum(t.samples for t in tables):,} samples "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        t1 = time.perf_counter()
        for d, table in zip(docs, tables):
            ref, words = d.marks, timed_words(d.words, None, None)
            for l in FIXED_LOOKAHEADS:
                rows.add(("text", "fixed", l), file, ref, table.punct[(window, l)].argmax(axis=1))
            rows.add(("text", "trivial"), file, ref, np.zeros(len(ref), dtype=int))
            for h, settings in sweep_settings.items():
                m, _, used, s = run_streaming(table, words, window, scorer, settings, casing)
                rows.add(("text", "etd", h), file, ref, m, used)
                misses["text"] += s.misses
            m, c, used, s = run_streaming(table, words, window, scorer, recommended, casing)
            rows.add(("text", "recommended"), file, ref, m, used)
            case_rows.add(("streaming", "all"), file, d.cases, c)
            keep = ~d.sentence_initial
            case_rows.add(("streaming", "mid"), file, d.cases[keep], c[keep])
            misses["text"] += s.misses
            m, _, used, s = run_streaming(table, words, window, scorer, lmin0, casing)
            rows.add(("text", "lmin0"), file, ref, m, used)
            misses["text"] += s.misses
            m, c, head, s = run_offline(table, words, window, scorer, offline_views, None, casing)
            rows.add(("text", "offline"), file, ref, m)
            misses["text"] += s.misses
            case_rows.add(("offline", "all"), file, d.cases, c)
            case_rows.add(("offline", "mid"), file, d.cases[keep], c[keep])
            # the case head alone: its argmax through the renderer as if mid-sentence (lexicon, "I")
            alone = [
                CASE_LABELS.index(casing.render(w, CASE_LABELS[k], "none")[0]) for w, k in zip(d.words, head)
            ]
            case_rows.add(("offline", "head"), file, d.cases[keep], np.asarray(alone)[keep])
        log(
            f"[text] {file}: decoders: {len(thresholds)} thresholds + recommended + l_min=0 + offline "
            f"({time.perf_counter() - t1:.1f} s)"
        )
        if not use_pauses:
            continue
        # -- pauses: synthesised from the reference marks --------------------------------
        t0 = time.perf_counter()
        flags = [synthesize_pauses(d.marks, rng, noise.pause_given_mark) for d in docs]
        known = [build_table(scorer, d.words, f, pause_views, batch) for d, f in zip(docs, flags)]
        live = [
            build_table(scorer, d.words, f, live_views, batch, last_gap_unknown=True)
            for d, f in zip(docs, flags)
        ]
        model_seconds += time.perf_counter() - t0
        samples["pauses"] += sum(t.samples for t in known + live)
        log(
            f"[pauses] {file}: {sum(t.samples for t in known + live):,} samples "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        t1 = time.perf_counter()
        for d, f, table, table_live in zip(docs, flags, known, live):
            ref = d.marks
            for l in FIXED_LOOKAHEADS:
                rows.add(("pauses", "fixed", l), file, ref, table.punct[(window, l)].argmax(axis=1))
                rows.add(("pauses", "fixed_live", l), file, ref, table_live.punct[(window, l)].argmax(axis=1))
            rows.add(("pauses", "trivial"), file, ref, np.where(f, PERIOD, 0))
            words = timed_words(d.words, f, cfg.pause_threshold)
            m, _, _, s = run_offline(table, words, window, scorer, offline_views, cfg.pause_threshold, casing)
            rows.add(("pauses", "offline"), file, ref, m)
            misses["pauses_offline"] += s.misses
            live_settings = dict(recommended, pause_threshold=cfg.pause_threshold)
            m, _, used, s = run_streaming(table_live, words, window, scorer, live_settings, casing)
            rows.add(("pauses", "recommended_live"), file, ref, m, used)
            misses["pauses_streaming"] += s.misses
            pause_count[0] += sum(f)
            pause_count[1] += len(f)
        log(f"[pauses] {file}: decoders ({time.perf_counter() - t1:.1f} s)")

    return assemble(
        rows,
        case_rows,
        files,
        cfg,
        thresholds,
        offline_views,
        dict(misses),
        dict(samples),
        model_seconds,
        use_pauses,
        noise,
        seed,
        pause_count,
    )


def assemble(
    rows: Rows,
    case_rows: Rows,
    files,
    cfg,
    thresholds,
    offline_views,
    misses,
    samples,
    model_seconds,
    use_pauses,
    noise,
    seed,
    pause_count,
) -> dict:
    dec = cfg.decoder
    fixed = {str(l): rows.punctuation(("text", "fixed", l)) for l in FIXED_LOOKAHEADS}
    f1_l4, f1_l0 = f1_of(fixed["4"]), f1_of(fixed["0"])
    sweep = []
    for h in thresholds:
        r = rows.punctuation(("text", "etd", h), full=False)
        sweep.append(
            {
                "threshold": h,
                "f1": r["overall"]["f1"],
                "avg_lookahead": r["overall"]["avg_lookahead"],
                "per_mark_f1": {m: r["overall"][m] for m in PUNCT_LABELS[1:]},
                "files": {
                    f: {"f1": v["f1"], "avg_lookahead": v["avg_lookahead"]} for f, v in r["files"].items()
                },
            }
        )
    rec = rows.punctuation(("text", "recommended"))
    rec_f1, rec_look = f1_of(rec), rec["overall"]["avg_lookahead"]
    lmin0 = rows.punctuation(("text", "lmin0"))
    offline = rows.punctuation(("text", "offline"))

    fast = [r for r in sweep if r["avg_lookahead"] <= SUGGEST_MAX_LOOKAHEAD]
    close = [r for r in fast if r["f1"] >= f1_l4 - SUGGEST_WITHIN]
    if close:
        pick, why = (
            max(close, key=lambda r: r["threshold"]),
            (
                f"largest h with F1 within {SUGGEST_WITHIN} of fixed l=4 "
                f"and avg lookahead <= {SUGGEST_MAX_LOOKAHEAD}"
            ),
        )
    elif fast:
        pick, why = (
            max(fast, key=lambda r: (r["f1"], r["threshold"])),
            (
                f"no h within {SUGGEST_WITHIN} of fixed l=4 at avg lookahead <= {SUGGEST_MAX_LOOKAHEAD}: "
                f"best F1 among those"
            ),
        )
    else:
        pick, why = None, f"no h reaches avg lookahead <= {SUGGEST_MAX_LOOKAHEAD}"

    text = {
        "note": "no [PAUSE] tokens: every pause flag False, words without times",
        "fixed": fixed,
        "etd_sweep": {
            "l_min": SWEEP_L_MIN,
            "l_max": dec.l_max,
            "silence_gap": None,
            "pause_threshold": None,
            "rows": sweep,
        },
        "recommended": {
            "threshold": dec.threshold,
            "l_min": dec.l_min,
            "l_max": dec.l_max,
            "silence_gap": None,
            "f1": rec_f1,
            "avg_lookahead": rec_look,
            "gap_to_fixed_l4": round(rec_f1 - f1_l4, 2),
            "scores": rec,
        },
        "etd_l_min_0": {
            "threshold": dec.threshold,
            "l_min": 0,
            "l_max": dec.l_max,
            "f1": f1_of(lmin0),
            "avg_lookahead": lmin0["overall"]["avg_lookahead"],
            "scores": lmin0,
        },
        "offline": {"views": [list(v) for v in offline_views], "f1": f1_of(offline), "scores": offline},
        "baselines": {
            "trivial": {"rule": "no mark anywhere", "scores": rows.punctuation(("text", "trivial"))},
            "fixed_l0": {"f1": f1_l0, "see": "text.fixed.0"},
        },
        "suggested_threshold": {
            "threshold": pick["threshold"] if pick else None,
            "f1": pick["f1"] if pick else None,
            "avg_lookahead": pick["avg_lookahead"] if pick else None,
            "rule": why,
        },
    }
    report: dict = {"text": text}

    if use_pauses:
        report["pauses"] = {
            "note": (
                "the dev text has no timings, so [PAUSE] tokens are synthesised from the REFERENCE marks by "
                "the training rule: a pause after word j with probability pause_given_mark[mark_j] "
                "(none, comma, period, question), fixed seed, and a pause after the last word of a "
                "document (end of recording). This leaks label information at the training rates, so "
                "read these rows as 'if real pauses were this informative'. 'fixed' sees every gap, the "
                "gap after its last lookahead word included (as the offline decoder does); 'fixed_live' "
                "hides that last gap, as a live decoder sees it (the gap is not over yet); "
                "'recommended_live' is the engine's StreamingDecoder at the recommended settings on "
                "synthetic word times that reproduce the pauses."
            ),
            "seed": seed,
            "pause_given_mark": list(noise.pause_given_mark),
            "pause_threshold": cfg.pause_threshold,
            "pause_share_percent": round(100 * pause_count[0] / max(1, pause_count[1]), 2),
            "fixed": {str(l): rows.punctuation(("pauses", "fixed", l)) for l in FIXED_LOOKAHEADS},
            "fixed_live": {str(l): rows.punctuation(("pauses", "fixed_live", l)) for l in FIXED_LOOKAHEADS},
            "offline": {
                "views": [list(v) for v in offline_views],
                "f1": f1_of(rows.punctuation(("pauses", "offline"))),
                "scores": rows.punctuation(("pauses", "offline")),
            },
            "recommended_live": {
                "threshold": dec.threshold,
                "l_min": dec.l_min,
                "l_max": dec.l_max,
                "scores": rows.punctuation(("pauses", "recommended_live")),
            },
            "baselines": {
                "trivial": {
                    "rule": "every pause becomes a period, no other mark",
                    "scores": rows.punctuation(("pauses", "trivial")),
                },
                "fixed_l0": {"see": "pauses.fixed.0 and pauses.fixed_live.0"},
            },
        }
    else:
        report["pauses"] = {"note": "the model's config has pause_threshold null: it takes no [PAUSE] tokens"}

    report["casing"] = {
        "note": (
            "reference: the case as written, after prepare's relabelling of typographic capitals (line "
            "starts, after quotes or colons get the word's usual mid-sentence case); sentence-initial words "
            "keep their written capital. 'all_words' scores the case class the decoder RENDERS, capitals "
            "derived from its own predicted marks included: what a viewer sees, so a missed or spurious "
            "sentence end costs a casing error too. 'mid_sentence' scores the same output only on words "
            "that are not sentence-initial in the reference (the model's intrinsic case; spurious periods "
            "still cost). 'case_head_mid_sentence' (offline) takes the case head's argmax through the "
            "renderer as if mid-sentence (adds the lexicon and 'I' rules only): the case head alone, free "
            "of punctuation errors. accuracy: all words; non_lower: P/R/F1 on reference words that are not "
            "lowercase."
        ),
        "offline": {
            "views": [list(v) for v in offline_views],
            "all_words": case_rows.casing(("offline", "all")),
            "mid_sentence": case_rows.casing(("offline", "mid")),
            "case_head_mid_sentence": case_rows.casing(("offline", "head")),
        },
        "streaming_recommended": {
            "threshold": dec.threshold,
            "l_min": dec.l_min,
            "l_max": dec.l_max,
            "all_words": case_rows.casing(("streaming", "all")),
            "mid_sentence": case_rows.casing(("streaming", "mid")),
        },
    }

    # -- targets ------------------------------------------------------------------
    sky = next((f for f in files if "endless_sky" in f), None)

    def question(row, file):
        return row["files"][file]["question"]["f1"] if file else None

    def check(value, target, higher=True):
        return None if value is None else bool(value >= target if higher else value <= target)

    q_rec, q_off = question(rec, sky), question(offline, sky)
    nl_off = report["casing"]["offline"]["all_words"]["overall"]["non_lower"]["f1"]
    nl_str = report["casing"]["streaming_recommended"]["all_words"]["overall"]["non_lower"]["f1"]
    report["targets"] = {
        "f1_fixed_l4": {
            "value": f1_l4,
            "target": f">= {TARGET_F1_L4}",
            "pass": check(f1_l4, TARGET_F1_L4),
            "source": "text.fixed.4, overall",
        },
        "f1_fixed_l0": {
            "value": f1_l0,
            "target": f">= {TARGET_F1_L0}",
            "pass": check(f1_l0, TARGET_F1_L0),
            "source": "text.fixed.0, overall",
        },
        "recommended_avg_lookahead": {
            "value": rec_look,
            "target": f"<= {TARGET_AVG_LOOKAHEAD}",
            "pass": check(rec_look, TARGET_AVG_LOOKAHEAD, higher=False),
            "source": "text.recommended",
        },
        "recommended_gap_to_l4": {
            "value": round(rec_f1 - f1_l4, 2),
            "target": f">= {TARGET_GAP_L4}",
            "pass": check(rec_f1 - f1_l4, TARGET_GAP_L4),
            "source": "text.recommended F1 minus text.fixed.4 F1",
        },
        "question_f1_endless_sky": {
            "value": q_rec,
            "target": f">= {TARGET_QUESTION_F1}",
            "pass": check(q_rec, TARGET_QUESTION_F1),
            "source": f"text.recommended (streaming ETD), file {sky}",
            "offline_value": q_off,
            "offline_pass": check(q_off, TARGET_QUESTION_F1),
        },
        "non_lower_f1": {
            "value": nl_off,
            "target": f">= {TARGET_NON_LOWER_F1}",
            "pass": check(nl_off, TARGET_NON_LOWER_F1),
            "source": "casing.offline.all_words (rendered, sentence-initial capitals included)",
            "streaming_value": nl_str,
            "streaming_pass": check(nl_str, TARGET_NON_LOWER_F1),
        },
    }
    report["table_misses"] = {
        **misses,
        "note": (
            "decoder requests whose context differed from the precomputed table and went to the real "
            "model; 0 expected except pauses_streaming, where the final flush marks the last gap as a "
            "pause"
        ),
    }
    report["model_samples"] = samples
    report["model_seconds"] = round(model_seconds, 1)
    total = sum(samples.values())
    report["model_samples_per_s"] = round(total / model_seconds, 1) if model_seconds else None
    return report


# ---- the figure ---------------------------------------------------------------------------
def plot(report: dict, path: Path, title: str = "") -> None:
    """Overall F1 against average lookahead for the h sweep (Minixhofer 2021, Fig. 4.3), with references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = report["text"]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    sweep = text["etd_sweep"]["rows"]
    xs, ys = [r["avg_lookahead"] for r in sweep], [r["f1"] for r in sweep]
    ax.plot(
        xs,
        ys,
        "o-",
        color="tab:blue",
        label=f"ETD, l_min={text['etd_sweep']['l_min']}, l_max={text['etd_sweep']['l_max']} (h in bits)",
    )
    for r in sweep:
        ax.annotate(
            f"{r['threshold']:g}",
            (r["avg_lookahead"], r["f1"]),
            textcoords="offset points",
            xytext=(3, 5),
            fontsize=7,
            color="tab:blue",
        )
    ls = sorted(int(l) for l in text["fixed"])
    fs = [f1_of(text["fixed"][str(l)]) for l in ls]
    ax.plot(ls, fs, "s--", color="gray", label="fixed lookahead l")
    for l, f in zip(ls, fs):
        ax.annotate(f"l={l}", (l, f), textcoords="offset points", xytext=(4, -11), fontsize=7, color="gray")
    ax.axhline(fs[-1], color="gray", ls=":", lw=1)
    ax.axhline(
        text["offline"]["f1"],
        color="tab:green",
        ls="-.",
        lw=1.2,
        label=f"offline, views {text['offline']['views']}",
    )
    rec = text["recommended"]
    ax.plot(
        [rec["avg_lookahead"]],
        [rec["f1"]],
        "*",
        ms=15,
        color="tab:red",
        label=f"recommended h={rec['threshold']:g}, l_min={rec['l_min']}, l_max={rec['l_max']}",
    )
    l0 = text["etd_l_min_0"]
    ax.plot(
        [l0["avg_lookahead"]],
        [l0["f1"]],
        "^",
        ms=8,
        color="tab:orange",
        label=f"ETD l_min=0, h={l0['threshold']:g}",
    )
    ax.set_xlabel("average lookahead (words)")
    ax.set_ylabel("overall F1 (%), comma + period + question")
    ax.set_title(title or "F1 vs average lookahead, no pause tokens", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---- CLI ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from engine.punctuation.runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model-dir", type=Path, help="exported model folder (default: the engine's default model)"
    )
    parser.add_argument(
        "--dev", type=Path, default=dev_corpus(), help=f"folder of .txt files (default {dev_corpus()})"
    )
    parser.add_argument(
        "--max-words-per-file",
        type=int,
        default=DEFAULT_MAX_WORDS,
        help="first N words of each file; 0 = all (default %(default)s)",
    )
    parser.add_argument("--out", type=Path, help="write the JSON report here too")
    parser.add_argument("--figure", type=Path, help="PNG of F1 against average lookahead")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads (default %(default)s)")
    parser.add_argument(
        "--batch", type=int, default=256, help="requests per model call (default %(default)s)"
    )
    parser.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        default=list(THRESHOLDS),
        help="entropy thresholds to sweep, bits (default 0.1 .. 1.5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthesised pauses (default 0)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    model_dir = args.model_dir or default_model_dir()
    try:
        model = PunctuationModel(model_dir, threads=args.threads, max_batch=args.batch)
        files = load_dev(args.dev, args.max_words_per_file)
        if not files:
            raise PrepareError(f"{args.dev}: no words left after cleaning")
    except (ModelError, PrepareError, OSError) as exc:
        print(f"evaluate: error: {exc}", file=sys.stderr)
        return 2
    log(
        f"model {model_dir}, {sum(len(d.words) for ds in files.values() for d in ds):,} words in "
        f"{len(files)} files"
    )
    body = evaluate(model, files, thresholds=sorted(set(args.thresholds)), batch=args.batch, seed=args.seed)
    model_file = model.model_dir / model.config.model_file
    report = {
        "model": {
            "dir": str(model.model_dir),
            "file": model.config.model_file,
            "size_mb": round(model_file.stat().st_size / 1e6, 2),
            "window": model.config.window,
            "pause_threshold": model.config.pause_threshold,
            "decoder": model.config.to_dict()["decoder"],
            "threads": model.threads,
        },
        "dev": {
            "folder": str(args.dev),
            "max_words_per_file": args.max_words_per_file,
            "files": {
                f: {"words": sum(len(d.words) for d in ds), "documents": len(ds)} for f, ds in files.items()
            },
            "words": sum(len(d.words) for ds in files.values() for d in ds),
            "note": "each document is one word stream; the first N words of each file, the last document "
            "cut at a sentence end in its second half when there is one",
        },
        **body,
    }
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    if args.figure:
        args.figure.parent.mkdir(parents=True, exist_ok=True)
        plot(
            report,
            args.figure,
            f"{model.model_dir.name}: F1 vs average lookahead on "
            f"{report['dev']['words']:,} dev words, no pause tokens",
        )
        report["figure"] = str(args.figure)
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
