"""A real ONNX Runtime session on a small generated model that honours the contract."""

import json
import shutil

import numpy as np
import pytest

from engine.punctuation.model import ModelConfig, ModelError, PunctuationModel
from engine.punctuation.model_inputs import build_sample
from engine.punctuation.streaming import ModelScorer


def test_contract_shapes_and_probabilities(tiny_model):
    ids = tiny_model.tokenizer.encode_words("so what do you think about the plan".split())
    samples = [build_sample(ids, i, 2, tiny_model.special) for i in range(len(ids))]
    punct, case = tiny_model.predict(samples)
    assert punct.shape == (8, 4) and case.shape == (8, 3)
    assert np.allclose(punct.sum(1), 1, atol=1e-5) and np.allclose(case.sum(1), 1, atol=1e-5)
    # samples differ, so the model's answers differ: the [PUNCT] state really is read per sample
    assert len({tuple(np.round(r, 5)) for r in punct}) > 1


def test_padding_does_not_change_answers(tiny_model):
    ids = tiny_model.tokenizer.encode_words("hello there how are you".split())
    short = build_sample(ids, 0, 0, tiny_model.special)
    long = build_sample(ids, 3, 1, tiny_model.special)
    alone, _ = tiny_model.predict([short])
    batched, _ = tiny_model.predict([short, long])  # short gets padded in this batch
    assert np.allclose(alone[0], batched[0], atol=1e-4)


def test_batches_larger_than_max_batch(tiny_model_dir):
    model = PunctuationModel(tiny_model_dir, max_batch=4)
    ids = model.tokenizer.encode_words(["word"] * 10)
    samples = [build_sample(ids, i, 1, model.special) for i in range(10)]
    punct, _ = model.predict(samples)
    full, _ = PunctuationModel(tiny_model_dir).predict(samples)
    assert punct.shape == (10, 4) and np.allclose(punct, full, atol=1e-5)


def test_scorer_matches_direct_prediction(tiny_model):
    words = "we will meet next week to talk about the project".split()
    scorer = ModelScorer(tiny_model)
    punct, _ = scorer.score(words, [False] * len(words), [(3, 2), (9, 0)])
    ids = tiny_model.tokenizer.encode_words(words)
    direct, _ = tiny_model.predict(
        [build_sample(ids, 3, 2, tiny_model.special), build_sample(ids, 9, 0, tiny_model.special)]
    )
    assert np.allclose(punct, direct, atol=1e-6)


def test_int8_quantized_model_runs(tmp_path):
    from engine.evaluation.synthetic_model import write_model_dir

    model = PunctuationModel(write_model_dir(tmp_path / "q", quantize=True))
    punct, case = model.predict([[5, 100, 1, 6]])
    assert punct.shape == (1, 4) and case.shape == (1, 3)


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
