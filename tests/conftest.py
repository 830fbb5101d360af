import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A real ONNX model with random weights that honours the model contract."""
    from engine.evaluation.synthetic_model import write_model_dir

    return write_model_dir(tmp_path_factory.mktemp("tiny_model"), lexicon={"iphone": "iPhone"})


@pytest.fixture(scope="session")
def tiny_model(tiny_model_dir):
    from engine.punctuation.model import PunctuationModel

    return PunctuationModel(tiny_model_dir)
