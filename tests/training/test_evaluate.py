"""training.evaluate end to end on a tiny random model, and the table against the real model."""

import json

import numpy as np
import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.punctuation.casing import CaseRenderer
from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model import PunctuationModel
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import ModelScorer, Settled, StreamingDecoder
from engine.words import PUNCT_LABELS
from training import eval_tables as et
from training import evaluate as ev

AUSTEN = """Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own amusement,
never took up any book but the Baronetage; there he found occupation for an idle hour, and consolation
in a distressed one. Was he vain? He was. Anne had been a very pretty girl, but her bloom had vanished
early. What could she do? She walked to the window, looked at the sea, and said nothing at all. Lady
Russell came in the morning, and they talked of Bath, of the Crofts, and of Captain Wentworth, who had
gone to sea again. Would he come back? Nobody knew, and nobody asked.
"""
SKY = """Welcome aboard, Captain. The ship is ready, but the crew is not. Do you want to hire more
crew before we leave? We can reach Earth in three jumps, if the pirates stay away. I told you the
engines were old, didn't I? Still, they work. Are you sure about this plan? The Navy will not like it,
and the Free Worlds will like it even less. Land on New Boston, sell the cargo, and come back here.
Is that clear? Good. Then let us go now, before the Republic changes its mind.
"""
THRESHOLDS = ["1.9", "1.93", "1.95", "1.97", "2.0", "0.5"]  # a random model is near 2 bits everywhere


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("evaluate")
    model_dir = write_model_dir(root / "model", lexicon={"iphone": "iPhone"})
    dev = root / "dev"
    dev.mkdir()
    (dev / "austen_persuasion.txt").write_text(AUSTEN, encoding="utf-8")
    (dev / "endless_sky.txt").write_text(SKY, encoding="utf-8")
    return root, model_dir, dev


@pytest.fixture(scope="module")
def report(setup):
    root, model_dir, dev = setup
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
    for key in ("model", "dev", "text", "pauses", "casing", "targets", "table_misses", "elapsed_s"):
        assert key in r
    assert r["dev"]["max_words_per_file"] == 80
    assert set(r["dev"]["files"]) == {"dev/austen_persuasion.txt", "dev/endless_sky.txt"}
    assert all(0 < f["words"] <= 80 for f in r["dev"]["files"].values())
    text = r["text"]
    assert set(text["fixed"]) == {"0", "1", "2", "3", "4"}
    assert set(text["fixed"]["4"]["overall"]) == {"comma", "period", "question", "overall"}
    assert set(text["fixed"]["4"]["files"]) == set(r["dev"]["files"])
    assert [row["threshold"] for row in text["etd_sweep"]["rows"]] == sorted(float(h) for h in THRESHOLDS)
    rec = text["recommended"]
    assert rec["threshold"] == r["model"]["decoder"]["threshold"] and "gap_to_fixed_l4" in rec
    assert text["etd_l_min_0"]["l_min"] == 0
    assert text["baselines"]["trivial"]["scores"]["overall"]["overall"]["f1"] == 0.0  # no mark anywhere
    assert "suggested_threshold" in text and "rule" in text["suggested_threshold"]
    pauses = r["pauses"]
    assert "synthesised" in pauses["note"] and set(pauses["fixed"]) == set(pauses["fixed_live"]) == set(
        text["fixed"]
    )
    assert "offline" in pauses and "trivial" in pauses["baselines"]
    for decoder in ("offline", "streaming_recommended"):
        assert "non_lower" in r["casing"][decoder]["all_words"]["overall"]
    for name in (
        "f1_fixed_l4",
        "f1_fixed_l0",
        "recommended_avg_lookahead",
        "recommended_gap_to_l4",
        "question_f1_endless_sky",
        "non_lower_f1",
    ):
        t = r["targets"][name]
        assert {"value", "target", "pass"} <= set(t) and isinstance(t["pass"], bool)
    # the text condition is answered entirely from the table;
    # the live pause run only misses at the final flush
    assert r["table_misses"]["text"] == 0 and r["table_misses"]["pauses_offline"] == 0
    assert r["table_misses"]["pauses_streaming"] <= 2 * 5


