"""The training path: data → train → export → evaluate, on a slice, plus its parts."""

import json

import numpy as np
import pytest

from tests.conftest import TRAIN_EXTRA  # noqa: E402

torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)
pytestmark = [pytest.mark.train]

from engine.evaluation.corpus import corpus_dir  # noqa: E402
from engine.evaluation.synthetic_model import build_vocab, write_tokenizer  # noqa: E402
from engine.punctuation.labelled_text import prepare_folder  # noqa: E402
from engine.punctuation.model import PunctuationModel  # noqa: E402
from engine.punctuation.model_inputs import build_sample  # noqa: E402
from training.dataset import IGNORE, Noise, SampleMaker, balanced_positions, build_stream  # noqa: E402
from training.model import EncoderConfig, PunctuationClassifier  # noqa: E402

SHARED = corpus_dir()
TEXT = (
    "Is this the plan? Yes, it is. We meet on Monday, then we talk to NASA. "
    "I think so. Do you agree? Well, maybe. "
) * 40


@pytest.fixture
def tiny_dir(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "talk.txt").write_text(TEXT)
    vocab = list(dict.fromkeys(build_vocab() + ["plan", "meet", "monday", "nasa", "agree", "maybe"]))
    write_tokenizer(tmp_path / "tokenizer.json", vocab)
    return tmp_path


def tokenizer(path):
    from engine.punctuation.model_inputs import WordTokenizer

    return WordTokenizer(path / "tokenizer.json", "[unused0]", "[unused1]", "[unused2]")


def test_clean_samples_are_the_engine_samples(tiny_dir):
    tok = tokenizer(tiny_dir)
    docs = prepare_folder(tiny_dir / "data")
    stream = build_stream(docs, tok)
    maker = SampleMaker(stream, tok.special, window=32, l_min=0, l_max=4)  # no noise
    rng = np.random.default_rng(0)
    for i in (0, 5, 50, len(stream) - 1):
        ids = stream.word_ids[: int(stream.doc_end[i])]
        expected = build_sample(ids, i, 3, tok.special, None, 32)
        assert maker.make(i, rng, lookahead=3) == expected


def test_sentence_initial_case_is_masked_and_upper_kept(tiny_dir):
    stream = build_stream(prepare_folder(tiny_dir / "data"), tokenizer(tiny_dir))
    assert stream.cases[0] == IGNORE  # "Is" starts the document: the decoder derives that capital
    words = [w for d in prepare_folder(tiny_dir / "data") for w in d.words]
    assert stream.cases[words.index("nasa")] == 2  # UPPER is learned, not derived


def test_none_is_downsampled_to_twice_the_commonest_mark(tiny_dir):
    stream = build_stream(prepare_folder(tiny_dir / "data"), tokenizer(tiny_dir))
    chosen = balanced_positions(stream, 2.0, np.random.default_rng(0))
    counts = np.bincount(stream.marks[chosen], minlength=4)
    assert (
        counts[0] <= 2 * counts[1:].max() and (counts[1:] == np.bincount(stream.marks, minlength=4)[1:]).all()
    )


def test_noise_adds_pauses_and_drops_but_keeps_the_target(tiny_dir):
    tok = tokenizer(tiny_dir)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    noisy = SampleMaker(stream, tok.special, noise=Noise(pause_dropout=0.0, future_dropout=1.0))
    rng = np.random.default_rng(1)
    samples = [noisy.make(i, rng, lookahead=4) for i in range(20, 220)]
    assert all(s.count(tok.special.punct) == 1 for s in samples)
    assert sum(tok.special.pause in s for s in samples) > 20
    assert sum(tok.special.drop in s for s in samples) > 5
    for i, s in zip(range(20, 220), samples):  # the word being punctuated is never damaged
        k = s.index(tok.special.punct)
        j = k - 1 - (s[k - 1] == tok.special.pause)
        assert s[j - len(stream.word_ids[i]) + 1 : j + 1] == list(stream.word_ids[i])


