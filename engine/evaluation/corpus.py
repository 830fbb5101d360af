"""Where the text corpus lives: ``$LIVECAP_CORPUS``, else ``../shared/corpus`` beside the repository.

The corpus holds ``train/``, ``modern/`` and ``dev/`` folders of punctuated UTF-8 .txt files. Training
reads both and the engine's evaluation tools read ``dev/``; the rule lives here, in the
engine, because the engine never imports training while training may import the engine.
The environment is read at each call, so a test or a run can point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

CORPUS_ENV = "LIVECAP_CORPUS"


def corpus_dir() -> Path:
    override = os.environ.get(CORPUS_ENV)
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def train_corpus() -> Path:
    return corpus_dir() / "train"


def modern_corpus() -> Path:
    return corpus_dir() / "modern"


def dev_corpus() -> Path:
    return corpus_dir() / "dev"
