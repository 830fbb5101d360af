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
from engine.punctuation.model_inputs import build_window  # noqa: E402
from engine.punctuation.word_cues import CUE_COUNT  # noqa: E402
from training.dataset import IGNORE, Noise, WindowMaker, build_stream, collate  # noqa: E402

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

    return WordTokenizer(path / "tokenizer.json", "[unused1]", "[unused2]")


def test_clean_windows_are_the_engine_windows_with_every_word_labelled(tiny_dir):
    tok = tokenizer(tiny_dir)
    docs = prepare_folder(tiny_dir / "data")
    stream = build_stream(docs, tok)
    maker = WindowMaker(stream, tok.special)  # no noise
    rng = np.random.default_rng(0)
    for end in (0, 5, 50, len(stream) - 1):
        for window in (16, 32, 64):
            made = maker.make(end, window, rng, pauses=False)
            expected = build_window(stream.word_ids[: end + 1], end, tok.special, None, window)
            assert made.ids == expected.ids
            carriers = np.flatnonzero(made.lookahead >= 0)
            assert carriers.tolist() == expected.carriers  # every word of the window is labelled ...
            words = np.arange(expected.first, end + 1)
            assert (made.marks[carriers] == stream.marks[words]).all()  # ... with its own mark
            assert (made.lookahead[carriers] == end - words).all()  # ... and its lookahead
            off = np.setdiff1d(np.arange(len(made.ids)), carriers)
            assert (made.marks[off] == IGNORE).all() and (made.cases[off] == IGNORE).all()


def test_sentence_initial_case_is_masked_and_upper_kept(tiny_dir):
    stream = build_stream(prepare_folder(tiny_dir / "data"), tokenizer(tiny_dir))
    assert stream.cases[0] == IGNORE  # "Is" starts the document: the decoder derives that capital
    words = [w for d in prepare_folder(tiny_dir / "data") for w in d.words]
    assert stream.cases[words.index("nasa")] == 2  # UPPER is learned, not derived


def test_noise_adds_pauses_and_drops_and_never_loses_a_mark(tiny_dir):
    tok = tokenizer(tiny_dir)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    noisy = WindowMaker(stream, tok.special, Noise(pause_dropout=0.0, future_dropout=1.0, delete=0.2))
    rng = np.random.default_rng(1)
    made = [(end, noisy.make(end, 64, rng)) for end in range(40, 240)]
    assert sum(tok.special.pause in w.ids for _, w in made) > 100
    assert all(tok.special.drop in w.ids for _, w in made)  # future dropout on every window here
    for _, w in made:
        dropped = [k for k, token in enumerate(w.ids) if token == tok.special.drop]
        assert (w.marks[dropped] == IGNORE).all()  # a dropped word teaches nothing about itself
    # ASR noise deletes only words with no mark after them, and keeps every mark where it was
    words = [
        (stream.word_ids[j], int(stream.marks[j]), int(stream.cases[j]), int(stream.letters[j]), 0)
        for j in range(200)
    ]
    heard = noisy.asr_noise(words, np.random.default_rng(2))
    assert len(heard) != len(words)
    assert [w[1] for w in heard if w[1]] == [w[1] for w in words if w[1]]
    # ... and never the window's own last word: a one-word window at a document's start stays one
    always = WindowMaker(stream, tok.special, Noise(delete=1.0, substitute=0.0, insert=0.0))
    assert always.asr_noise(words[:1], np.random.default_rng(0)) == words[:1]
    assert len(always.make(1, 32, np.random.default_rng(0)).ids) >= 3


