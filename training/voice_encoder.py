"""Resemblyzer's GE2E voice encoder, as a torch module of our own over its published weights.

The PyPI package ``resemblyzer`` 0.1.4 ships ``pretrained.pt`` (Corentin Jemine's GE2E speaker
encoder, Apache-2.0) inside its wheel. Only the wheel is downloaded (``pip download --no-deps``)
and the weights are checked against a known SHA-256: no model hub, no surprise weights. Its
declared dependencies (librosa, webrtcvad, scipy) are not needed to run the network, and
importing ``resemblyzer`` pulls all of them in, so the network is written out here instead,
layer for layer as ``resemblyzer.VoiceEncoder`` defines it: LSTM 40 → 256 (three layers), Linear
256 → 256, ReLU, L2 norm, read from the last layer's final hidden state.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import torch
from torch import nn

from engine.files.digest import sha256_hex
from engine.speakers.embedding import EMBEDDING_SIZE, MEL_CHANNELS

__all__ = [
    "DEFAULT_CACHE",
    "PACKAGE",
    "WEIGHTS_SHA256",
    "WHEEL_NAME",
    "WHEEL_SHA256",
    "VoiceEncoder",
    "fetch_weights",
    "load_voice_encoder",
    "wheel_licence",
]

PACKAGE = "resemblyzer==0.1.4"
WHEEL_NAME = "Resemblyzer-0.1.4-py3-none-any.whl"
WHEEL_SHA256 = "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f"
INNER_WEIGHTS = "resemblyzer/pretrained.pt"
INNER_LICENCE = "Resemblyzer-0.1.4.dist-info/LICENSE"
WEIGHTS_SHA256 = "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e"
DEFAULT_CACHE = Path.home() / ".cache" / "livecap" / "speaker-encoder"
HIDDEN_SIZE = 256
LAYERS = 3


def _wheel(cache: Path) -> Path:
    """The resemblyzer wheel in ``cache``, downloaded once (15 MB) and checked."""
    wheel = cache / WHEEL_NAME
    if not wheel.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        print(f"downloading {PACKAGE} (about 15 MB) ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(cache), PACKAGE],
            check=True,
        )
    digest = sha256_hex(wheel)
    if digest != WHEEL_SHA256:
        raise RuntimeError(f"{wheel}: sha256 {digest}, expected {WHEEL_SHA256}")
    return wheel


def fetch_weights(cache: Path = DEFAULT_CACHE) -> Path:
    """The path of resemblyzer's ``pretrained.pt``, unpacked from its wheel and checked."""
    weights = cache / "pretrained.pt"
    if weights.is_file() and sha256_hex(weights) == WEIGHTS_SHA256:
        return weights
    with zipfile.ZipFile(_wheel(cache)) as wheel:
        weights.write_bytes(wheel.read(INNER_WEIGHTS))
    digest = sha256_hex(weights)
    if digest != WEIGHTS_SHA256:
        weights.unlink()
        raise RuntimeError(f"{PACKAGE}: pretrained.pt has sha256 {digest}, expected {WEIGHTS_SHA256}")
    return weights


def wheel_licence(cache: Path = DEFAULT_CACHE) -> str:
    """The licence text the wheel carries in its metadata (Apache-2.0)."""
    with zipfile.ZipFile(_wheel(cache)) as wheel:
        return wheel.read(INNER_LICENCE).decode("utf-8")


class VoiceEncoder(nn.Module):
    """Mel frames (batch, frames, 40) → L2-normed speaker embeddings (batch, 256).

    The attribute names are resemblyzer's, so its state dict loads as it is."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(MEL_CHANNELS, HIDDEN_SIZE, LAYERS, batch_first=True)
        self.linear = nn.Linear(HIDDEN_SIZE, EMBEDDING_SIZE)
        self.relu = nn.ReLU()

    def forward(self, mels: torch.Tensor) -> torch.Tensor:
        _, (hidden, _) = self.lstm(mels)
        embeddings = self.relu(self.linear(hidden[-1]))
        return embeddings / torch.norm(embeddings, dim=1, keepdim=True)


def load_voice_encoder(weights: Path | None = None) -> VoiceEncoder:
    """The encoder with resemblyzer's weights, in eval mode."""
    checkpoint = torch.load(weights or fetch_weights(), map_location="cpu", weights_only=True)
    # The checkpoint also holds GE2E's similarity scale and bias (training only): strict=False
    # is how resemblyzer itself loads it.
    state = {k: v for k, v in checkpoint["model_state"].items() if not k.startswith("similarity_")}
    model = VoiceEncoder()
    model.load_state_dict(state)
    return model.eval()
