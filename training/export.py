"""Export a training checkpoint as the model livecap ships, and check it still agrees.

    python -m training.export [--checkpoint runs/punct/last.pt] [--out models/punct]

1. torch → ONNX (fp32) with the engine's contract (``engine/punctuation/model.py``);
2. dynamic int8 quantization with onnxruntime (weights of every MatMul and the
   embedding table: that is what brings the file under 25 MB), then the last
   layer pruned to the [PUNCT] row (``training.prune``);
3. ``tokenizer.json`` (padding and truncation off) and ``config.json`` beside it;
4. parity on dev samples: int8 vs fp32 F1, and ONNX vs torch argmax agreement.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
import torch

from engine.evaluation.corpus import dev_corpus
from engine.punctuation.labelled_text import prepare_folder
from engine.punctuation.model import ModelConfig, PunctuationModel
from engine.punctuation.settings import DecoderSettings
from training.base_model import fetch_base_model
from training.dataset import SampleMaker, build_stream
from training.metrics import punctuation_scores
from training.model import EncoderConfig, PunctuationClassifier
from training.prepare import build_lexicon, load_corpus
from training.prune import prune_last_layer


def load_checkpoint(path: Path) -> PunctuationClassifier:
    state = torch.load(path, weights_only=False, map_location="cpu")
    model = PunctuationClassifier(EncoderConfig(**state["encoder"]), state["punct_id"])
    model.load_state_dict(state["model"])
    return model.eval()


def export_onnx(model: PunctuationClassifier, path: Path) -> None:
    ids = torch.tensor([[5, 6, model.punct_id, 7]])  # any in-vocabulary ids: the axes are dynamic
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # the legacy exporter is the one that fits
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    torch.onnx.export(
        model,
        (ids, torch.ones_like(ids)),
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=["input_ids", "attention_mask"],
        output_names=["punct_logits", "case_logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "tokens"},
            "attention_mask": {0: "batch", 1: "tokens"},
            "punct_logits": {0: "batch"},
            "case_logits": {0: "batch"},
        },
    )


KEEP_FP32 = ["/layers.0/ff_out/MatMul"]  # node names as torch.onnx.export writes them for training.model


def quantize(fp32: Path, int8: Path) -> None:
    from engine.punctuation.runtime import disable_telemetry

    disable_telemetry()  # before the import below: it would write a device id
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per output channel: closer to fp32 at no size cost. The first layer's feed-forward output
    # stays fp32: it is the one matrix whose int8 error flips argmaxes (dev samples at l = 4 agreeing
    # with torch: 98.95 % -> 99.2 %), for +1.7 MB; all of layer 0 would reach 99.35 % but 27 MB.
    quantize_dynamic(
        str(fp32),
        str(int8),
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Gather"],
        per_channel=True,
        nodes_to_exclude=KEEP_FP32,
    )


def write_tokenizer(base: Path, out: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    tokenizer.no_padding()  # the shipped file pads and truncates to 128; samples are built by hand
    tokenizer.no_truncation()
    tokenizer.save(str(out / "tokenizer.json"))


def parity(torch_model, fp32_dir: Path, int8_dir: Path, dev_words: int, threads: int, dev: Path) -> dict:
    int8 = PunctuationModel(int8_dir, threads=threads)
    fp32 = PunctuationModel(fp32_dir, threads=threads)
    docs = prepare_folder(dev)
    stream = build_stream(docs, int8.tokenizer)
    positions = np.random.default_rng(0).permutation(len(stream))[:dev_words]
    maker = SampleMaker(stream, int8.special, window=int8.config.window)
    samples, marks, _ = maker.batch(positions, np.random.default_rng(0), lookahead=4)
    p8 = int8.predict(samples)[0].argmax(1)
    p32 = fp32.predict(samples)[0].argmax(1)
    with torch.no_grad():
        pt = []
        for k in range(0, len(samples), 256):
            from engine.punctuation.model_inputs import pad_batch

            ids, mask = pad_batch(samples[k : k + 256], int8.special.pad)
            pt.append(torch_model(torch.from_numpy(ids), torch.from_numpy(mask))[0].argmax(-1).numpy())
        pt = np.concatenate(pt)
    f8 = punctuation_scores(marks, p8)["overall"]["f1"]
    f32 = punctuation_scores(marks, p32)["overall"]["f1"]
    return {
        "dev_samples": len(samples),
        "lookahead": 4,
        "f1_fp32": f32,
        "f1_int8": f8,
        "f1_drop_int8": round(f32 - f8, 2),
        "argmax_agreement_int8_vs_torch": round(100 * float((p8 == pt).mean()), 2),
        "argmax_agreement_fp32_onnx_vs_torch": round(100 * float((p32 == pt).mean()), 2),
    }


def main(argv=None) -> int:
    from engine.punctuation.runtime import disable_telemetry

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
    parser.add_argument("--threshold", type=float, default=DecoderSettings.threshold)
    # 3, not 4: with PocketSphinx each word of lookahead is ~0.45 s before a mark settles, and
    # l_max 4 put live captions' settled-mark p90 over its 2 s target (engine.evaluation.e2e).
    parser.add_argument("--l-max", type=int, default=3, help="the streaming decoder's longest lookahead")
    parser.add_argument("--parity-samples", type=int, default=4000)
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
    base = fetch_base_model()
    corpus = args.corpus or args.checkpoint.parent / "corpus.npz"
    lexicon = build_lexicon(load_corpus(corpus)) if corpus.exists() else {}
    args.out.mkdir(parents=True, exist_ok=True)
    config = ModelConfig(decoder=DecoderSettings(threshold=args.threshold, l_max=args.l_max), lexicon=lexicon)
    with tempfile.TemporaryDirectory() as tmp:
        fp32_dir = Path(tmp)
        export_onnx(model, fp32_dir / "model.onnx")
        quantize(fp32_dir / "model.onnx", args.out / "model.onnx")
        # The last layer on the [PUNCT] row only (training/prune.py): ~10 % faster, same answers.
        onnx.save(prune_last_layer(onnx.load(str(args.out / "model.onnx"))), str(args.out / "model.onnx"))
        for folder in (fp32_dir, args.out):
            write_tokenizer(base, folder)
            (folder / "config.json").write_text(
                json.dumps(config.to_dict(), indent=2) + "\n", encoding="utf-8"
            )
        report = {
            "model_mb": round((args.out / "model.onnx").stat().st_size / 2**20, 2),
            "lexicon_entries": len(lexicon),
        }
        if args.parity_samples:
            report |= parity(model, fp32_dir, args.out, args.parity_samples, args.threads, args.dev)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
