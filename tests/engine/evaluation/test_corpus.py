"""The corpus location: one rule for training and the engine's evaluation tools."""

from pathlib import Path

import engine
from engine.evaluation import corpus


def test_the_corpus_defaults_to_shared_beside_the_repository(monkeypatch):
    monkeypatch.delenv(corpus.CORPUS_ENV, raising=False)
    repository = Path(engine.__file__).resolve().parents[1]
    assert corpus.corpus_dir() == repository.parent / "shared" / "corpus"
    assert corpus.dev_corpus() == repository.parent / "shared" / "corpus" / "dev"
    assert corpus.train_corpus() == repository.parent / "shared" / "corpus" / "train"


def test_the_environment_overrides_it_at_each_call(monkeypatch, tmp_path):
    monkeypatch.setenv(corpus.CORPUS_ENV, str(tmp_path / "texts"))
    assert corpus.dev_corpus() == tmp_path / "texts" / "dev"
    assert corpus.train_corpus() == tmp_path / "texts" / "train"
    monkeypatch.setenv(corpus.CORPUS_ENV, "~/texts")
    assert corpus.corpus_dir() == Path.home() / "texts"
