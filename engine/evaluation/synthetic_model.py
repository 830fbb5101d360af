"""Build a BERT-shaped punctuation model with random weights, as a real ONNX graph.

Why this exists: tests need a *real* ONNX Runtime session that honours the
model contract (see ``engine.punctuation.model``), and the benchmark must run before the
trained model ships. The graph mirrors what ``training/export.py`` produces from
torch: embeddings, post-LayerNorm encoder layers, and two linear heads on every
token (format 2: one row of logits per token).

Needs the ``onnx`` package (a dev dependency), never torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.words import CASE_LABELS, PUNCT_LABELS


@dataclass
class EncoderShape:
    """The shape of a BERT encoder: what the synthetic graph here and the trainable tagger
    (``training.model.EncoderConfig``, which adds its training settings) are built to."""

    vocab_size: int = 30522
    hidden: int = 384
    layers: int = 6
    heads: int = 12
    intermediate: int = 1536
    max_positions: int = 512


MINILM_L6 = EncoderShape()
TINY = EncoderShape(vocab_size=0, hidden=32, layers=2, heads=2, intermediate=64, max_positions=64)


def build_graph(shape: EncoderShape, seed: int = 0, opset: int = 17, cues: int = 0):
    """Return an ``onnx.ModelProto`` for ``shape`` with random float32 weights; ``cues`` > 0 adds
    the ``word_cues`` input [B, T, cues], projected onto the embeddings as the trained model does."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    inits: list = []
    nodes: list = []
    d, h = shape.hidden, shape.heads
    dh = d // h

    def weight(name, *dims, scale=0.05):
        inits.append(numpy_helper.from_array((rng.standard_normal(dims) * scale).astype(np.float32), name))
        return name

    def const(name, value, dtype=np.float32):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def linear(x, name, n_in, n_out):
        y = node("MatMul", [x, weight(f"{name}.W", n_in, n_out)], f"{name}.mm")
        return node("Add", [y, weight(f"{name}.b", n_out, scale=0.01)], f"{name}.out")

    def layer_norm(x, name):
        gamma = const(f"{name}.gamma", np.ones(d))
        beta = const(f"{name}.beta", np.zeros(d))
        return node("LayerNormalization", [x, gamma, beta], f"{name}.out", axis=-1, epsilon=1e-12)

    # Embeddings: word + position (sliced to T) + token type 0.
    words = node("Gather", [weight("emb.word", shape.vocab_size, d), "input_ids"], "emb.words")
    seq_len = node("Shape", ["input_ids"], "emb.shape")
    t = node("Slice", [seq_len, const("c1", [1], np.int64), const("c2", [2], np.int64)], "emb.T")
    positions = node(
        "Slice", [weight("emb.pos", shape.max_positions, d), const("c0", [0], np.int64), t], "emb.positions"
    )
    x = node("Add", [words, positions], "emb.sum")
    x = node("Add", [x, weight("emb.type", d)], "emb.sum_type")
    if cues:
        x = node("Add", [x, linear("word_cues", "emb.cues", cues, d)], "emb.sum_cues")
    x = layer_norm(x, "emb.ln")

    # Additive attention mask [B, 1, 1, T]: 0 where attended, -1e4 on padding.
    mask_f = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    mask_inv = node("Sub", [const("one", 1.0), mask_f], "mask.inv")
    mask_add = node("Mul", [mask_inv, const("neg", -1e4)], "mask.add")
    mask_add = node("Unsqueeze", [mask_add, const("axes12", [1, 2], np.int64)], "mask.bias")

    heads_shape = const("heads_shape", [0, 0, h, dh], np.int64)
    merge_shape = const("merge_shape", [0, 0, d], np.int64)
    for i in range(shape.layers):
        p = f"l{i}"

        def split_heads(y, name):
            y = node("Reshape", [y, heads_shape], f"{name}.split")
            return node("Transpose", [y], f"{name}.heads", perm=[0, 2, 1, 3])

        q = split_heads(linear(x, f"{p}.q", d, d), f"{p}.q")
        k = split_heads(linear(x, f"{p}.k", d, d), f"{p}.k")
        v = split_heads(linear(x, f"{p}.v", d, d), f"{p}.v")
        kt = node("Transpose", [k], f"{p}.kt", perm=[0, 1, 3, 2])
        scores = node("MatMul", [q, kt], f"{p}.scores")
        scores = node("Mul", [scores, const(f"{p}.scale", 1.0 / math.sqrt(dh))], f"{p}.scaled")
        scores = node("Add", [scores, mask_add], f"{p}.masked")
        probs = node("Softmax", [scores], f"{p}.probs", axis=-1)
        ctx = node("MatMul", [probs, v], f"{p}.ctx")
        ctx = node("Transpose", [ctx], f"{p}.ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape], f"{p}.ctx_merged")
        x = layer_norm(node("Add", [x, linear(ctx, f"{p}.o", d, d)], f"{p}.res1"), f"{p}.ln1")
        ff = linear(x, f"{p}.ff1", d, shape.intermediate)
        # GELU, exact (erf) form, as BERT uses.
        erf = node("Erf", [node("Mul", [ff, const(f"{p}.rsqrt2", 1 / math.sqrt(2))], f"{p}.gx")], f"{p}.erf")
        gelu = node(
            "Mul",
            [
                node("Mul", [ff, const(f"{p}.half", 0.5)], f"{p}.hx"),
                node("Add", [erf, const(f"{p}.one", 1.0)], f"{p}.erf1"),
            ],
            f"{p}.gelu",
        )
        x = layer_norm(
            node("Add", [x, linear(gelu, f"{p}.ff2", shape.intermediate, d)], f"{p}.res2"), f"{p}.ln2"
        )

    punct = linear(x, "head.punct", d, len(PUNCT_LABELS))
    case = linear(x, "head.case", d, len(CASE_LABELS))
    nodes.append(helper.make_node("Identity", [punct], ["punct_logits"]))
    nodes.append(helper.make_node("Identity", [case], ["case_logits"]))

    graph = helper.make_graph(
        nodes,
        "livecap_punct",
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
            *(
                [helper.make_tensor_value_info("word_cues", TensorProto.FLOAT, ["batch", "tokens", cues])]
                if cues
                else []
            ),
        ],
        outputs=[
            helper.make_tensor_value_info("punct_logits", TensorProto.FLOAT, ["batch", "tokens", 4]),
            helper.make_tensor_value_info("case_logits", TensorProto.FLOAT, ["batch", "tokens", 3]),
        ],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


_COMMON_WORDS = (
    "the a an and or but so of to in on at for with is are was were be been it this that "
    "i you he she we they "
    "what where when why how who do does did not no yes hello there here my your our their can will would "
    "should could have has had go went come came see saw know think say said today tomorrow time day good "
    "well okay right now then meeting team project plan next week thanks thank please let us start talk"
).split()


def build_vocab(size: int | None = None) -> list[str]:
    """A WordPiece vocabulary whose first slots mirror BERT's: [PAD], then unused slots."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    tokens = ["[PAD]", "[unused0]", "[unused1]", "[unused2]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "'", "-"]
    tokens += letters + [f"##{c}" for c in letters] + ["##'"]
    tokens += [w for w in dict.fromkeys(_COMMON_WORDS) if w not in tokens]
    if size is not None:
        if size < len(tokens):
            raise ValueError(f"vocabulary needs at least {len(tokens)} entries")
        tokens += [f"[unused{i}]" for i in range(3, 3 + size - len(tokens))]
    return tokens


def write_tokenizer(path: Path, vocab: list[str]) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.save(str(path))


def write_model_dir(
    directory: str | Path,
    shape: EncoderShape = TINY,
    seed: int = 0,
    quantize: bool = False,
    decoder: dict | None = None,
    lexicon: dict[str, str] | None = None,
    cues: bool = False,
) -> Path:
    """Write ``model.onnx``, ``tokenizer.json`` and ``config.json`` for a random-weight model;
    ``cues``: one that reads ``word_cues`` too."""
    import onnx

    from engine.punctuation.model_config import ModelConfig
    from engine.punctuation.settings import DecoderSettings

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    vocab = build_vocab(shape.vocab_size or None)
    shape = EncoderShape(
        len(vocab), shape.hidden, shape.layers, shape.heads, shape.intermediate, shape.max_positions
    )
    write_tokenizer(directory / "tokenizer.json", vocab)
    from engine.punctuation.word_cues import CUE_NAMES

    model = build_graph(shape, seed=seed, cues=len(CUE_NAMES) if cues else 0)
    if quantize:
        from engine.onnx_runtime import disable_telemetry

        disable_telemetry()  # before the import below: it would write a device id
        from onnxruntime.quantization import QuantType, quantize_dynamic

        fp32 = directory / "model.fp32.onnx"
        onnx.save(model, fp32)
        quantize_dynamic(
            str(fp32),
            str(directory / "model.onnx"),
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gather"],
        )
        fp32.unlink()
    else:
        onnx.save(model, directory / "model.onnx")
    defaults = DecoderSettings(**(decoder or {}))
    config = ModelConfig(decoder=defaults, lexicon=lexicon or {}, cues=CUE_NAMES if cues else ())
    config.save(directory)
    return directory