def test_loss_weights_favour_the_live_lookaheads_and_the_rare_marks():
    from training.recipe import Recipe
    from training.train_loop import class_weights, token_losses

    recipe = Recipe(far_weight=0.15, live_lookahead=4, case_loss_weight=0.0)
    # Two labelled words, both wrong with the same confidence: one at lookahead 1, one at 10.
    logits = torch.zeros(1, 2, 4)
    logits[0, :, 0] = 3.0
    case = torch.zeros(1, 2, 3)
    marks, cases = torch.tensor([[2, 2]]), torch.full((1, 2), IGNORE)
    per_word = torch.nn.functional.cross_entropy(logits[0], marks[0], reduction="none")
    near_far = token_losses(logits, case, marks, cases, torch.tensor([[1, 10]]), recipe, None)
    assert torch.isclose(near_far, (per_word[0] + 0.15 * per_word[1]) / 1.15)
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0])
    weighted = token_losses(logits, case, marks, cases, torch.tensor([[1, 1]]), recipe, weights)
    assert torch.isclose(weighted, 3.0 * per_word.mean())
    w = class_weights(np.array([0] * 900 + [1] * 60 + [2] * 39 + [3] * 1), 0.5)
    assert w[0] == 1.0 and 1 < w[1] < w[2] < w[3] == 8.0  # rarer is heavier, and capped


def test_batches_draw_window_ends_by_source_weight(tiny_dir):
    from training.batches import BatchPlan, mix_shares

    tok = tokenizer(tiny_dir)
    (tiny_dir / "data" / "chat.txt").write_text("How are you? Fine, thanks. " * 200)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    weights = {"chat": 4.0}
    plan = BatchPlan(
        stream, tok.special, Noise(), batch=400, steps=1, pause_from=1, windows=(32, 48, 64), weights=weights
    )
    chat = stream.sources.index("chat")
    drawn = stream.source[plan.ends(np.random.default_rng(0))]
    share = float((drawn == chat).mean())
    expected = mix_shares(stream, weights)["chat"] / 100
    assert abs(share - expected) < 0.08 and expected > 0.5  # drawn up from its share of the words


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
    assert train.main(["--tiny", "--data", str(data), "--out", str(run), "--dropout", "0.05"]) == 0
    assert (run / "last.pt").exists()
    checkpoint = torch.load(run / "last.pt", weights_only=False)
    assert checkpoint["encoder"]["dropout"] == 0.05  # the recipe's, not BERT's 0.1
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
                "--parity-windows",
                "200",
                "--punct-bias",
                "-0.5",
                "0",
                "0",
                "0",
                "--case-bias",
                "-1",
                "0",
                "0",
            ]
        )
        == 0
    )
    assert (shipped / "model.onnx").stat().st_size <= 25_000_000
    import onnx

    ops = {n.name: n.op_type for n in onnx.load(str(shipped / "model.onnx")).graph.node}
    assert all(ops[name] == "MatMul" for name in export.KEEP_FP32)  # left in fp32, as asked
    # and the others int8
    assert all(ops.get(f"/layers.{k}/ff_out/MatMul_quant") == "MatMulInteger" for k in range(6))
    model = PunctuationModel(shipped)  # the engine loads what export wrote
    # No decoder flag given: the export keeps the shipped model's settings (its config.json is the
    # one place they live), window included.
    from engine.punctuation.model import ModelConfig, shipped_model_dir

    ours = ModelConfig.load(shipped_model_dir())
    assert model.config.decoder == ours.decoder and model.config.window == ours.window
    assert model.config.punct_bias == (-0.5, 0.0, 0.0, 0.0)  # the calibration, written after parity
    assert model.config.case_bias == (-1.0, 0.0, 0.0)
    ids = model.tokenizer.encode_words("it is a truth universally acknowledged".split())
    punct, case = model.tag([build_window(ids, len(ids) - 1, model.special)])[0]
    assert punct.shape == (len(ids), 4) and case.shape == (len(ids), 3)
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

    # a smaller network, warm-started from this run: its first two layers, trained on, exported
    small = tmp_path / "small"
    args = ["--tiny", "--data", str(data), "--out", str(small), "--init-from", str(run / "last.pt")]
    assert train.main([*args, "--layers", "2", "--steps", "20"]) == 0
    state = torch.load(small / "last.pt", weights_only=False)
    assert state["encoder"]["layers"] == 2
    assert {k.split(".")[1] for k in state["model"] if k.startswith("layers.")} == {"0", "1"}
    ff_in = "layers.0.ff_in.weight"
    assert not torch.equal(state["model"][ff_in], checkpoint["model"][ff_in])  # trained on
    small_out = tmp_path / "small_shipped"
    export_args = ["--checkpoint", str(small / "last.pt"), "--out", str(small_out), "--parity-windows", "0"]
    assert export.main(export_args) == 0
    nodes = onnx.load(str(small_out / "model.onnx")).graph.node
    layers = {n.name.split("/")[1] for n in nodes if n.name.startswith("/layers.")}
    assert layers == {"layers.0", "layers.1"}
    assert (small_out / "model.onnx").stat().st_size < (shipped / "model.onnx").stat().st_size
    small_model = PunctuationModel(small_out)
    punct, case = small_model.tag([build_window(ids, len(ids) - 1, small_model.special)])[0]
    assert punct.shape == (len(ids), 4) and case.shape == (len(ids), 3)

    # a release rebuilt from its int8 export (this one reads cues: the default recipe draws them)
    # answers as the export does, and a fine-tune on the timed phase alone starts from it
    from training import from_onnx

    text = tmp_path / "text.txt"
    text.write_text("it is a truth universally acknowledged that a single man must be in want of a wife " * 8)
    rebuilt = tmp_path / "rebuilt.pt"
    assert from_onnx.main([str(shipped), "--out", str(rebuilt), "--cues", "--check-text", str(text)]) == 0
    state = torch.load(rebuilt, weights_only=False)
    assert state["encoder"]["cues"] == CUE_COUNT and state["model"]["cue_proj.weight"].any()  # read back
    assert from_onnx.agreement(from_onnx.rebuild(shipped, cues=True), shipped, text.read_text()) > 0.9
    tuned = tmp_path / "tuned"
    args = [
        "--tiny",
        "--data",
        str(data),
        "--out",
        str(tuned),
        "--init-from",
        str(rebuilt),
        "--pause-phase",
        "1",
    ]
    assert train.main(args) == 0
    tuned_cues = torch.load(tuned / "last.pt", weights_only=False)["model"]["cue_proj.weight"]
    assert not torch.equal(tuned_cues, state["model"]["cue_proj.weight"])  # trained on
    assert from_onnx.main([str(tmp_path / "nowhere"), "--out", str(rebuilt)]) == 2


