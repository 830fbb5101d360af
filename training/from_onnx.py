"""Rebuild a training checkpoint from an exported model, to fine-tune from.

    python -m training.from_onnx models/punct --out runs/from_shipped.pt [--cues]

Only the int8 ONNX export of a release is kept (no checkpoints are committed), so a release is
fine-tuned from its export: the int8 weights dequantized (per output channel, as
``training.export`` quantized them) and the fp32 ones copied, back into ``training.model``'s
names. The dequantized network answers as the int8 one does (the argmax agreement is printed).
``--cues`` adds the word-cue projection, at zero, so the rebuilt model still answers as before
and a fine-tune (``training.train --init-from ... --pause-phase 1.0``) teaches it the cues.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from engine.punctuation.word_cues import CUE_COUNT
from training.model import EncoderConfig, PunctuationTagger


def _weights(model_file: Path) -> dict[str, np.ndarray]:
    """``training.model`` parameter name -> array, read from an export's graph."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model_file)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def dequantized(base: str, axis: int) -> np.ndarray:
        q = init[base + "_quantized"].astype(np.float32)
        scale, zero = init[base + "_scale"], init[base + "_zero_point"].astype(np.float32)
        shape = [1] * q.ndim
        if scale.size > 1:  # per channel
            shape[axis] = -1
        return (q - zero.reshape(shape)) * scale.reshape(shape)

    def parameter(node_name: str) -> str:
        # "/layers.0/qkv/MatMul_quant" -> "layers.0.qkv.weight" (names as torch.onnx.export writes them)
        return node_name.strip("/").rsplit("/", 1)[0].replace("/", ".") + ".weight"

    out: dict[str, np.ndarray] = {}
    for node in graph.node:
        if node.op_type == "MatMulInteger":  # B is the weight transposed, [in, out]
            out[parameter(node.name)] = dequantized(node.input[1].removesuffix("_quantized"), 1).T
        elif node.op_type == "MatMul" and node.input[1] in init:  # a MatMul kept in fp32
            out[parameter(node.name)] = init[node.input[1]].T
    out["word_emb.weight"] = (
        dequantized("word_emb.weight", 0) if "word_emb.weight_quantized" in init else init["word_emb.weight"]
    )
    for name, value in init.items():
        if name.endswith((".bias", "norm.weight")) or name == "pos_emb.weight":
            out[name] = value
    # Token type 0's embedding is folded into a constant added to the word and position sum.
    hidden = out["word_emb.weight"].shape[1]
    constants = {
        n.output[0]: numpy_helper.to_array(a.t)
        for n in graph.node
        if n.op_type == "Constant"
        for a in n.attribute
        if a.name == "value"
    }
    for node in graph.node:
        if node.op_type == "Add" and node.name.startswith("/Add_1"):
            for name in node.input:
                value = init.get(name, constants.get(name))
                if value is not None and value.shape == (hidden,):
                    type_emb = np.zeros((2, hidden), dtype=np.float32)
                    type_emb[0] = value
                    out["type_emb.weight"] = type_emb
    return out


def rebuild(model_dir: Path, cues: bool) -> PunctuationTagger:
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    weights = _weights(model_dir / config.get("files", {}).get("model", "model.onnx"))
    emb = weights["word_emb.weight"]
    layers = len({k.split(".")[1] for k in weights if k.startswith("layers.")})
    c = EncoderConfig(
        vocab_size=emb.shape[0],
        hidden=emb.shape[1],
        layers=layers,
        heads=emb.shape[1] // 32,  # MiniLM's heads of 32, as training.model.load_pretrained
        intermediate=weights["layers.0.ff_in.weight"].shape[0],
        max_positions=weights["pos_emb.weight"].shape[0],
        cues=CUE_COUNT if (cues or config.get("cues")) else 0,
    )
    model = PunctuationTagger(c)
    state = {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [m for m in missing if not m.startswith("cue_proj")]:
        raise ValueError(
            f"{model_dir}: not a training.export graph (missing {missing}, unexpected {unexpected})"
        )
    return model.eval()


def agreement(model: PunctuationTagger, model_dir: Path, text: str) -> float:
    """Share of words whose mark (bias included) the rebuilt model and the export agree on."""
    from engine.punctuation.model import PunctuationModel
    from engine.punctuation.model_inputs import build_window, pad_batch

    export = PunctuationModel(model_dir)
    ids = export.tokenizer.encode_words(text.lower().split())
    windows = [build_window(ids, end, export.special) for end in range(len(ids))]
    bias = np.asarray(export.config.punct_bias)
    same = []
    for w, (probs, _) in zip(windows, export.tag(windows)):
        x, mask = pad_batch([w.ids], export.special.pad)
        with torch.no_grad():
            logits = model(torch.from_numpy(x), torch.from_numpy(mask))[0][0, w.carriers].numpy()
        same.append((logits + bias).argmax(1) == probs.argmax(1))
    return float(np.concatenate(same).mean())


def main(argv=None) -> int:
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()
    parser = argparse.ArgumentParser(
        prog="python -m training.from_onnx",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model_dir", type=Path, help="an exported model folder (model.onnx, config.json)")
    parser.add_argument("--out", type=Path, required=True, help="the checkpoint to write (for --init-from)")
    parser.add_argument("--cues", action="store_true", help="add the word-cue projection (at zero)")
    parser.add_argument("--check-text", type=Path, help="a text file to measure the agreement on")
    args = parser.parse_args(argv)
    if not (args.model_dir / "config.json").is_file():
        print(
            f"from_onnx: {args.model_dir} has no config.json; give an exported model folder", file=sys.stderr
        )
        return 2
    try:
        model = rebuild(args.model_dir, args.cues)
    except (ValueError, KeyError, OSError) as exc:
        print(f"from_onnx: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "encoder": asdict(model.config)}, args.out)
    report = {"out": str(args.out), "cues": model.config.cues}
    if args.check_text:
        words = args.check_text.read_text(encoding="utf-8").split()[:600]
        report["argmax_agreement_with_export"] = round(agreement(model, args.model_dir, " ".join(words)), 4)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
