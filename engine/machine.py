"""What a measured figure was measured on: the CPU's model name, its cores, and the instruction-set
flags that decide how fast the engine's models run (int8 and bf16 kernels of ONNX Runtime and
CTranslate2). Every benchmark (the engine's, the app's, training's) writes these beside its
figures, so two results can be compared only where the machines match."""

from __future__ import annotations

import os
import platform
from pathlib import Path

__all__ = ["SPEED_FLAGS", "cpu_description"]

# The flags the runtimes' fast paths are chosen by, in the order they are reported.
SPEED_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "avx_vnni",
    "amx_int8",
)


def cpu_description(cpuinfo: str | os.PathLike[str] = "/proc/cpuinfo") -> dict:
    """``{"cpu": model name, "cores": logical cores, "cpu_flags": the SPEED_FLAGS it has}``; where
    ``cpuinfo`` cannot be read (not Linux) the name is the platform's and no flag is listed."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                name = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    return {"cpu": name, "cores": os.cpu_count(), "cpu_flags": [f for f in SPEED_FLAGS if f in flags]}
