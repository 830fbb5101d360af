"""The punctuation model on disk and the ONNX Runtime session that runs it.

Contract, format 2 (shared with ``training/export.py`` and ``engine/evaluation/synthetic_model.py``):
inputs ``input_ids`` and ``attention_mask`` (int64 [B, T]), and, for a model whose config
lists ``"cues"``, ``word_cues`` (float32 [B, T, cues]: ``word_cues.CUE_NAMES`` per token); outputs
``punct_logits`` [B, T, 4] (none, comma, period, question: the mark after the
word) and ``case_logits`` [B, T, 3] (lower, capitalized, upper), one row per
token; a word's answer is the row of its carrier token (``model_inputs.Window``).
A ``config.json`` beside the model (``model_config.ModelConfig``) describes the rest.

Which folder: the one a front end asked for, else ``LIVECAP_PUNCT_MODEL``, else the shipped
model; ``load_model_or_shipped`` falls back to the shipped one, with one line saying why, when the
requested one is bad. ``ModelConfig`` and ``ModelError`` are this module's names too: a loaded
model's ``config`` is one, and every failure to load raises the other.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.punctuation.model_config import CONFIG_FILE, FORMAT, ModelConfig, ModelError
from engine.punctuation.model_inputs import Window, WordTokenizer, pad_batch, pad_cues

__all__ = [
    "MODEL_ENV_VAR",
    "LoadedModel",
    "ModelConfig",
    "ModelError",
    "PunctuationModel",
    "default_model_dir",
    "load_model_or_shipped",
    "model_folder",
    "shipped_model_dir",
    "softmax",
]

MODEL_ENV_VAR = "LIVECAP_PUNCT_MODEL"


def shipped_model_dir() -> Path:
    """Where the punctuation model that ships with livecap lives (``models/punct``)."""
    import livecap_models

    return Path(livecap_models.__file__).parent / "punct"


def default_model_dir() -> Path:
    override = os.environ.get(MODEL_ENV_VAR)
    return Path(override) if override else shipped_model_dir()


def model_folder(model_dir: str | Path | None = None) -> Path:
    """The punctuation model folder a front end asked for, ``default_model_dir()`` for None: the
    one place a missing choice is resolved."""
    return Path(model_dir) if model_dir is not None else default_model_dir()


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


class PunctuationModel:
    """Owns the ONNX session and the tokenizer; turns samples into class probabilities."""

    def __init__(self, model_dir: str | Path | None = None, threads: int = 1, max_batch: int = 64):
        from engine.onnx_runtime import import_onnxruntime

        ort = import_onnxruntime()

        self.model_dir = model_folder(model_dir)
        self.config = ModelConfig.load(self.model_dir)
        model_path = self.model_dir / self.config.model_file
        tokenizer_path = self.model_dir / self.config.tokenizer_file
        for needed in (model_path, tokenizer_path):
            if not needed.is_file():
                raise ModelError(
                    f"the punctuation model in {self.model_dir} is incomplete: {needed.name} is missing",
                    needed,
                )
        try:
            self.tokenizer = WordTokenizer(tokenizer_path, self.config.pause_token, self.config.drop_token)
        except Exception as exc:  # tokenizers raises plain Exceptions for bad JSON
            raise ModelError(f"cannot load {tokenizer_path}: {exc}", tokenizer_path) from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, int(threads))
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelError(f"cannot load {model_path}: {_onnx_reason(exc)}", model_path) from exc
        inputs = {i.name for i in self._session.get_inputs()}
        outputs = {o.name for o in self._session.get_outputs()}
        ranks = {o.name: len(o.shape) for o in self._session.get_outputs()}
        if (
            not {"input_ids", "attention_mask"} <= inputs
            or not {"punct_logits", "case_logits"} <= outputs
            or ranks["punct_logits"] != 3
            or ranks["case_logits"] != 3
        ):
            raise ModelError(
                f"{model_path} does not honour the format-{FORMAT} model contract (inputs "
                f"{sorted(inputs)}, outputs {sorted(outputs)} need one row per token)",
                model_path,
            )
        if bool(self.config.cues) != ("word_cues" in inputs):
            raise ModelError(
                f"{model_path} and its {CONFIG_FILE} disagree on the word_cues input "
                f"(model inputs {sorted(inputs)}, config cues {list(self.config.cues)})",
                model_path,
            )
        self.threads = options.intra_op_num_threads
        self.max_batch = max_batch
        self._punct_bias = np.asarray(self.config.punct_bias, dtype=np.float32)
        self._case_bias = np.asarray(self.config.case_bias, dtype=np.float32)

    @property
    def special(self):
        return self.tokenizer.special

    @property
    def uses_cues(self) -> bool:
        """The model reads word cues (timings, recognizer hints) beside the tokens."""
        return bool(self.config.cues)

    def tag(self, windows: Sequence[Window]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Softmax probabilities for every word of each window, in word order: punctuation
        [words, 4] and case [words, 3]. Up to ``max_batch`` windows share one inference."""
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(0, len(windows), self.max_batch):
            batch = windows[i : i + self.max_batch]
            ids, mask = pad_batch([w.ids for w in batch], self.special.pad)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if self.config.cues:
                feeds["word_cues"] = pad_cues(batch, ids.shape[1], len(self.config.cues))
            punct, case = self._session.run(["punct_logits", "case_logits"], feeds)
            for row, w in enumerate(batch):
                out.append(
                    (
                        softmax(punct[row, w.carriers] + self._punct_bias),
                        softmax(case[row, w.carriers] + self._case_bias),
                    )
                )
        return out


