"""training.evaluate end to end on a tiny random model, and the table against the real model."""

import json
import shutil

import numpy as np
import pytest

from engine.events import Settled
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model import PunctuationModel
from engine.punctuation.model_inputs import build_window
from engine.punctuation.scoring import ModelScorer
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.streaming import StreamingDecoder
from engine.words import PUNCT_LABELS
from training import eval_tables as et
from training import evaluate as ev
from training.dev_text import load_dev

THRESHOLDS = ["1.9", "1.93", "1.95", "1.97", "2.0", "0.5"]  # a random model is near 2 bits everywhere


@pytest.fixture(scope="module")
def report(tiny_dev):
    root, model_dir, dev = tiny_dev
    out, fig = root / "report.json", root / "etd.png"
    rc = ev.main(
        [
            "--model-dir",
            str(model_dir),
            "--dev",
            str(dev),
            "--max-words-per-file",
            "80",
            "--threads",
            "1",
            "--out",
            str(out),
            "--figure",
            str(fig),
            "--thresholds",
            *THRESHOLDS,
        ]
    )
    assert rc == 0
    return json.loads(out.read_text(encoding="utf-8")), fig


def _f1s(node):
    """Every "f1" value anywhere in the report."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "f1" and isinstance(v, (int, float)):
                yield v
            else:
                yield from _f1s(v)
    elif isinstance(node, list):
        for v in node:
            yield from _f1s(v)


@pytest.mark.train
def test_report_structure(report):
    r, _ = report
    for key in ("date", "model", "dev", "text", "pauses", "targets", "elapsed_s"):
        assert key in r
    assert r["dev"]["max_words_per_file"] == 80
    assert set(r["dev"]["files"]) == {"dev/austen_persuasion.txt", "dev/endless_sky.txt"}
    assert all(0 < f["words"] <= 80 for f in r["dev"]["files"].values())
    for condition in ("text", "pauses"):
        c = r[condition]
        assert set(c["fixed"]) == {"0", "1", "2", "3", "4"}
        assert set(c["fixed"]["4"]["overall"]) == {"comma", "period", "question", "overall"}
        assert set(c["fixed"]["4"]["files"]) == set(r["dev"]["files"])
        assert c["live_default"]["threshold"] == r["model"]["decoder"]["threshold"]
        assert "avg_lookahead" in c["live_default"]["overall"] and "words_per_s" in c["offline"]
        for decoder in ("live_default", "offline"):
            assert "non_lower" in c["casing"][decoder]["overall"]
    text = r["text"]
    assert [row["threshold"] for row in text["etd_sweep"]["rows"]] == sorted(float(h) for h in THRESHOLDS)
    assert text["etd_l_min_0"]["l_min"] == 0
    # every streaming question was answered from the one pass of windows
    assert text["cache_misses"] == 0
    assert set(r["targets"]) == set(ev.TARGETS)
    assert all({"target", "measured", "met"} <= set(t) for t in r["targets"].values())


@pytest.mark.train
def test_scores_are_percentages(report):
    r, _ = report
    f1s = list(_f1s(r))
    assert len(f1s) > 50
    assert all(0.0 <= f <= 100.0 for f in f1s)
    acc = r["text"]["casing"]["offline"]["overall"]["accuracy"]
    assert 0.0 <= acc <= 100.0


@pytest.mark.train
def test_etd_lookahead_grows_as_threshold_shrinks(report):
    r, _ = report
    rows = sorted(r["text"]["etd_sweep"]["rows"], key=lambda row: row["threshold"], reverse=True)
    looks = [row["avg_lookahead"] for row in rows]
    assert all(a <= b + 1e-9 for a, b in zip(looks, looks[1:]))  # h shrinking -> lookahead non-decreasing
    assert looks[0] < looks[-1]  # and the sweep actually moves on this model
    assert all(0.0 <= x <= 4.0 for x in looks)


@pytest.mark.train
def test_figure_is_a_png(report):
    _, fig = report
    assert fig.is_file() and fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def doc_and_model(tiny_dev):
    _, model_dir, dev = tiny_dev
    doc = prepare_folder(dev)[0]
    return doc, PunctuationModel(model_dir)


def test_the_cache_is_the_real_model_at_every_lookahead(doc_and_model):
    doc, model = doc_and_model
    words, n = doc.words, len(doc.words)
    flags = et.synthesize_pauses(doc.marks, np.random.default_rng(0))
    cached = et.CachedScorer(model, words, flags, batch=7)
    ids = model.tokenizer.encode_words(words)
    for l in range(5):
        punct, _ = cached.fixed(l)
        for j in (0, 1, n // 2, n - 3, n - 1):
            end = min(n - 1, j + l)
            seen = [*flags[:end], False]  # live: the gap after the newest word is not over yet
            window = build_window(ids[: end + 1], end, model.special, seen, model.config.window)
            [(direct, _)] = model.tag([window])
            assert np.allclose(punct[j], direct[j - window.first], atol=1e-5)


def test_decoders_on_the_cache_match_the_decoders_on_the_model(doc_and_model):
    doc, model = doc_and_model
    casing = CaseRenderer(model.config.lexicon)
    words = et.timed_words(doc.words, None, None)
    cached = et.CachedScorer(model, doc.words, [False] * len(doc.words))
    for chosen in (dict(l_min=1, l_max=4, threshold=1.95), dict(l_min=2, l_max=2, threshold=0.5)):
        settings = DecoderSettings(**chosen, silence_gap=None, pause_threshold=None)
        marks, _, used = et.run_streaming(cached, words, settings, casing)
        real = StreamingDecoder(ModelScorer(model), settings, casing=casing)
        events = [e for w in words for e in real.push(w)] + real.flush()
        settled = sorted((e for e in events if isinstance(e, Settled)), key=lambda e: e.position)
        assert [PUNCT_LABELS.index(e.mark) for e in settled] == marks.tolist()
        assert [e.lookahead_used for e in settled] == used.tolist()
        if settings.l_min == settings.l_max:  # fixed lookahead through the engine = cache argmax
            assert marks.tolist()[:-2] == cached.fixed(2)[0].argmax(axis=1).tolist()[:-2]
    assert cached.misses == 0


def test_the_cache_sends_a_different_context_to_the_model_and_counts_it(doc_and_model):
    doc, model = doc_and_model
    n = len(doc.words)
    cached = et.CachedScorer(model, doc.words, [False] * n)
    cached.tag(doc.words, [False] * n, [3])
    assert cached.misses == 0
    punct, _ = cached.score(doc.words, [True] * n, [(3, 1)])  # pauses the cache never saw
    assert cached.misses == 1
    direct, _ = ModelScorer(model).score(doc.words, [True] * n, [(3, 1)])
    assert np.allclose(punct, direct)


def test_a_skip_starts_each_file_at_a_sentence_after_the_words_it_skips(tiny_dev):
    _, _, dev = tiny_dev
    whole = load_dev(dev, 0)
    later = load_dev(dev, 30, skip_words=40)
    for file, docs in whole.items():
        words = [w for d in docs for w in d.words]
        marks = np.concatenate([d.marks for d in docs])
        [kept] = later[file]
        start = next(k for k in range(40, len(words)) if words[k : k + len(kept.words)] == kept.words)
        assert start - 40 < 25 and marks[start - 1] >= PUNCT_LABELS.index("period")
        assert 15 <= len(kept.words) <= 30  # cut at a sentence end in the second half of the 30
        assert kept.marks.tolist() == marks[start : start + len(kept.words)].tolist()


def test_evaluate_decodes_with_the_models_own_settings(tiny_dev, tmp_path, monkeypatch):
    """training.evaluate builds its decoders from the model's config.json: the live row on the
    text as it is (no timings, no silence to wait for), the offline decoder as exports run it."""
    from dataclasses import replace as changed

    from engine.punctuation.model import ModelConfig, PunctuationModel
    from engine.punctuation.offline import OfflineDecoder
    from engine.punctuation.settings import DecoderSettings
    from tests.test_decoder_settings_everywhere import UNUSUAL

    _, model_dir, dev = tiny_dev
    folder = tmp_path / "model"
    shutil.copytree(model_dir, folder)
    config = ModelConfig.load(folder)
    changed(config, decoder=DecoderSettings.from_config(UNUSUAL, pause_threshold=0.4)).save(folder)
    configured = ModelConfig.load(folder).decoder
    seen = []
    for kind, cls in (("stream", StreamingDecoder), ("offline", OfflineDecoder)):
        original = cls.__init__

        def record(self, scorer, settings, *args, _original=original, _kind=kind, **kwargs):
            seen.append((_kind, settings))
            _original(self, scorer, settings, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", record)
    ev.evaluate(PunctuationModel(folder), load_dev(dev, 60), thresholds=(configured.threshold,))
    live_text = changed(configured, silence_gap=None, pause_threshold=None)
    assert ("stream", live_text) in seen and ("stream", changed(live_text, pause_threshold=0.4)) in seen
    assert {s for k, s in seen if k == "offline"} == {configured, changed(configured, pause_threshold=None)}