def test_batches_depend_only_on_the_step_whatever_the_workers(tiny_dir):
    """Resuming at step k, or building batches in worker processes, trains on the same data."""
    from training.batches import BatchPlan
    from training.train_loop import StepBatches

    tok = tokenizer(tiny_dir)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    plan = BatchPlan(
        stream, tok.special, Noise(pause_dropout=0.0), batch=16, steps=12, pause_from=6, windows=(32, 48, 64)
    )
    first = [plan(step) for step in range(16)]
    assert not np.array_equal(first[0][0], first[1][0])  # steps differ ...
    again = BatchPlan(
        stream, tok.special, Noise(pause_dropout=0.0), batch=16, steps=12, pause_from=6, windows=(32, 48, 64)
    )
    for step in (11, 3, 7):  # ... but any step rebuilds the same, in any order
        assert all(np.array_equal(a, b) for a, b in zip(again(step), first[step]))
    assert not any(tok.special.pause in row for ids, *_ in first[:6] for row in ids.tolist())  # text only
    assert any(tok.special.pause in row for ids, *_ in first[6:12] for row in ids.tolist())
    loader = torch.utils.data.DataLoader(StepBatches(plan, 5, 16), batch_size=None, num_workers=2)
    seen = list(loader)
    assert [int(b[0]) for b in seen] == list(range(5, 16))  # in order, resumed at step 5
    for step, ids, _mask, marks, _cases, lookahead, _cues in seen:
        assert np.array_equal(ids.numpy(), first[int(step)][0])
        assert np.array_equal(marks.numpy(), first[int(step)][2])
        assert np.array_equal(lookahead.numpy(), first[int(step)][4])


