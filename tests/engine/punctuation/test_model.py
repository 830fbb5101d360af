"""A real ONNX Runtime session on a small generated model that honours the contract."""

import json
import shutil

import numpy as np
import pytest

from engine.punctuation.model import ModelConfig, ModelError, PunctuationModel
from engine.punctuation.model_inputs import build_window
from engine.punctuation.scoring import ModelScorer


def _window(model, text, end=None):
    ids = model.tokenizer.encode_words(text.split())
    return build_window(ids, len(ids) - 1 if end is None else end, model.special)


def test_contract_shapes_and_probabilities(tiny_model):
    [(punct, case)] = tiny_model.tag([_window(tiny_model, "so what do you think about the plan")])
    assert punct.shape == (8, 4) and case.shape == (8, 3)
    assert np.allclose(punct.sum(1), 1, atol=1e-5) and np.allclose(case.sum(1), 1, atol=1e-5)
    # every word gets its own answer, read at its own carrier token
    assert len({tuple(np.round(r, 5)) for r in punct}) > 1


def test_padding_does_not_change_answers(tiny_model):
    short, long = _window(tiny_model, "hello there"), _window(tiny_model, "hello there how are you today")
    [(alone, _)] = tiny_model.tag([short])
    (batched, _), _ = tiny_model.tag([short, long])  # short gets padded in this batch
    assert np.allclose(alone, batched, atol=1e-4)


def test_batches_larger_than_max_batch(tiny_model_dir):
    model = PunctuationModel(tiny_model_dir, max_batch=4)
    ids = model.tokenizer.encode_words("we will meet next week to talk about the project".split())
    windows = [build_window(ids, end, model.special) for end in range(10)]
    small = model.tag(windows)
    full = PunctuationModel(tiny_model_dir).tag(windows)
    assert [p.shape for p, _ in small] == [(k + 1, 4) for k in range(10)]
    assert all(np.allclose(a, b, atol=1e-5) for (a, _), (b, _) in zip(small, full))


def test_scorer_reads_every_pending_position_from_one_window(tiny_model):
    words = "we will meet next week to talk about the project".split()
    scorer = ModelScorer(tiny_model)
    calls = []
    tag = tiny_model.tag
    tiny_model.tag = lambda windows: calls.append(len(windows)) or tag(windows)
    try:
        punct, _ = scorer.score(words, [False] * len(words), [(6, 3), (7, 2), (8, 1), (9, 0)])
    finally:
        del tiny_model.tag
    assert calls == [1]  # four positions, one window, one inference
    [(direct, _)] = tiny_model.tag([_window(tiny_model, " ".join(words))])
    assert np.allclose(punct, direct[6:], atol=1e-6)
    # a position asked at a shorter lookahead is read from the window that ends there
    punct, _ = scorer.score(words, [False] * len(words), [(3, 2)])
    [(direct, _)] = tiny_model.tag([_window(tiny_model, " ".join(words), end=5)])
    assert np.allclose(punct[0], direct[3], atol=1e-6)


def test_int8_quantized_model_runs(tmp_path):
    from engine.evaluation.synthetic_model import write_model_dir

    model = PunctuationModel(write_model_dir(tmp_path / "q", quantize=True))
    [(punct, case)] = model.tag([_window(model, "hello there")])
    assert punct.shape == (2, 4) and case.shape == (2, 3)


