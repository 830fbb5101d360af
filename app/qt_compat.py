"""Work around PySide6 6.12.0 dropping references to None, True and False on Python < 3.12.

In 6.12.0 every binding that returns ``None`` (any void method: ``setText``,
``QTextCursor.insertText``...) and ``SignalInstance.emit`` (which returns a bool) hands
back the singleton without taking a reference for the caller. Each call therefore steals
one reference. On Python 3.12+ these singletons are immortal and nothing happens; on 3.11
a caption session makes tens of thousands of such calls within minutes, the count reaches
zero and the interpreter aborts ("Fatal Python error: none_dealloc"). PySide6 6.11.x is not
affected (checked: 3000 ``emit``/``insertText`` calls leave the counts unchanged).

The remedy here does what Python 3.12 does: it makes the three singletons effectively
immortal by adding 2**40 to their reference counts (they are never freed anyway; freeing
one *is* the fatal error). It only runs for the affected version on an affected Python,
so it becomes a no-op as soon as the dependency is pinned away from 6.12.0 (the real fix).

Imported for its side effect by ``app.settings``, which every window module imports, so it
runs before the GUI makes any call.
"""

from __future__ import annotations

import ctypes
import sys

import PySide6

AFFECTED = {(6, 12, 0)}
_HEADROOM = 1 << 40


def needs_fix() -> bool:
    return tuple(PySide6.__version_info__[:3]) in AFFECTED and sys.version_info < (3, 12)


def apply() -> bool:
    """Apply once; returns whether the fix is in place (False where it is not needed)."""
    if not needs_fix():
        return False
    if getattr(sys, "_livecap_singletons_pinned", False):
        return True
    for obj in (None, True, False):
        # CPython's object header starts with ob_refcnt (a Py_ssize_t). We hold the GIL.
        ctypes.c_ssize_t.from_address(id(obj)).value += _HEADROOM
    sys._livecap_singletons_pinned = True
    return True


apply()