def test_collate_pads_labels_with_ignore(tiny_dir):
    tok = tokenizer(tiny_dir)
    maker = WindowMaker(build_stream(prepare_folder(tiny_dir / "data"), tok), tok.special)
    short, long = maker.make(2, 32, np.random.default_rng(0)), maker.make(60, 32, np.random.default_rng(0))
    ids, mask, marks, cases, lookahead = collate([short, long], tok.special.pad)
    n = len(short.ids)
    assert ids.shape[1] == len(long.ids) > n
    assert (mask[0, n:] == 0).all() and (marks[0, n:] == IGNORE).all() and (lookahead[0, n:] == -1).all()


def test_training_reads_the_corpus_where_livecap_corpus_points(monkeypatch, tmp_path):
    from training.recipe import Recipe

    monkeypatch.setenv("LIVECAP_CORPUS", str(tmp_path))
    assert Recipe().data == [str(tmp_path / "train"), str(tmp_path / "modern")]


@pytest.fixture
def command_line(monkeypatch, tmp_path):
    """``training.train``'s command line with the training recorded instead of run:
    (a function from arguments to the exit status, the recipes it would have trained)."""
    import training.train as train_module

    ran = []
    monkeypatch.setattr(train_module, "train", ran.append)
    corpus = tmp_path / "corpus.npz"
    corpus.write_bytes(b"")
    return (lambda *args: train_module.main(["--corpus", str(corpus), *args])), ran


def test_the_command_line_sets_the_recipes_lookahead_weight(command_line):
    # the lookahead-weight sweep (docs/experiments/2026-11-25-lookahead-loss-weights.md) runs the
    # recipe with --far-weight
    from training.recipe import Recipe

    run, ran = command_line
    assert run("--far-weight", "0.5", "--steps", "1600", "--seed", "7") == 0
    assert ran[0].far_weight == 0.5 and ran[0].steps == 1600 and ran[0].seed == 7
    assert run() == 0
    assert (ran[1].far_weight, ran[1].seed) == (Recipe().far_weight, Recipe().seed)


def test_the_command_line_sets_the_dropout_and_refuses_impossible_ones(command_line, capsys):
    # the dropout short runs (docs/experiments/2026-11-26-dropout.md) run the recipe with --dropout
    from training.recipe import Recipe

    run, ran = command_line
    assert run("--dropout", "0") == 0
    assert ran[0].dropout == 0.0
    assert run() == 0
    assert ran[1].dropout == Recipe().dropout == 0.1
    assert run("--dropout", "1") == 2
    assert len(ran) == 2 and "must be at least 0 and below 1" in capsys.readouterr().err


def test_the_command_line_sets_the_layers_kept_and_refuses_impossible_ones(command_line, capsys):
    # the smaller-network probe (docs/experiments/2026-11-27-smaller-network-three-layers.md) runs
    # the recipe with --layers
    run, ran = command_line
    assert run("--layers", "3") == 0
    assert ran[0].layers == 3
    assert run() == 0
    assert ran[1].layers is None  # all six
    assert run("--layers", "7") == 2
    assert run("--layers", "0") == 2
    assert len(ran) == 2 and "1 to 6 layers" in capsys.readouterr().err
    assert run("--steps", "10") == 2  # too few for the one-cycle schedule's warm-up
    assert len(ran) == 2 and "at least 20" in capsys.readouterr().err


def test_the_command_line_sets_the_window_lengths_and_refuses_impossible_ones(command_line, capsys):
    # the window-length sweep (docs/experiments/2026-11-26-windows-and-mix.md) runs the recipe with --windows
    from training.recipe import Recipe

    run, ran = command_line
    assert run("--windows", "32") == 0
    assert ran[0].windows == (32,)
    assert run() == 0
    assert ran[1].windows == Recipe().windows == (32, 32, 32, 64)
    assert run("--windows", "32", "1024") == 2
    assert len(ran) == 2 and "each must be 8 to 512 tokens" in capsys.readouterr().err