def _onnx_reason(exc: Exception) -> str:
    """ONNX Runtime's load error without its code and path prefix, which the caller already names:
    ``[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from X failed:Protobuf parsing failed.``"""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    detail = re.sub(r"^\[ONNXRuntimeError\].*?failed:\s*", "", text)
    if "INVALID_PROTOBUF" in text or "No graph was found" in text:
        return f"it is truncated or not an ONNX model ({detail.rstrip('.')})"
    return detail


@dataclass(frozen=True)
class LoadedModel:
    """What ``load_model_or_shipped`` loaded. ``problem`` is one line for the user when the
    requested model was bad and the shipped one runs instead (a CLI warning, a GUI banner);
    ``bad_file`` is the file at fault. Both are None when the requested model loaded."""

    model: PunctuationModel
    requested: Path
    problem: str | None = None
    bad_file: Path | None = None

    @property
    def fell_back(self) -> bool:
        return self.problem is not None


def load_model_or_shipped(
    model_dir: str | Path | None = None,
    threads: int = 1,
    max_batch: int = 64,
    shipped_dir: str | Path | None = None,
) -> LoadedModel:
    """The requested punctuation model (None: ``default_model_dir()``), or, if that one is bad,
    the shipped model with a one-line ``problem`` saying which file was bad and why: captions
    with the model livecap ships beat no captions. Raises ``ModelError`` only when the shipped
    model itself is bad, which only reinstalling livecap repairs. ``shipped_dir`` overrides
    where the shipped model is (tests). Every front end loads its model here."""
    requested = model_folder(model_dir)
    shipped = Path(shipped_dir) if shipped_dir is not None else shipped_model_dir()
    try:
        return LoadedModel(PunctuationModel(requested, threads, max_batch), requested)
    except ModelError as exc:
        if _same_folder(requested, shipped):
            raise _shipped_is_bad(exc, shipped) from exc
        bad, reason = exc.path or requested, _one_line(exc)
    try:
        model = PunctuationModel(shipped, threads, max_batch)
    except ModelError as exc:
        raise _shipped_is_bad(exc, shipped, also=reason) from exc
    problem = f"{reason}; using the shipped punctuation model instead"
    return LoadedModel(model, requested, problem, bad)


def _shipped_is_bad(exc: ModelError, shipped: Path, also: str | None = None) -> ModelError:
    first = f"{also}; and " if also else ""
    return ModelError(
        f"{first}the shipped punctuation model is damaged: {_one_line(exc)}; reinstall livecap",
        exc.path or shipped,
    )


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).splitlines())


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b
