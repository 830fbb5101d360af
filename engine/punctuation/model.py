"""The punctuation model on disk and the ONNX Runtime session that runs it.

Contract, format 2 (shared with ``training/export.py`` and ``engine/evaluation/synthetic_model.py``):
inputs ``input_ids`` and ``attention_mask`` (int64 [B, T]), and, for a model whose config
lists ``"cues"``, ``word_cues`` (float32 [B, T, cues]: ``word_cues.CUE_NAMES`` per token); outputs
``punct_logits`` [B, T, 4] (none, comma, period, question: the mark after the
word) and ``case_logits`` [B, T, 3] (lower, capitalized, upper), one row per
token; a word's answer is the row of its carrier token (``model_inputs.Window``).
A ``config.json`` beside the model names the format, the labels, the carrier,
the streaming window, the pause threshold, the special tokens and the
recommended decoder settings. Format 1, the retired per-position classifier, is
refused with one line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.punctuation.cue_fusion import CueFusion
from engine.punctuation.hint_fusion import HintFusion
from engine.punctuation.model_inputs import (
    CARRIER,
    DEFAULT_PAUSE_THRESHOLD,
    DEFAULT_WINDOW,
    Window,
    WordTokenizer,
    pad_batch,
    pad_cues,
)
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.word_cues import CUE_NAMES
from engine.recognizers.kinds import KINDS, LANGUAGE_KINDS, find_kind
from engine.words import CASE_LABELS, PUNCT_LABELS

CONFIG_FILE = "config.json"
FORMAT = 2
MODEL_ENV_VAR = "LIVECAP_PUNCT_MODEL"


class ModelError(RuntimeError):
    """A model folder is missing, incomplete or does not honour the contract.

    ``path``: the file (or folder) at fault, so a front end can name it without parsing the message."""

    def __init__(self, message: str, path: str | Path | None = None):
        super().__init__(message)
        self.path = None if path is None else Path(path)


@dataclass(frozen=True)
class ModelConfig:
    window: int = DEFAULT_WINDOW
    pause_token: str = "[unused1]"
    drop_token: str = "[unused2]"
    model_file: str = "model.onnx"
    tokenizer_file: str = "tokenizer.json"
    # The recommended decoder settings, with the pause threshold the model was trained with
    # (a top-level key of config.json, since the training data depends on it).
    decoder: DecoderSettings = field(default_factory=DecoderSettings)
    lexicon: dict[str, str] = field(default_factory=dict)
    # Added to the punctuation logits before the softmax, one value per label. Training weights
    # the classes and then restores the priors; what is left makes the model cautious (more
    # precision than recall), and a bias on "none", chosen on held-apart dev text, trades the
    # surplus precision for recall.
    punct_bias: tuple[float, ...] = (0.0,) * len(PUNCT_LABELS)
    # Added to the case logits, one value per label. A negative bias on "lower" trades the case
    # head's surplus precision on names for recall, chosen on held-apart dev text like punct_bias.
    case_bias: tuple[float, ...] = (0.0,) * len(CASE_LABELS)
    # The timing and hint cues the model reads (``word_cues.CUE_NAMES``, an extra ONNX input
    # ``word_cues``); () for a model that reads text and [PAUSE] alone.
    cues: tuple[str, ...] = ()
    # How a recognizer's own marks and capitals fold into this model's probabilities
    # (``hint_fusion``); None: they are ignored (the model alone, or reading them as cues).
    hint_fusion: HintFusion | None = None
    # How a word's timing and audio cues fold into this model's mark probabilities after it
    # answers (``cue_fusion``); None: a text model's answers stand as they are.
    cue_fusion: CueFusion | None = None
    # A fusion fitted on one recognizer's words, by its kind's name: its word times and errors are
    # its own (PocketSphinx's words answer the cues otherwise than Whisper's). Others get ``cue_fusion``.
    cue_fusion_by_recognizer: dict[str, CueFusion] = field(default_factory=dict)

    def cue_fusion_for(self, recognizer: str | None) -> CueFusion | None:
        """The fusion for words of the recognizer kind ``recognizer`` (None: not known)."""
        return self.cue_fusion_by_recognizer.get(recognizer or "", self.cue_fusion)

    @property
    def pause_threshold(self) -> float | None:
        return self.decoder.pause_threshold

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "labels": {"punct": list(PUNCT_LABELS), "case": list(CASE_LABELS)},
            "window": self.window,
            "carrier": CARRIER,
            "pause_threshold": self.pause_threshold,
            "special_tokens": {"pause": self.pause_token, "drop": self.drop_token},
            "files": {"model": self.model_file, "tokenizer": self.tokenizer_file},
            "decoder": self.decoder.to_config(),
            "punct_logit_bias": dict(zip(PUNCT_LABELS, self.punct_bias)),
            "case_logit_bias": dict(zip(CASE_LABELS, self.case_bias)),
            "lexicon": dict(sorted(self.lexicon.items())),
            **({"cues": list(self.cues)} if self.cues else {}),
            **({"hint_fusion": self.hint_fusion.to_config()} if self.hint_fusion else {}),
            **({"cue_fusion": self.cue_fusion.to_config()} if self.cue_fusion else {}),
            **self._fusions_by_recognizer(),
        }

    def _fusions_by_recognizer(self) -> dict:
        """The ``cue_fusion_by_recognizer`` key of config.json, absent when there are none."""
        if not self.cue_fusion_by_recognizer:
            return {}
        fusions = {name: fusion.to_config() for name, fusion in self.cue_fusion_by_recognizer.items()}
        return {"cue_fusion_by_recognizer": fusions}

    @classmethod
    def from_dict(cls, data: dict, source: str = "config.json") -> ModelConfig:
        version = data.get("format")
        if version != FORMAT:
            what = (
                "format 1 is the retired per-position classifier"
                if version == 1
                else f"format {version!r} is unknown"
            )
            raise ModelError(
                f"{source}: {what}; this livecap needs a format-{FORMAT} model "
                "(re-export it with python -m training.export, or reinstall livecap)",
                source,
            )
        if data.get("carrier", CARRIER) != CARRIER:
            raise ModelError(
                f"{source}: carrier {data.get('carrier')!r}; this livecap reads each word at its "
                f"{CARRIER!r} token",
                source,
            )
        try:
            labels = data.get("labels", {})
            if (
                tuple(labels.get("punct", PUNCT_LABELS)) != PUNCT_LABELS
                or tuple(labels.get("case", CASE_LABELS)) != CASE_LABELS
            ):
                raise ModelError(
                    f"{source}: labels {labels} differ from the engine's {PUNCT_LABELS} / {CASE_LABELS}",
                    source,
                )
            special = data.get("special_tokens", {})
            files = data.get("files", {})
            decoder = DecoderSettings.from_config(
                data.get("decoder", {}), data.get("pause_threshold", DEFAULT_PAUSE_THRESHOLD)
            )
            punct_bias = _logit_bias(data, "punct_logit_bias", PUNCT_LABELS, source)
            case_bias = _logit_bias(data, "case_logit_bias", CASE_LABELS, source)
            cues = tuple(str(c) for c in data.get("cues", ()))
            if cues and cues != CUE_NAMES:
                raise ModelError(
                    f"{source}: the model reads cues {list(cues)}, this livecap computes "
                    f"{list(CUE_NAMES)}; re-export it with this livecap's training.export",
                    source,
                )
            if cues and ("cue_fusion" in data or "cue_fusion_by_recognizer" in data):
                raise ModelError(
                    f"{source}: the model reads its cues itself and folds them in again (cue_fusion); "
                    "remove cue_fusion from it",
                    source,
                )
            by_recognizer = data.get("cue_fusion_by_recognizer", {})
            unknown = sorted(str(name) for name in by_recognizer if find_kind(str(name)) is None)
            if unknown:
                # A misspelt kind would never be chosen, and its words would get the default
                # fusion without a word said.
                raise ModelError(
                    f"{source}: cue_fusion_by_recognizer names unknown recognizers {unknown}; "
                    f"livecap's are {[k.name for k in KINDS + LANGUAGE_KINDS]}",
                    source,
                )
            return cls(
                window=int(data.get("window", DEFAULT_WINDOW)),
                pause_token=special.get("pause", "[unused1]"),
                drop_token=special.get("drop", "[unused2]"),
                model_file=files.get("model", "model.onnx"),
                tokenizer_file=files.get("tokenizer", "tokenizer.json"),
                decoder=decoder,
                lexicon={str(k).lower(): str(v) for k, v in data.get("lexicon", {}).items()},
                punct_bias=punct_bias,
                case_bias=case_bias,
                cues=cues,
                hint_fusion=HintFusion.from_config(data["hint_fusion"]) if "hint_fusion" in data else None,
                cue_fusion=CueFusion.from_config(data["cue_fusion"]) if "cue_fusion" in data else None,
                cue_fusion_by_recognizer={
                    str(name): CueFusion.from_config(fusion) for name, fusion in by_recognizer.items()
                },
            )
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise ModelError(f"{source} is malformed: {exc}", source) from exc

    @classmethod
    def load(cls, model_dir: Path) -> ModelConfig:
        path = Path(model_dir) / CONFIG_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(f"no {CONFIG_FILE} in {model_dir}", path) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"cannot read {path}: {exc}", path) from exc
        if not isinstance(data, dict):
            raise ModelError(f"{path} must hold a JSON object", path)
        return cls.from_dict(data, str(path))

    def save(self, model_dir: Path) -> None:
        # Non-ASCII lexicon entries stay readable (the file is edited by hand when a model is tuned).
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        (Path(model_dir) / CONFIG_FILE).write_text(text, encoding="utf-8")


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


def _logit_bias(data: dict, key: str, labels: Sequence[str], source: str) -> tuple[float, ...]:
    """One bias per label from ``data[key]`` (a label -> value object; absent labels get 0)."""
    bias = data.get(key, {})
    unknown = set(bias) - set(labels)
    if unknown:
        raise ModelError(f"{source}: {key} names unknown labels {sorted(unknown)}", source)
    return tuple(float(bias.get(label, 0.0)) for label in labels)


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