@pytest.mark.train
def test_scores_are_percentages(report):
    r, _ = report
    f1s = list(_f1s(r))
    assert len(f1s) > 50
    assert all(0.0 <= f <= 100.0 for f in f1s)
    acc = r["casing"]["offline"]["all_words"]["overall"]["accuracy"]
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
def doc_and_model(setup):
    _, model_dir, dev = setup
    doc = prepare_folder(dev)[0]
    return doc, PunctuationModel(model_dir)


def test_table_matches_the_real_model(doc_and_model):
    doc, model = doc_and_model
    scorer = ModelScorer(model)
    words, n = doc.words, len(doc.words)
    window = model.config.window
    views = [(l, window) for l in range(5)]
    flags = et.synthesize_pauses(doc.marks, np.random.default_rng(0))
    for pauses, live in (([False] * n, False), (flags, False), (flags, True)):
        table = et.build_table(scorer, words, pauses, views, batch=7, last_gap_unknown=live)
        for p in (0, 1, n // 2, n - 3, n - 1):
            for l in range(5):
                seen = list(pauses)
                if live:
                    seen[min(p + l, n - 1)] = False  # the newest gap is not over yet
                direct, _ = scorer.score(words, seen, [(p, l)])
                assert np.allclose(table.punct[(window, l)][p], direct[0], atol=1e-5)
                assert table.punct[(window, l)][p].argmax() == direct[0].argmax()


def test_decoders_on_the_table_match_the_decoders_on_the_model(doc_and_model):
    doc, model = doc_and_model
    scorer = ModelScorer(model)
    window, cfg = model.config.window, model.config
    casing = CaseRenderer(cfg.lexicon)
    views = [(l, window) for l in range(5)]
    table = et.build_table(scorer, doc.words, [False] * len(doc.words), views)
    words = et.timed_words(doc.words, None, None)
    for settings in (dict(l_min=1, l_max=4, threshold=1.95), dict(l_min=2, l_max=2, threshold=0.5)):
        settings |= dict(silence_gap=None, pause_threshold=None)
        marks, _, used, ts = et.run_streaming(table, words, window, None, settings, casing)  # no fallback
        assert ts.misses == 0 and ts.hits > 0
        real = StreamingDecoder(scorer, casing=casing, **settings)
        events = [e for w in words for e in real.push(w)] + real.flush()
        settled = sorted((e for e in events if isinstance(e, Settled)), key=lambda e: e.position)
        assert [PUNCT_LABELS.index(e.mark) for e in settled] == marks.tolist()
        assert [e.lookahead_used for e in settled] == used.tolist()
        if settings["l_min"] == settings["l_max"]:  # fixed lookahead through the engine = table argmax
            assert marks.tolist() == table.punct[(window, 2)].argmax(axis=1).tolist()
    # offline, with synthesised pauses carried by word times
    flags = et.synthesize_pauses(doc.marks, np.random.default_rng(1))
    known = et.build_table(scorer, doc.words, flags, cfg.decoder.offline_views)
    timed = et.timed_words(doc.words, flags, cfg.pause_threshold)
    marks, _, _, ts = et.run_offline(
        known, timed, window, None, cfg.decoder.offline_views, cfg.pause_threshold, casing
    )
    assert ts.misses == 0
    real = OfflineDecoder(
        scorer, views=cfg.decoder.offline_views, pause_threshold=cfg.pause_threshold, casing=casing
    ).decode(timed)
    assert [PUNCT_LABELS.index(s.mark) for s in real] == marks.tolist()


def test_table_scorer_refuses_a_different_context(doc_and_model):
    doc, model = doc_and_model
    window = model.config.window
    table = et.build_table(ModelScorer(model), doc.words, [False] * len(doc.words), [(1, window)])
    ts = et.TableScorer(table, window)
    ts.score(doc.words, [False] * len(doc.words), [(3, 1)])
    with pytest.raises(KeyError):  # a pause the table never saw, and no fallback
        ts.score(doc.words, [True] * len(doc.words), [(3, 1)])
    with pytest.raises(KeyError):  # a lookahead the table never computed
        ts.score(doc.words, [False] * len(doc.words), [(3, 2)])
