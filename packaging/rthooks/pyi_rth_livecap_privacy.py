"""Runtime hook: ONNX Runtime's telemetry off before any of the frozen program's code runs.

The official onnxruntime wheels write a device id and a telemetry queue under ~/.cache when the
module is imported (engine/onnx_runtime.py explains). A runtime hook runs before the entry
script, so even code that imports onnxruntime before app.launcher.main is covered.
"""
from engine.onnx_runtime import disable_telemetry

disable_telemetry()