def test_exported_onnx_matches_torch_and_honours_the_contract(tiny_dir):
    from training.export import export_onnx

    vocab_size = len(json.loads((tiny_dir / "tokenizer.json").read_text())["model"]["vocab"])
    model = PunctuationClassifier(
        EncoderConfig(vocab_size=vocab_size, hidden=32, layers=2, heads=2, intermediate=64, max_positions=64),
        punct_id=1,
    ).eval()
    out = tiny_dir / "model"
    out.mkdir()
    export_onnx(model, out / "model.onnx")
    (out / "tokenizer.json").write_bytes((tiny_dir / "tokenizer.json").read_bytes())
    from engine.punctuation.model import ModelConfig

    (out / "config.json").write_text(json.dumps(ModelConfig().to_dict()))
    runtime = PunctuationModel(out)
    ids = runtime.tokenizer.encode_words("is this the plan yes it is".split())
    samples = [build_sample(ids, i, 2, runtime.special) for i in range(7)]
    onnx_punct, onnx_case = runtime.logits(samples)
    from engine.punctuation.model_inputs import pad_batch

    t_ids, t_mask = pad_batch(samples, runtime.special.pad)
    with torch.no_grad():
        t_punct, t_case = model(torch.from_numpy(t_ids), torch.from_numpy(t_mask))
    assert np.allclose(onnx_punct, t_punct.numpy(), atol=1e-4) and np.allclose(
        onnx_case, t_case.numpy(), atol=1e-4
    )


@pytest.mark.skipif(not (SHARED / "train" / "austen_emma.txt").exists(), reason="needs ../shared/corpus")
@pytest.mark.slow
@pytest.mark.needs_corpus
def test_tiny_recipe_end_to_end(tmp_path):
    """data → train → export (int8) → evaluate, on slices: the whole path works."""
    from training import evaluate, export, train

    data, dev = tmp_path / "data", tmp_path / "dev"
    data.mkdir(), dev.mkdir()
    (data / "emma.txt").write_text((SHARED / "train" / "austen_emma.txt").read_text()[:250_000])
    (dev / "persuasion.txt").write_text((SHARED / "dev" / "austen_persuasion.txt").read_text()[:30_000])
    run = tmp_path / "run"
    assert train.main(["--tiny", "--data", str(data), "--out", str(run)]) == 0
    assert (run / "last.pt").exists()
    shipped = tmp_path / "shipped"
    assert (
        export.main(
            [
                "--checkpoint",
                str(run / "last.pt"),
                "--out",
                str(shipped),
                "--dev",
                str(dev),
                "--parity-samples",
                "200",
            ]
        )
        == 0
    )
    assert (shipped / "model.onnx").stat().st_size < 25 * 2**20
    model = PunctuationModel(shipped)  # the engine loads what export wrote
    assert model.predict([[model.special.cls, 2023, model.special.punct, model.special.sep]])[0].shape == (
        1,
        4,
    )
    report = tmp_path / "report.json"
    assert (
        evaluate.main(
            [
                "--model-dir",
                str(shipped),
                "--dev",
                str(dev),
                "--max-words-per-file",
                "600",
                "--out",
                str(report),
                "--figure",
                str(tmp_path / "etd.png"),
            ]
        )
        == 0
    )
    assert json.loads(report.read_text())
    # resuming a finished run does no more work and keeps the checkpoint
    assert train.main(["--tiny", "--data", str(data), "--out", str(run)]) == 0


