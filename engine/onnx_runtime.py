"""ONNX Runtime, with its telemetry switched off before it can start.

Since 1.29 the official ONNX Runtime wheels for Linux and macOS carry Microsoft's 1DS
telemetry: merely *importing* ``onnxruntime`` writes a persistent device identifier to
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid`` and an ``onnxruntime.db`` queue
holding a "process info" event to upload. livecap promises that nothing leaves the computer,
so that must never happen.

``onnxruntime.disable_telemetry_events()`` is too late for this: it needs the module, and the
module initialises telemetry when it is imported. The opt-out that works is the environment
variable ``ORT_DISABLE_TELEMETRY=1``, read once, when the runtime initialises (latched for the
process: microsoft/onnxruntime#27379, #29843). Hence ``disable_telemetry()`` is the first thing
every entry point does (the CLI, the app, the frozen build's runtime hook, the training
scripts), and ``import_onnxruntime()`` is the one way the engine imports the runtime, so a new
entry point that forgets the first call is still covered. On Windows the runtime's ETW events
follow the API switch instead, so ``import_onnxruntime`` calls that as well.
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger(__name__)

TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"


def disable_telemetry() -> None:
    """Switch ONNX Runtime's telemetry off for this process and the processes it starts.

    Must run before ``onnxruntime`` is first imported; cheap and idempotent (it imports nothing).
    A user's own ``ORT_DISABLE_TELEMETRY=0`` is overridden on purpose: livecap's promise holds
    whatever the environment says.
    """
    if os.environ.get(TELEMETRY_ENV) == "1":
        return
    os.environ[TELEMETRY_ENV] = "1"
    if "onnxruntime" in sys.modules:  # imported first: its device id may be on disk already
        log.warning("onnxruntime was imported before its telemetry was switched off")


def import_onnxruntime():
    """The ``onnxruntime`` module, imported with its telemetry off."""
    disable_telemetry()
    import onnxruntime

    try:
        onnxruntime.disable_telemetry_events()  # the Windows (ETW) provider's switch
    except AttributeError:  # builds without telemetry do not have it
        pass
    return onnxruntime