def test_a_format_1_model_is_refused_in_one_line(tiny_model_dir, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(tiny_model_dir, old)
    config = json.loads((old / "config.json").read_text())
    config["format"] = 1
    (old / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError) as refused:
        PunctuationModel(old)
    message = str(refused.value)
    assert "\n" not in message and "format 1" in message and "format-2" in message
    assert "training.export" in message and refused.value.path == old / "config.json"


def test_config_round_trip_and_decoder_defaults(tiny_model_dir):
    config = ModelConfig.load(tiny_model_dir)
    assert ModelConfig.from_dict(config.to_dict()) == config
    assert config.window == 32 and config.pause_threshold == 0.28 and config.lexicon == {"iphone": "iPhone"}


def test_missing_and_broken_model_files_give_clear_errors(tiny_model_dir, tmp_path):
    with pytest.raises(ModelError, match="no config.json"):
        PunctuationModel(tmp_path)
    broken = tmp_path / "broken"
    shutil.copytree(tiny_model_dir, broken)
    (broken / "model.onnx").unlink()
    with pytest.raises(ModelError, match="model.onnx is missing"):
        PunctuationModel(broken)
    (broken / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot load"):
        PunctuationModel(broken)
    (broken / "config.json").write_text("{oops")
    with pytest.raises(ModelError, match="cannot read"):
        PunctuationModel(broken)
    bad_labels = json.loads((tiny_model_dir / "config.json").read_text())
    bad_labels["labels"]["punct"] = ["none", "period"]
    (broken / "config.json").write_text(json.dumps(bad_labels))
    with pytest.raises(ModelError, match="labels"):
        PunctuationModel(broken)


# -- a damaged model falls back to the shipped one ------------------------------
def _corrupt_copy(source, folder, how="truncate"):
    shutil.copytree(source, folder)
    onnx = folder / "model.onnx"
    data = onnx.read_bytes()
    onnx.write_bytes(data[: len(data) // 3] if how == "truncate" else b"\x00garbage" * 100)
    return folder


@pytest.mark.parametrize("how", ["truncate", "garbage"])
def test_a_corrupt_model_falls_back_to_the_shipped_one_and_names_the_file(tiny_model_dir, tmp_path, how):
    from engine.punctuation.model import load_model_or_shipped

    bad = _corrupt_copy(tiny_model_dir, tmp_path / "mine", how)
    loaded = load_model_or_shipped(bad, shipped_dir=tiny_model_dir)
    assert loaded.fell_back and loaded.bad_file == bad / "model.onnx" and loaded.requested == bad
    assert loaded.model.model_dir == tiny_model_dir
    [(punct, _)] = loaded.model.tag([_window(loaded.model, "hello there")])
    assert punct.shape == (2, 4)  # the fallback really runs
    line = loaded.problem
    assert "\n" not in line and str(bad / "model.onnx") in line and "shipped" in line
    assert "truncated or not an ONNX model" in line and "[ONNXRuntimeError]" not in line


def test_a_good_model_loads_without_a_problem(tiny_model_dir):
    from engine.punctuation.model import load_model_or_shipped

    loaded = load_model_or_shipped(tiny_model_dir, shipped_dir=tiny_model_dir)
    assert not loaded.fell_back and loaded.problem is None and loaded.model.model_dir == tiny_model_dir


def test_a_corrupt_model_falls_back_to_the_real_shipped_model(tiny_model_dir, tmp_path):
    from engine.punctuation.model import load_model_or_shipped, shipped_model_dir

    loaded = load_model_or_shipped(_corrupt_copy(tiny_model_dir, tmp_path / "mine"))
    assert loaded.fell_back and loaded.model.model_dir == shipped_model_dir()


def test_a_damaged_shipped_model_says_which_file_and_reinstall(tiny_model_dir, tmp_path):
    from engine.punctuation.model import load_model_or_shipped

    shipped = _corrupt_copy(tiny_model_dir, tmp_path / "shipped")
    with pytest.raises(ModelError) as asked_for_shipped:
        load_model_or_shipped(shipped, shipped_dir=shipped)
    mine = _corrupt_copy(tiny_model_dir, tmp_path / "mine")
    with pytest.raises(ModelError) as both_bad:
        load_model_or_shipped(mine, shipped_dir=shipped)
    for error in (asked_for_shipped.value, both_bad.value):
        message = str(error)
        assert "\n" not in message and "reinstall livecap" in message
        assert str(shipped / "model.onnx") in message and error.path == shipped / "model.onnx"
    assert str(mine / "model.onnx") in str(both_bad.value)


def test_a_punctuation_logit_bias_in_config_reweights_the_marks(tiny_model_dir, tmp_path):
    biased_dir = tmp_path / "biased"
    shutil.copytree(tiny_model_dir, biased_dir)
    config = json.loads((biased_dir / "config.json").read_text())
    config["punct_logit_bias"] = {"none": -1.0, "comma": 0.5}
    (biased_dir / "config.json").write_text(json.dumps(config))
    plain, biased = PunctuationModel(tiny_model_dir), PunctuationModel(biased_dir)
    assert biased.config.punct_bias == (-1.0, 0.5, 0.0, 0.0)
    assert ModelConfig.from_dict(biased.config.to_dict()) == biased.config
    [(p, case_p)] = plain.tag([_window(plain, "so what do you think about the plan")])
    [(q, case_q)] = biased.tag([_window(biased, "so what do you think about the plan")])
    # softmax(logits + b) is softmax(logits) reweighted by exp(b): fewer "none", more commas
    expected = p * np.exp([-1.0, 0.5, 0.0, 0.0])
    assert np.allclose(q, expected / expected.sum(1, keepdims=True), atol=1e-5)
    assert (q[:, 0] < p[:, 0]).all() and np.allclose(case_q, case_p)
    config["punct_logit_bias"] = {"exclamation": 1.0}
    (biased_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="unknown labels"):
        PunctuationModel(biased_dir)


def test_a_case_logit_bias_in_config_reweights_the_case_classes_only(tiny_model_dir, tmp_path):
    biased_dir = tmp_path / "biased"
    shutil.copytree(tiny_model_dir, biased_dir)
    config = json.loads((biased_dir / "config.json").read_text())
    config["case_logit_bias"] = {"lower": -1.5}
    (biased_dir / "config.json").write_text(json.dumps(config))
    plain, biased = PunctuationModel(tiny_model_dir), PunctuationModel(biased_dir)
    assert biased.config.case_bias == (-1.5, 0.0, 0.0)
    assert ModelConfig.from_dict(biased.config.to_dict()) == biased.config
    [(p, case_p)] = plain.tag([_window(plain, "we met anne elliot in bath")])
    [(q, case_q)] = biased.tag([_window(biased, "we met anne elliot in bath")])
    expected = case_p * np.exp([-1.5, 0.0, 0.0])
    assert np.allclose(case_q, expected / expected.sum(1, keepdims=True), atol=1e-5)
    assert (case_q[:, 0] < case_p[:, 0]).all() and np.allclose(q, p)
    config["case_logit_bias"] = {"title": 1.0}
    (biased_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="case_logit_bias names unknown labels"):
        PunctuationModel(biased_dir)
