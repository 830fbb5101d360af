"""Export a training checkpoint as the model livecap ships, and check it still agrees.

    python -m training.export [--checkpoint runs/punct/last.pt] [--out models/punct]

1. torch → ONNX (fp32) with the engine's format-2 contract (``engine/punctuation/model.py``);
2. dynamic int8 quantization with onnxruntime, per output channel (weights of every MatMul
   and the embedding table: that is what brings the file under 25 MB);
3. ``tokenizer.json`` (padding and truncation off) and ``config.json`` beside it;
4. parity on real dev windows, every word read: int8 vs fp32 F1, and ONNX vs torch argmax
   agreement.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from engine.evaluation.corpus import dev_corpus
from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model import ModelConfig, ModelError, PunctuationModel, model_folder
from engine.punctuation.model_inputs import DEFAULT_WINDOW
from engine.punctuation.settings import DecoderSettings
from engine.punctuation.word_cues import CUE_NAMES
from training.base_model import fetch_base_model
from training.dataset import IGNORE, WindowMaker, build_stream, collate
from training.metrics import punctuation_scores
from training.model import EncoderConfig, PunctuationTagger
from training.prepare import build_lexicon, load_corpus


def load_checkpoint(path: Path) -> PunctuationTagger:
    state = torch.load(path, weights_only=False, map_location="cpu")
    model = PunctuationTagger(EncoderConfig(**state["encoder"]))
    model.load_state_dict(state["model"])
    return model.eval()


def export_onnx(model: PunctuationTagger, path: Path) -> None:
    ids = torch.tensor([[101, 5, 6, 7, 102]])  # any in-vocabulary ids: the axes are dynamic
    cues = model.config.cues
    inputs = (ids, torch.ones_like(ids)) + ((torch.zeros(1, 5, cues),) if cues else ())
    names = ["input_ids", "attention_mask"] + (["word_cues"] if cues else [])
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # the legacy exporter is the one that fits
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    torch.onnx.export(
        model,
        inputs,
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=names,
        output_names=["punct_logits", "case_logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "tokens"},
            **({"word_cues": {0: "batch", 1: "tokens"}} if cues else {}),
            "attention_mask": {0: "batch", 1: "tokens"},
            "punct_logits": {0: "batch", 1: "tokens"},
            "case_logits": {0: "batch", 1: "tokens"},
        },
    )


# Node names as torch.onnx.export writes them for training.model. Two small attention output
# projections stay fp32: no single matrix carries the int8 error, and these keep the file within
# the shipped model's size limit (docs/experiments/2026-11-26-export-fp32-matmuls.md).
KEEP_FP32 = ("/layers.0/attn_out/MatMul", "/layers.1/attn_out/MatMul")


def quantize(fp32: Path, int8: Path, keep_fp32: Sequence[str] = KEEP_FP32) -> None:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before the import below: it would write a device id
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per output channel: closer to fp32 at no size cost.
    quantize_dynamic(
        str(fp32),
        str(int8),
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Gather"],
        per_channel=True,
        nodes_to_exclude=list(keep_fp32),
    )


def write_tokenizer(base: Path, out: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    tokenizer.no_padding()  # the shipped file pads and truncates to 128; samples are built by hand
    tokenizer.no_truncation()
    tokenizer.save(str(out / "tokenizer.json"))


def parity(torch_model, fp32_dir: Path, int8_dir: Path, windows: int, threads: int, dev: Path) -> dict:
    """Argmax agreement and F1 on every word of ``windows`` clean dev windows (random right edges)."""
    int8 = PunctuationModel(int8_dir, threads=threads)
    fp32 = PunctuationModel(fp32_dir, threads=threads)
    stream = build_stream(prepare_folder(dev), int8.tokenizer)
    maker = WindowMaker(stream, int8.special)
    rng = np.random.default_rng(0)
    ends = rng.permutation(len(stream))[:windows]
    made = [maker.make(int(e), int8.config.window, rng, pauses=False) for e in ends]
    session_outputs = {"int8": [], "fp32": [], "torch": []}
    marks = []
    for k in range(0, len(made), 64):
        ids, mask, labels, _, _ = collate(made[k : k + 64], int8.special.pad)
        at = labels != IGNORE
        marks.append(labels[at])
        feeds = {"input_ids": ids, "attention_mask": mask}
        if int8.uses_cues:  # parity on bare text: the cues' own effect is measured by training.evaluate
            feeds["word_cues"] = np.zeros((*ids.shape, len(int8.config.cues)), dtype=np.float32)
        for name, runtime in (("int8", int8), ("fp32", fp32)):
            logits = runtime._session.run(["punct_logits"], feeds)[0]
            session_outputs[name].append(logits.argmax(-1)[at])
        with torch.no_grad():
            logits = torch_model(torch.from_numpy(ids), torch.from_numpy(mask))[0].numpy()
        session_outputs["torch"].append(logits.argmax(-1)[at])
    marks = np.concatenate(marks)
    p8, p32, pt = (np.concatenate(session_outputs[k]) for k in ("int8", "fp32", "torch"))
    f8 = punctuation_scores(marks, p8)["overall"]["f1"]
    f32 = punctuation_scores(marks, p32)["overall"]["f1"]
    return {
        "dev_windows": len(made),
        "dev_words": int(len(marks)),
        "window": int8.config.window,
        "f1_fp32": f32,
        "f1_int8": f8,
        "f1_drop_int8": round(f32 - f8, 2),
        "argmax_agreement_int8_vs_torch": round(100 * float((p8 == pt).mean()), 2),
        "argmax_agreement_fp32_onnx_vs_torch": round(100 * float((p32 == pt).mean()), 2),
    }


def shipped_config() -> ModelConfig:
    """The shipped model's config.json, or the settings' own defaults where it cannot be read."""
    try:
        return ModelConfig.load(model_folder())
    except (ModelError, OSError, ImportError):  # a bare training checkout has no livecap_models
        return ModelConfig(window=DEFAULT_WINDOW, decoder=DecoderSettings())


def main(argv=None) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkpoint", type=Path, default=Path("runs/punct/last.pt"))
    parser.add_argument("--out", type=Path, default=Path("models/punct"))
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="corpus cache for the casing lexicon (default: corpus.npz beside the checkpoint)",
    )
    # The defaults are the shipped model's own settings (its config.json, the one place they live):
    # a re-export changes only what it is told to.
    shipped = shipped_config()
    d = shipped.decoder
    parser.add_argument("--threshold", type=float, default=d.threshold, help="entropy threshold h, bits")
    parser.add_argument(
        "--l-max", type=int, default=d.l_max, help="the streaming decoder's longest lookahead"
    )
    parser.add_argument(
        "--window", type=int, default=shipped.window, help="the streaming window w, in tokens"
    )
    parser.add_argument(
        "--punct-bias",
        type=float,
        nargs=4,
        metavar=("NONE", "COMMA", "PERIOD", "QUESTION"),
        default=(0.0, 0.0, 0.0, 0.0),
        help="added to the punctuation logits (python -m training.evaluate --sweep-bias chooses it)",
    )
    parser.add_argument(
        "--case-bias",
        type=float,
        nargs=3,
        metavar=("LOWER", "CAPITALIZED", "UPPER"),
        default=(0.0, 0.0, 0.0),
        help="added to the case logits (python -m training.evaluate --sweep-bias chooses it)",
    )
    parser.add_argument("--offline-window", type=int, default=d.offline_window)
    parser.add_argument("--offline-stride", type=int, default=d.offline_stride)
    parser.add_argument("--offline-min-left", type=int, default=d.offline_min_left)
    parser.add_argument("--offline-min-right", type=int, default=d.offline_min_right)
    parser.add_argument("--no-edge-weighting", action="store_true", default=not d.offline_edge_weighting)
    parser.add_argument(
        "--keep-fp32",
        nargs="*",
        default=list(KEEP_FP32),
        metavar="NODE",
        help="MatMul nodes left in fp32 (default: %(default)s; none: quantize every one)",
    )
    parser.add_argument(
        "--base",
        type=Path,
        help="folder with the encoder's tokenizer.json (default: fetched as training does)",
    )
    parser.add_argument("--parity-windows", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--dev", type=Path, default=dev_corpus(), help="folder of .txt files for the parity check"
    )
    args = parser.parse_args(argv)
    if not args.checkpoint.exists():
        print(
            f"export: no checkpoint at {args.checkpoint}; run python -m training.train first", file=sys.stderr
        )
        return 2
    model = load_checkpoint(args.checkpoint)
    base = args.base or fetch_base_model()
    corpus = args.corpus or args.checkpoint.parent / "corpus.npz"
    lexicon = build_lexicon(load_corpus(corpus)) if corpus.exists() else {}
    args.out.mkdir(parents=True, exist_ok=True)
    decoder = replace(
        shipped.decoder,
        threshold=args.threshold,
        l_max=args.l_max,
        l_min=min(shipped.decoder.l_min, args.l_max),
        offline_window=args.offline_window,
        offline_stride=args.offline_stride,
        offline_min_left=args.offline_min_left,
        offline_min_right=args.offline_min_right,
        offline_edge_weighting=not args.no_edge_weighting,
    )
    # Parity compares the network's own answers (torch, fp32, int8), so the bias joins the
    # shipped config only after it.
    config = ModelConfig(
        window=args.window,
        decoder=decoder,
        lexicon=lexicon,
        cues=CUE_NAMES if model.config.cues else (),
    )
    if model.config.cues and model.config.cues != len(CUE_NAMES):
        print(
            f"export: the checkpoint reads {model.config.cues} cues, this livecap computes "
            f"{len(CUE_NAMES)}; train it again with this livecap",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fp32_dir = Path(tmp)
        export_onnx(model, fp32_dir / "model.onnx")
        quantize(fp32_dir / "model.onnx", args.out / "model.onnx", args.keep_fp32)
        for folder in (fp32_dir, args.out):
            write_tokenizer(base, folder)
            config.save(folder)
        report = {
            "model_bytes": (args.out / "model.onnx").stat().st_size,
            "kept_fp32": list(args.keep_fp32),
            "lexicon_entries": len(lexicon),
        }
        if args.parity_windows:
            report |= parity(model, fp32_dir, args.out, args.parity_windows, args.threads, args.dev)
    if any(args.punct_bias) or any(args.case_bias):
        config = replace(config, punct_bias=tuple(args.punct_bias), case_bias=tuple(args.case_bias))
        config.save(args.out)
        report["punct_logit_bias"] = config.to_dict()["punct_logit_bias"]
        report["case_logit_bias"] = config.to_dict()["case_logit_bias"]
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
