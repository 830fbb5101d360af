"""Compute the last encoder layer for the [PUNCT] token only: the same answer, ~12 % fewer MACs.

    python -m training.prune models/punct/model.onnx [--out PATH] [--check-samples 4000]

The classifier reads one row of the last layer's output, the hidden state of
[PUNCT]. Every other row of that layer is computed and thrown away. Attention
needs all rows for its keys and values, but after it the layer works row by
row: the attention output projection, the residual, both LayerNorms and the
feed-forward block. So the one-hot pooling that ``training.model`` applies at
the end can move up to just after attention, and those matmuls then run on one
row instead of up to 32. For the MiniLM-L6 shape that is 9 of the 72 d²-sized
matmuls per token.

This edits the ONNX graph that ``training.export`` wrote (fp32 or int8, the
node names are torch.onnx.export's for ``training.model``), so it applies to a
shipped model whose checkpoint is gone. Quantized, the pooled rows get their
own dynamic-quantization scale instead of one shared with 31 discarded rows,
so the logits move within int8 rounding; the check reports how often the
argmax still matches the unpruned model on dev samples.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

ONEHOT = "/Unsqueeze_3_output_0"  # (batch, 1, tokens): input_ids == [PUNCT], as float
FINAL_POOL = "/MatMul"  # onehot @ last layer's output


class PruneError(RuntimeError):
    pass


def _layer_count(graph) -> int:
    layers = {n.name.split("/")[1] for n in graph.node if n.name.startswith("/layers.")}
    return len(layers)


def prune_last_layer(model: onnx.ModelProto) -> onnx.ModelProto:
    """Return a copy of ``model`` whose last layer works on the [PUNCT] row only after attention."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    last = _layer_count(graph) - 1
    if last < 0:
        raise PruneError("no /layers.N nodes: not a graph exported from training.model")
    prefix = f"/layers.{last}/"
    by_name = {n.name: n for n in graph.node}
    pool = by_name.get(FINAL_POOL)
    if pool is None or pool.input[0] != ONEHOT:
        raise PruneError(
            f"no final pooling {FINAL_POOL} on {ONEHOT}: already pruned, or not a training.model graph"
        )
    # The last layer's two inputs to its row-wise part: the attention context (before attn_out)
    # and the residual stream entering the layer.
    context = f"{prefix}Reshape_3_output_0"
    add_1 = by_name.get(f"{prefix}Add_1")
    if add_1 is None or not any(o == context for n in graph.node for o in n.output):
        raise PruneError(f"cannot find layer {last}'s attention output")
    residual = next(i for i in add_1.input if not i.startswith(f"{prefix}attn_out"))
    layer_out = pool.input[1]

    pooled_context, pooled_residual = f"{prefix}pooled_context", f"{prefix}pooled_residual"
    new_nodes = [
        helper.make_node("MatMul", [ONEHOT, context], [pooled_context], name=f"{prefix}pool_context"),
        helper.make_node("MatMul", [ONEHOT, residual], [pooled_residual], name=f"{prefix}pool_residual"),
    ]
    for node in graph.node:
        if node.name == FINAL_POOL:
            continue
        for k, name in enumerate(node.input):
            if name == context:  # only the attention output projection reads it (int8: via its quantizer)
                node.input[k] = pooled_context
            elif name == residual and node.name == add_1.name:
                node.input[k] = pooled_residual
            elif name == pool.output[0]:
                node.input[k] = layer_out  # the last layer's output is already the pooled row
    kept = [n for n in graph.node if n.name != FINAL_POOL]
    del graph.node[:]
    graph.node.extend(_topological(kept + new_nodes, graph))
    onnx.checker.check_model(model)
    return model


def _topological(nodes, graph) -> list:
    """Order nodes so that each comes after the producers of its inputs (ONNX requires it)."""
    ready = {i.name for i in graph.input} | {t.name for t in graph.initializer} | {""}
    pending, ordered = list(nodes), []
    while pending:
        rest = []
        for node in pending:
            if all(i in ready for i in node.input):
                ordered.append(node)
                ready.update(node.output)
            else:
                rest.append(node)
        if len(rest) == len(pending):
            missing = sorted({i for n in rest for i in n.input if i not in ready})[:5]
            raise PruneError(f"the pruned graph has inputs nothing produces: {missing}")
        pending = rest
    return ordered


def agreement(original: Path, pruned: Path, samples: int, threads: int = 2) -> dict:
    """Argmax agreement and largest logit change, pruned vs original, on dev samples at l = 4."""
    from engine.evaluation.corpus import dev_corpus
    from engine.punctuation.labelled_text import prepare_folder
    from engine.punctuation.model import PunctuationModel
    from training.dataset import SampleMaker, build_stream

    before = PunctuationModel(original.parent, threads=threads)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for item in original.parent.iterdir():
            if item.is_file() and item.name != original.name:
                (folder / item.name).symlink_to(item.resolve())
        (folder / original.name).symlink_to(pruned.resolve())
        after = PunctuationModel(folder, threads=threads)
        stream = build_stream(prepare_folder(dev_corpus()), before.tokenizer)
        positions = np.random.default_rng(0).permutation(len(stream))[:samples]
        maker = SampleMaker(stream, before.special, window=before.config.window)
        batch, _, _ = maker.batch(positions, np.random.default_rng(0), lookahead=4)
        p0, c0 = before.predict(batch)
        p1, c1 = after.predict(batch)
    return {
        "samples": len(batch),
        "punct_argmax_agreement": round(100 * float((p0.argmax(1) == p1.argmax(1)).mean()), 2),
        "case_argmax_agreement": round(100 * float((c0.argmax(1) == c1.argmax(1)).mean()), 2),
        "max_abs_punct_logit_change": round(float(np.abs(p0 - p1).max()), 4),
    }


def main(argv=None) -> int:
    from engine.punctuation.runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime: no device id, no telemetry queue
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("model", type=Path, help="model.onnx written by training.export")
    parser.add_argument(
        "--out", type=Path, default=None, help="where to write the pruned model (default: in place)"
    )
    parser.add_argument(
        "--check-samples", type=int, default=4000, help="dev samples for the agreement check (0: none)"
    )
    args = parser.parse_args(argv)
    try:
        pruned = prune_last_layer(onnx.load(str(args.model)))
    except (PruneError, OSError, onnx.checker.ValidationError) as exc:
        print(f"prune: error: {exc}", file=sys.stderr)
        return 2
    out = args.out or args.model
    with tempfile.NamedTemporaryFile(suffix=".onnx", dir=out.parent, delete=False) as tmp:
        staged = Path(tmp.name)
    try:
        onnx.save(pruned, str(staged))
        report = {"model": str(out), "size_mb": round(staged.stat().st_size / 2**20, 2)}
        if args.check_samples:
            report |= agreement(args.model, staged, args.check_samples)
        staged.replace(out)
    finally:
        staged.unlink(missing_ok=True)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
