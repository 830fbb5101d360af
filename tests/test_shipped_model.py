"""The shipped punctuation model and the files that describe it belong together: the size limit,
the engine's contract, and a report (and model card) measured on this very file."""

import json

import numpy as np

from engine.files.digest import file_digest
from engine.punctuation.model import PunctuationModel, default_model_dir
from engine.punctuation.model_inputs import build_window

MODEL_DIR = default_model_dir()


def test_the_shipped_model_is_under_25_megabytes_in_either_unit():
    assert (MODEL_DIR / "model.onnx").stat().st_size <= 25_000_000


def test_the_engine_loads_it_and_it_tags_every_word():
    model = PunctuationModel(MODEL_DIR)
    words = "so what do you think we should do about the meeting tomorrow".split()
    ids = model.tokenizer.encode_words(words)
    punct, case = model.tag([build_window(ids, len(ids) - 1, model.special)])[0]
    assert punct.shape == (len(words), 4) and case.shape == (len(words), 3)
    assert np.allclose(punct.sum(1), 1, atol=1e-5) and np.allclose(case.sum(1), 1, atol=1e-5)


def test_the_shipped_report_and_model_card_were_measured_on_this_file():
    report = json.loads((MODEL_DIR / "eval_report.json").read_text(encoding="utf-8"))
    config = json.loads((MODEL_DIR / "config.json").read_text(encoding="utf-8"))
    assert report["model"]["sha256"] == file_digest(MODEL_DIR / "model.onnx")
    assert report["model"]["decoder"] == config["decoder"]
    live = report["text"]["live_default"]["overall"]["overall"]["f1"]
    assert report["targets"]["live_default_f1"]["measured"] == live
    card = (MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert f"**{live:.1f}**" in card  # the card's live figure is the report's
