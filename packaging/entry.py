"""Entry point of the frozen (PyInstaller) build: the same `livecap` command as `pip install` gives
(no arguments or `app`: the window; anything else: the engine's command line)."""

import multiprocessing
import sys

if __name__ == "__main__":
    # The app runs PocketSphinx in a child process (engine/recognizers/isolated.py). Frozen, that
    # child is this same executable: freeze_support() turns it into the child before anything else runs.
    multiprocessing.freeze_support()
    from app.launcher import main

    sys.exit(main())
