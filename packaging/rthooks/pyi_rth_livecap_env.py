"""Runtime hook: give programs livecap starts the user's library path, not the bundle's.

PyInstaller's bootloader prepends the bundle's folder to LD_LIBRARY_PATH so the
frozen Python finds its libraries, and every child process inherits it. livecap
starts system programs (pactl and parec for system audio; xdg-open when Qt opens
a file or folder), and those would then load the bundle's copies of libreadline,
libglib, libssl and so on instead of their own: symbol lookup errors on a distro
newer than the build machine. The dynamic loader read LD_LIBRARY_PATH when this
process started, so restoring the original value here changes nothing for livecap
itself, only for its children.
"""
import os
import sys

if sys.platform.startswith("linux") and getattr(sys, "frozen", False):
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)
