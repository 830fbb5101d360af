"""Entry point of the frozen (PyInstaller) build: the same `livecap` command as `pip install` gives
(no arguments or `app`: the window; anything else: the engine's command line)."""
import sys

from app.launcher import main

if __name__ == "__main__":
    sys.exit(main())
