"""Runtime hook: a stand-in for PyAV, which the frozen build leaves out.

faster-whisper imports ``av`` at the top of its audio module, but only calls it to decode audio
files; livecap always hands Whisper samples it decoded itself (soundfile, soxr). Bundling PyAV
would add about 100 MB of FFmpeg for nothing, so the bundle has this empty module instead: any
use of it fails loudly with the reason, never silently.
"""
import sys
import types


class _NotBundled(types.ModuleType):
    def __getattr__(self, name):
        # AttributeError, as for any missing attribute: introspection (hasattr, inspect) asks too.
        raise AttributeError(f"PyAV (av.{name}) is not in livecap's frozen build: livecap decodes audio itself")


sys.modules.setdefault("av", _NotBundled("av"))
