"""A punctuation model's ``config.json``: its contract as data, read and checked in one place.

Format 2 (shared with ``training/export.py`` and ``engine/evaluation/synthetic_model.py``; the model
it describes is ``engine.punctuation.model``'s): the labels, the carrier, the streaming window, the
pause threshold, the special tokens, the files, the recommended decoder settings, the logit biases,
the word cues the model reads and how a recognizer's marks and the cues fold into its answers.
Format 1, the retired per-position classifier, is refused with one line; so is anything the engine
cannot honour (other labels, other cues, a fusion for a recognizer kind livecap does not have).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.punctuation.cue_fusion import CueFusion
from engine.punctuation.hint_fusion import HintFusion
from engine.punctuation.model_inputs import CARRIER, DEFAULT_PAUSE_THRESHOLD, DEFAULT_WINDOW
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.word_cues import CUE_NAMES
from engine.recognizers.kinds import KINDS, LANGUAGE_KINDS, find_kind
from engine.words import CASE_LABELS, PUNCT_LABELS

__all__ = ["CONFIG_FILE", "FORMAT", "ModelConfig", "ModelError"]

CONFIG_FILE = "config.json"
FORMAT = 2


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


def _logit_bias(data: dict, key: str, labels: Sequence[str], source: str) -> tuple[float, ...]:
    """One bias per label from ``data[key]`` (a label -> value object; absent labels get 0)."""
    bias = data.get(key, {})
    unknown = set(bias) - set(labels)
    if unknown:
        raise ModelError(f"{source}: {key} names unknown labels {sorted(unknown)}", source)
    return tuple(float(bias.get(label, 0.0)) for label in labels)