def test_the_command_line_weighs_sources_before_the_recipes_own_weights(command_line, capsys):
    from training.recipe import SOURCE_WEIGHTS

    run, ran = command_line
    assert run("--source-weight", "web_bible=0.5", "--source-weight", "chitchat=4") == 0
    weights = ran[0].source_weights
    assert list(weights)[:2] == ["web_bible", "chitchat"]  # first match wins: given ones come first
    assert weights["web_bible"] == 0.5 and weights["chitchat"] == 4.0
    assert weights["freedink"] == SOURCE_WEIGHTS["freedink"]  # the rest of the recipe's kept
    assert run() == 0
    assert ran[1].source_weights == SOURCE_WEIGHTS
    for bad in ("web_bible", "web_bible=lots", "=2", "web_bible=-1"):
        assert run("--source-weight", bad) == 2
        assert f"--source-weight {bad}:" in capsys.readouterr().err
    assert len(ran) == 2


def test_a_source_left_out_of_training_is_never_drawn(tiny_dir):
    """--exclude-source GLOB is a weight of 0: no window ends in it, so none holds its words."""
    from training.batches import BatchPlan, mix_shares

    tok = tokenizer(tiny_dir)
    (tiny_dir / "data" / "chat.txt").write_text("How are you? Fine, thanks. " * 200)
    stream = build_stream(prepare_folder(tiny_dir / "data"), tok)
    plan = BatchPlan(
        stream, tok.special, Noise(), batch=400, steps=1, pause_from=1, windows=(32,), weights={"chat": 0}
    )
    chat = stream.sources.index("chat")
    assert not (stream.source[plan.ends(np.random.default_rng(0))] == chat).any()
    assert mix_shares(stream, {"chat": 0})["chat"] == 0.0


def test_the_command_line_sets_cues_the_timed_phase_and_a_left_out_source(command_line, capsys, tmp_path):
    from training.speech_cues import DEFAULT_STATS

    run, ran = command_line
    assert run("--pause-phase", "1.0", "--exclude-source", "chitchat") == 0
    assert ran[0].pause_phase == 1.0 and ran[0].source_weights["chitchat"] == 0.0
    assert ran[0].cue_stats == str(DEFAULT_STATS)  # the default recipe draws word cues
    assert run("--cue-stats", "none") == 0 and ran[1].cue_stats is None
    assert run("--pause-phase", "1.5") == 2 and "must be 0 to 1" in capsys.readouterr().err
    assert run("--cue-stats", str(tmp_path / "missing.json")) == 2
    assert "no such file" in capsys.readouterr().err and len(ran) == 2


def test_the_command_line_sets_the_hint_share_and_the_pause_stretch(command_line, capsys):
    # the stretched-pause runs (docs/experiments/2026-11-27-pause-stretch-and-longer-gpu-run.md)
    from training.dataset import Noise

    run, ran = command_line
    assert run("--hints", "0.6", "--pause-stretch", "0.7", "2.5") == 0
    assert ran[0].noise.hints == 0.6 and ran[0].noise.pause_stretch == (0.7, 2.5)
    assert run() == 0
    assert ran[1].noise.hints == Noise().hints and ran[1].noise.pause_stretch == (1.0, 1.0)
    assert run("--pause-stretch", "2", "1") == 2 and "needs 0 < LOW <= HIGH" in capsys.readouterr().err
    assert run("--hints", "1.5") == 2 and "must be 0 to 1" in capsys.readouterr().err
    assert len(ran) == 2


def test_a_model_without_cues_is_rebuilt_with_the_cue_projection_at_zero(tmp_path):
    """The shipped release reads no cues: rebuilt with --cues, it answers exactly as without."""
    from engine.punctuation.model import shipped_model_dir
    from training import from_onnx

    plain = from_onnx.rebuild(shipped_model_dir(), cues=False)
    cued = from_onnx.rebuild(shipped_model_dir(), cues=True)
    assert plain.config.cues == 0 and cued.config.cues == CUE_COUNT and not cued.cue_proj.weight.any()
    ids = torch.tensor([[101, 2057, 2097, 3113, 4826, 102]])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        cues = torch.rand(1, 6, CUE_COUNT)
        assert torch.equal(plain(ids, mask)[0], cued(ids, mask, cues)[0])
