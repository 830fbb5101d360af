"""Convert resemblyzer's voice encoder to the ONNX model livecap ships, and check it still agrees.

    python -m training.export_speaker_encoder [--out models/speaker] [--cache DIR]

1. fetch ``pretrained.pt`` from the resemblyzer 0.1.4 wheel, checked by SHA-256
   (``training/voice_encoder.py``), and load it into our copy of the network;
2. torch → ONNX, fp32: mel frames (batch, frames, 40) in, L2-normed embeddings (batch, 256) out;
3. the same, dynamically quantized to int8, measured beside it (and not shipped: see ``SHIPPED``);
4. parity on project-made speech (espeak-ng, festival and flite voices): the runtime's numpy front
   end makes each utterance's partial mel frames, and torch, fp32 and int8 embed the same frames;
5. the fp32 model, resemblyzer's licence and ``PROVENANCE.md`` (hashes, command, figures) in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch

from engine.files.digest import sha256_hex
from engine.speakers.embedding import MEL_CHANNELS, PARTIAL_FRAMES, SpeakerEncoder
from training.voice_encoder import (
    DEFAULT_CACHE,
    PACKAGE,
    WEIGHTS_SHA256,
    WHEEL_NAME,
    WHEEL_SHA256,
    VoiceEncoder,
    fetch_weights,
    load_voice_encoder,
    wheel_licence,
)

__all__ = ["PARITY_VOICES", "SHIPPED", "export_onnx", "main", "parity", "parity_speech", "quantize_int8"]

OUT = Path(__file__).resolve().parents[1] / "models" / "speaker"
MODEL_FILE = "voice_encoder.onnx"
# fp32, not int8: dynamic int8 quantization of the LSTMs (ONNX Runtime's DynamicQuantizeLSTM)
# turns the embeddings into other embeddings (utterance cosine to torch 0.55–0.85 on the parity
# speech, fp32: 1.000000), and fp32 is only 5.7 MB.
SHIPPED = "fp32"
PARITY_VOICES = (  # (engine, voice): male, female and robotic, three synthesizers
    ("espeak-ng", "en-us+m3"),
    ("espeak-ng", "en-us+f2"),
    ("festival", None),
    ("flite", "slt"),
    ("flite", "rms"),
    ("flite", "awb"),
)
PARITY_SENTENCES = (
    "the weather is nice today and we are going to the park with the children",
    "please send me the report before the meeting on thursday afternoon",
)


def export_onnx(model: VoiceEncoder, path: Path) -> None:
    """The network as ONNX, batch and frame axes dynamic (a span gives one row per partial)."""
    example = torch.zeros(2, PARTIAL_FRAMES, MEL_CHANNELS)
    warnings.filterwarnings("ignore", category=UserWarning)  # the LSTM's batch_first note
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # the legacy exporter is the one that fits
    torch.onnx.export(
        model,
        (example,),
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=["mels"],
        output_names=["embeddings"],
        dynamic_axes={"mels": {0: "batch", 1: "frames"}, "embeddings": {0: "batch"}},
    )


def quantize_int8(fp32: Path, int8: Path) -> None:
    """Dynamic int8 quantization, per output channel: LSTM and Linear weights."""
    from engine.onnx_runtime import disable_telemetry

    disable_telemetry()  # before the import below: it would write a device id
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)


def parity_speech() -> dict[str, np.ndarray]:
    """Each of ``PARITY_VOICES`` reading each of ``PARITY_SENTENCES``: name → 16 kHz int16."""
    from engine.evaluation.e2e_speech import speak_with

    return {
        f"{tts}:{voice or 'default'}:{i}": speak_with(tts, text, voice)
        for tts, voice in PARITY_VOICES
        for i, text in enumerate(PARITY_SENTENCES)
    }


def _unit(rows: np.ndarray) -> np.ndarray:
    mean = rows.mean(axis=0)
    return mean / np.linalg.norm(mean)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def parity(model: VoiceEncoder, onnx_paths: dict[str, Path], speech: dict[str, np.ndarray]) -> dict:
    """Cosine between torch's embeddings and each ONNX model's, of the same partial mel frames:
    the worst partial and the worst utterance (the partials' normed mean, as the runtime embeds)."""
    encoders = {name: SpeakerEncoder(path) for name, path in onnx_paths.items()}
    worst = {name: {"partial": 1.0, "utterance": 1.0} for name in encoders}
    partials = 0
    for audio in speech.values():
        mels = next(iter(encoders.values())).partial_mels(audio)
        partials += len(mels)
        with torch.no_grad():
            reference = model(torch.from_numpy(mels)).numpy()
        for name, encoder in encoders.items():
            embeddings = encoder.embed_frames(mels)
            scores = worst[name]
            scores["partial"] = min(scores["partial"], float(_cosines(reference, embeddings).min()))
            utterance = float(np.dot(_unit(reference), _unit(embeddings)))
            scores["utterance"] = min(scores["utterance"], utterance)
    return {"utterances": len(speech), "partials": partials, "min_cosine_to_torch": worst}


PROVENANCE = """# Speaker encoder (`models/speaker`): provenance

`{model}` turns 1.6 s of 40-band power mel frames into a 256-number speaker embedding: the GE2E
voice encoder of **Resemblyzer** (Corentin Jemine, Resemble AI; Wan et al., *Generalized End-to-End
Loss for Speaker Verification*, 2018), converted to ONNX unchanged. livecap tells the voices among
the others apart with it (`engine/speakers/embedding.py`, `engine/speakers/clustering.py`).

| file | what |
|---|---|
| `{model}` | fp32 ONNX, opset 17: `mels` (batch, frames, 40) → `embeddings` (batch, 256), L2-normed |
| `LICENSE` | Resemblyzer's licence (Apache-2.0), as its wheel carries it |
| `PROVENANCE.md` | this file, written by the export |
| `threshold_curve.json` | similarity, clustering error and cost (`python -m training.speaker_measure`) |

## Source
- PyPI package `{package}`, wheel `{wheel}`,
  sha256 `{wheel_sha}`.
- Weights: `resemblyzer/pretrained.pt` inside it ({weights_size:,} bytes),
  sha256 `{weights_sha}`; its GE2E similarity scale and bias (training only) are left out, as
  Resemblyzer itself does.
- `{model}` sha256 `{model_sha}`.
- Licence: Apache-2.0, "Copyright 2019 Resemble.AI"; author Corentin Jemine (the wheel's
  metadata). `LICENSE` is the wheel's `Resemblyzer-0.1.4.dist-info/LICENSE`, unchanged.
  livecap's change (Apache-2.0 §4b): the network is re-expressed in ONNX; the weights are not
  modified.

## Command

```sh
pip install torch==2.13.0 && pip install -e '.[dev,train]'
python -m training.export_speaker_encoder
```

(`training/export_speaker_encoder.py`; the network is `training/voice_encoder.py`.)

## Parity
The runtime's numpy front end (`engine/speakers/embedding.py`, matching librosa's mel spectrogram
to 1e-7 of its peak) made the partial mel frames of {utterances} utterances ({partials} partials):
{voices}, each reading {sentences} sentences. Torch and ONNX embedded the same
frames; the worst cosine to torch:

| model | worst partial | worst utterance | size |
|---|---|---|---|
| fp32 (shipped) | {fp32_partial:.6f} | {fp32_utterance:.6f} | {size:,} bytes |
| int8 (dynamic, per channel) | {int8_partial:.4f} | {int8_utterance:.4f} | {int8_size:,} bytes |

int8 is not shipped: ONNX Runtime's dynamically quantized LSTMs give other embeddings, and fp32
is small enough.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the model and its papers go")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the wheel is kept")
    args = parser.parse_args(argv)

    weights = fetch_weights(args.cache)
    model = load_voice_encoder(weights)
    with tempfile.TemporaryDirectory(prefix="livecap-speaker-") as folder:
        paths = {"fp32": Path(folder) / "fp32.onnx", "int8": Path(folder) / "int8.onnx"}
        export_onnx(model, paths["fp32"])
        quantize_int8(paths["fp32"], paths["int8"])
        report = parity(model, paths, parity_speech())
        sizes = {name: path.stat().st_size for name, path in paths.items()}
        args.out.mkdir(parents=True, exist_ok=True)
        shipped = args.out / MODEL_FILE
        shipped.write_bytes(paths[SHIPPED].read_bytes())

    worst = report["min_cosine_to_torch"]
    if worst[SHIPPED]["utterance"] < 0.99:
        print(f"the {SHIPPED} model disagrees with torch: {json.dumps(worst)}", file=sys.stderr)
        return 1
    (args.out / "LICENSE").write_text(wheel_licence(args.cache), encoding="utf-8")
    text = PROVENANCE.format(
        model=MODEL_FILE,
        size=sizes[SHIPPED],
        int8_size=sizes["int8"],
        package=PACKAGE,
        wheel=WHEEL_NAME,
        wheel_sha=WHEEL_SHA256,
        weights_size=weights.stat().st_size,
        weights_sha=WEIGHTS_SHA256,
        model_sha=sha256_hex(shipped),
        utterances=report["utterances"],
        partials=report["partials"],
        voices=", ".join(f"{tts} {voice or '(default voice)'}" for tts, voice in PARITY_VOICES),
        sentences=len(PARITY_SENTENCES),
        fp32_partial=worst["fp32"]["partial"],
        fp32_utterance=worst["fp32"]["utterance"],
        int8_partial=worst["int8"]["partial"],
        int8_utterance=worst["int8"]["utterance"],
    )
    (args.out / "PROVENANCE.md").write_text(text, encoding="utf-8")
    print(
        json.dumps({"model": str(shipped), "sha256": sha256_hex(shipped), "sizes": sizes, **report}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