def test_batches_depend_only_on_the_step_whatever_the_workers(tiny_dir):
    """Resuming at step k, or building batches in worker processes, trains on the same data."""
    from training.batches import BatchPlan
    from training.train import StepBatches

    tok = tokenizer(tiny_dir)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    plan = BatchPlan(stream, tok.special, Noise(), batch=16, steps=12, pause_from=6)
    first = [plan(step) for step in range(16)]
    assert not np.array_equal(first[0][0], first[1][0])  # steps differ ...
    again = BatchPlan(stream, tok.special, Noise(), batch=16, steps=12, pause_from=6)
    for step in (11, 3, 7):  # ... but any step rebuilds the same, in any order
        assert all(np.array_equal(a, b) for a, b in zip(again(step), first[step]))
    assert not any(
        tok.special.pause in row for ids, *_ in first[:6] for row in ids.tolist()
    )  # text-only phase
    assert any(tok.special.pause in row for ids, *_ in first[6:12] for row in ids.tolist())
    loader = torch.utils.data.DataLoader(StepBatches(plan, 5, 16), batch_size=None, num_workers=2)
    seen = list(loader)
    assert [int(b[0]) for b in seen] == list(range(5, 16))  # in order, resumed at step 5
    for step, ids, _mask, marks, _cases in seen:
        assert np.array_equal(ids.numpy(), first[int(step)][0]) and np.array_equal(
            marks.numpy(), first[int(step)][2]
        )
    # the balanced phase keeps every mark and at most twice as many "none" as the commonest mark
    balanced = np.bincount(np.concatenate([first[s][2] for s in range(12)]), minlength=4)
    natural = np.bincount(stream.marks, minlength=4)
    assert balanced[0] / balanced[1:].sum() < 0.8 * natural[0] / natural[1:].sum()  # "none" was cut


def test_pruning_the_last_layer_to_the_punct_row_changes_no_logit(tiny_dir):
    """training.prune: same logits as the full graph (fp32: exact math), fewer nodes' worth of work,
    and both quantized and re-pruned graphs are handled."""
    import onnx

    from engine.punctuation.model import ModelConfig
    from engine.punctuation.model_inputs import pad_batch
    from training.export import export_onnx, quantize
    from training.prune import PruneError, prune_last_layer

    vocab_size = len(json.loads((tiny_dir / "tokenizer.json").read_text())["model"]["vocab"])
    model = PunctuationClassifier(
        EncoderConfig(vocab_size=vocab_size, hidden=32, layers=3, heads=2, intermediate=64, max_positions=64),
        punct_id=1,
    ).eval()
    full, pruned = tiny_dir / "full", tiny_dir / "pruned"
    for folder in (full, pruned):
        folder.mkdir()
        (folder / "tokenizer.json").write_bytes((tiny_dir / "tokenizer.json").read_bytes())
        (folder / "config.json").write_text(json.dumps(ModelConfig().to_dict()))
    export_onnx(model, full / "model.onnx")
    graph = prune_last_layer(onnx.load(str(full / "model.onnx")))
    onnx.save(graph, str(pruned / "model.onnx"))
    a, b = PunctuationModel(full), PunctuationModel(pruned)
    ids = a.tokenizer.encode_words("is this the plan yes it is and then we go home".split())
    samples = [build_sample(ids, i, 3, a.special) for i in range(11)]  # ragged: padding included
    for x, y in zip(a.logits(samples), b.logits(samples)):
        assert np.allclose(x, y, atol=1e-5), np.abs(x - y).max()
    with torch.no_grad():
        t_ids, t_mask = pad_batch(samples, a.special.pad)
        assert np.allclose(
            b.logits(samples)[0],
            model(torch.from_numpy(t_ids), torch.from_numpy(t_mask))[0].numpy(),
            atol=1e-4,
        )
    with pytest.raises(PruneError, match="already pruned"):
        prune_last_layer(graph)
    # The int8 graph (what ships) prunes too, and stays close to the unpruned int8 model.
    quantize(full / "model.onnx", tiny_dir / "int8.onnx")
    onnx.save(prune_last_layer(onnx.load(str(tiny_dir / "int8.onnx"))), str(pruned / "model.onnx"))
    (full / "model.onnx").write_bytes((tiny_dir / "int8.onnx").read_bytes())
    q_full, q_pruned = PunctuationModel(full).logits(samples)[0], PunctuationModel(pruned).logits(samples)[0]
    assert np.abs(q_full - q_pruned).max() < 0.1 * np.abs(q_full).max() + 1e-3


def test_training_reads_the_corpus_where_livecap_corpus_points(monkeypatch, tmp_path):
    from training.train import Recipe

    monkeypatch.setenv("LIVECAP_CORPUS", str(tmp_path))
    assert Recipe().data == [str(tmp_path / "train")]
