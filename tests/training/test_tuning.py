"""training.tuning on a tiny random model: the sweeps report what the engine's decoders give
with the setting of each row."""

import json
import shutil
from dataclasses import replace

import numpy as np

from engine.evaluation.synthetic_model import TINY, write_model_dir
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.model import PunctuationModel
from engine.punctuation.settings import DecoderSettings
from engine.words import PUNCT_LABELS
from training import eval_tables as et
from training import tuning
from training.dev_text import load_dev
from training.evaluate import offline_decoder
from training.metrics import casing_scores, punctuation_scores


def test_a_rebiased_cache_answers_as_the_model_with_that_bias_does(tiny_dev, tmp_path):
    _, model_dir, dev = tiny_dev
    biased_dir = tmp_path / "biased"
    shutil.copytree(model_dir, biased_dir)
    config = json.loads((biased_dir / "config.json").read_text())
    config["punct_logit_bias"] = {"none": -0.75, "comma": 0.25}
    (biased_dir / "config.json").write_text(json.dumps(config))
    [doc, *_] = load_dev(dev, 60)["dev/endless_sky.txt"]
    flags = [False] * len(doc.words)
    plain = et.CachedScorer(PunctuationModel(model_dir), doc.words, flags)
    direct = et.CachedScorer(PunctuationModel(biased_dir), doc.words, flags)
    shifted = plain.reweighted(np.array([-0.75, 0.25, 0, 0], dtype=np.float32))
    for l in range(4):
        assert np.allclose(shifted.fixed(l)[0], direct.fixed(l)[0], atol=1e-5)
        assert not np.allclose(plain.fixed(l)[0], direct.fixed(l)[0], atol=1e-3)
    # a context the cache never saw goes to the model, and is reweighted the same way
    paused = [True] * len(doc.words)
    assert np.allclose(
        shifted.score(doc.words, paused, [(3, 1)])[0], direct.score(doc.words, paused, [(3, 1)])[0]
    )
    assert shifted.misses == 1 and plain.misses == 0
    # and the sweep reports, for the bias already in the model, what the model itself gives
    sweep = tuning.sweep_bias(PunctuationModel(biased_dir), {"dev/endless_sky.txt": [doc]}, thresholds=(0.5,))
    assert len(sweep["rows"]) == len(tuning.NONE_BIASES) * len(tuning.COMMA_BIASES)
    [row] = [
        r for r in sweep["rows"] if r["bias"] == {"none": -0.75, "comma": 0.25, "period": 0, "question": 0}
    ]
    casing = CaseRenderer({})
    live = DecoderSettings(l_min=1, l_max=3, threshold=0.5, silence_gap=None, pause_threshold=None)
    marks, _, _ = et.run_streaming(direct, et.timed_words(doc.words, None, None), live, casing)
    assert row["live_f1"] == punctuation_scores(doc.marks, marks)["overall"]["f1"]


def test_the_case_sweep_reports_what_the_model_with_that_case_bias_renders(tiny_dev, tmp_path):
    _, model_dir, dev = tiny_dev
    [doc, *_] = load_dev(dev, 60)["dev/austen_persuasion.txt"]
    sweep = tuning.sweep_bias(
        PunctuationModel(model_dir), {"dev/austen_persuasion.txt": [doc]}, thresholds=(0.5,)
    )
    rows = sweep["case"]["rows"]
    assert len(rows) == len(tuning.CASE_LOWER_BIASES) and sweep["case"]["best"] == rows[0]
    # the model itself, with the chosen punctuation bias and a case bias written in its config
    config = json.loads((model_dir / "config.json").read_text())
    words = et.timed_words(doc.words, None, None)
    rendered = {}
    for lower in (-2.0, 0.0):
        biased_dir = tmp_path / f"case{lower}"
        shutil.copytree(model_dir, biased_dir)
        config |= {"punct_logit_bias": sweep["best"]["bias"], "case_logit_bias": {"lower": lower}}
        (biased_dir / "config.json").write_text(json.dumps(config))
        direct = PunctuationModel(biased_dir)
        scorer = et.CachedScorer(direct, doc.words, [False] * len(doc.words))
        dec = direct.config.decoder
        live = DecoderSettings(
            l_min=dec.l_min, l_max=dec.l_max, threshold=0.5, silence_gap=None, pause_threshold=None
        )
        _, rendered[lower], _ = et.run_streaming(scorer, words, live, CaseRenderer(direct.config.lexicon))
        [row] = [r for r in rows if r["case_bias"]["lower"] == lower]
        assert row["non_lower"] == casing_scores(doc.displayed_cases(), rendered[lower])["non_lower"]
    assert (rendered[-2.0] != rendered[0.0]).any()  # the bias changed what was rendered


def test_the_offline_sweep_ranks_settings_by_what_the_offline_decoder_scores_with_them(tiny_dev, tmp_path):
    _, _, dev = tiny_dev
    # the sweep reads windows of up to 96 tokens
    model = PunctuationModel(write_model_dir(tmp_path / "model", replace(TINY, max_positions=128)))
    files = load_dev(dev, 60)
    sweep = tuning.sweep_offline(model, files)
    f1s = [r["f1"] for r in sweep["rows"]]
    assert sweep["best"] == sweep["rows"][0] and f1s == sorted(f1s, reverse=True) and f1s[0] > f1s[-1]
    assert {(r["window"], r["stride"]) for r in sweep["rows"]} >= {(48, 4), (64, 16), (96, 8)}
    for row in (sweep["rows"][0], sweep["rows"][-1]):
        settings = {k: row[k] for k in ("window", "stride", "min_left", "min_right", "edge_weighting")}
        ref, pred = [], []
        for docs in files.values():
            for d in docs:
                words = et.timed_words(d.words, None, None)
                settled = offline_decoder(model, settings).decode(words, end_of_input=True)
                ref.extend(d.marks)
                pred.extend(PUNCT_LABELS.index(s.mark) for s in settled)
        assert row["f1"] == punctuation_scores(ref, pred)["overall"]["f1"]
