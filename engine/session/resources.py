"""The loaded models a front end keeps across sessions, and what a session reports of its recognizer.

``SessionResources`` holds the punctuation models (by folder) and the recognizers (by kind, model and
options) loaded so far: loading is slow (a large Vosk model takes seconds, PocketSphinx in its own
process needs a moment to start), so the app keeps one for its lifetime and the CLI one per
command. ``RecognizerInfo`` is what a session says of the recognizer it runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine.recognizers.kinds import RecognizerKind, recognizer_kind
from engine.session.plan import RecognitionPlan, resolve_plan
from engine.words import is_english

if TYPE_CHECKING:
    from engine.session.build import SessionSpec

__all__ = [
    "RecognizerFactory",
    "RecognizerInfo",
    "SessionResources",
    "isolated_recognizer",
    "opened_recognizers",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecognizerInfo:
    name: str
    notice: str  # e.g. the PocketSphinx fallback; "" when there is nothing to say
    model: str | None
    # One line each for the front end to show, "" when all is well: the requested punctuation model
    # was bad and the shipped one runs; the journal went to a fallback folder, or crash recovery is off.
    punctuation_notice: str = ""
    journal_notice: str = ""
    # What the user can do about a Vosk model that would not load (the built-in recognizer
    # captions meanwhile): ``WayOut``s a front end turns into buttons; () when all is well.
    ways_out: tuple = ()
    # Whose marks the session shows: "engine" (the punctuation model's) or "recognizer" (Whisper's
    # own, or none for a language the model does not know).
    marks: str = "engine"
    # Whose marks the text after Stop and an export take: "engine" (the offline decoder, which
    # folds Whisper's marks in where the model can) or "recognizer" (kept as shown).
    final_marks: str = "engine"
    # The spoken language the recognizer declares ("ko", "en-us", "de"; None: unknown, taken for
    # English, or, from Whisper base told "auto", not told yet: ``LanguageDetected`` says it).
    language: str | None = None
    # The captions are an English translation of ``language`` (Whisper base's translate task).
    translating: bool = False
    # A meeting's echo handling, one line for Settings and the status bar ("" for one source):
    # the sound server's echo canceller and the echo guard, or the guard alone and why.
    echo: str = ""

    @property
    def english(self) -> bool:
        """Whether the words are English: words of another language pass through unmarked, so an
        export must not end them with an English period (``render``'s ``end_sentence``). A
        translation's words are English whatever was spoken."""
        return self.translating or is_english(self.language)

    @property
    def kind(self) -> RecognizerKind:
        """What the recognizer's kind declares (``kinds``): its title, whether it writes marks..."""
        return recognizer_kind(self.name)

    @property
    def journal_model(self) -> str:
        """What model the recognizer runs, as the journal header names it."""
        return self.model if self.model is not None else "built-in"


# (kind, model) -> (recognizer, notice) or (recognizer, notice, ways out), the recognizer ready
# for use: ``open_recognizer`` (``opened_recognizers``; a measuring tool's or a test's own serves
# recognizers it has loaded already). A session in another language or translating also passes
# ``options=`` (the kind's own: language, task).
RecognizerFactory = Callable[[str, str], tuple]


def opened_recognizers(isolated: bool = True, verbose: bool = False) -> RecognizerFactory:
    """A session's recognizers, from ``open_recognizer``. ``isolated`` (the window): one whose
    library holds the GIL runs in its own process, and a Vosk model that will not load is replaced
    by the built-in recognizer while the window offers the ways out; otherwise (the command line)
    in this process, and such a model is a ``RecognizerError``. ``verbose``: Kaldi's log too."""
    from engine.recognizers.select import open_recognizer

    def opened(kind: str, model: str, options: dict | None = None):
        return open_recognizer(
            kind, model, isolated=isolated, fall_back=isolated, verbose=verbose, options=options
        )

    return opened


isolated_recognizer = opened_recognizers()  # the window's


class SessionResources:
    """The punctuation models (by folder) and recognizers (by kind and model) loaded so far.

    ``recognizer_factory`` and ``model_loader`` make what is not loaded yet; a front end passes
    its own to choose threads, process isolation, or how an error reads.
    """

    def __init__(
        self,
        recognizer_factory: RecognizerFactory = isolated_recognizer,
        model_loader: Callable[[Path], object] | None = None,
    ):
        """``model_loader``: default ``load_model_or_shipped`` (a bad model file costs a banner,
        with the shipped model running, rather than the captions)."""
        from engine.punctuation.model import load_model_or_shipped

        self.recognizer_factory = recognizer_factory
        self.model_loader = model_loader or load_model_or_shipped
        self._models: dict = {}  # folder -> PunctuationModel
        self._model_problems: dict = {}  # folder -> one line when the shipped model runs instead
        self._recognizers: dict = {}  # (kind, model) -> (recognizer, notice, ways out)
        self._model_lock = threading.Lock()

    def punctuation_model(self, model_dir: Path | None = None):
        """The loaded punctuation model in ``model_dir`` (None: the default one), loading it on first use."""
        from engine.punctuation.model import model_folder

        folder = model_folder(model_dir)
        with self._model_lock:
            if folder not in self._models:
                loaded = self.model_loader(folder)
                # The default loader gives a LoadedModel; a front end's own may give the model itself.
                self._models[folder] = getattr(loaded, "model", loaded)
                self._model_problems[folder] = getattr(loaded, "problem", None) or ""
            return self._models[folder]

    def punctuation_problem(self, model_dir: Path | None = None) -> str:
        """One line when the model for ``model_dir`` was bad and the shipped one runs; "" otherwise."""
        from engine.punctuation.model import model_folder

        folder = model_folder(model_dir)
        self.punctuation_model(folder)
        return self._model_problems.get(folder, "")

    def recognizer(self, kind: str, model: str, options: dict | None = None):
        """(recognizer, RecognizerInfo) for ``kind`` and its ``model`` (and the kind's own
        ``options``), made on first use (or after the cached one's process died)."""
        key = (kind, model, tuple(sorted((options or {}).items())))
        cached = self._recognizers.get(key)
        if cached is not None and cached[0].closed:
            del self._recognizers[key]  # its process died: the next session gets a new one
        if key not in self._recognizers:
            # Options only where there are some: a front end's factory for English sessions
            # takes (kind, model) alone.
            made = (
                self.recognizer_factory(kind, model, options=dict(options))
                if options
                else self.recognizer_factory(kind, model)
            )
            recognizer, notice, *ways = made
            self._recognizers[key] = (recognizer, notice, tuple(ways[0]) if ways else ())
        recognizer, notice, ways_out = self._recognizers[key]
        model = recognizer.model_path
        info = RecognizerInfo(
            recognizer.name,
            notice,
            None if model is None else str(model),
            ways_out=ways_out,
        )
        return recognizer, info

    def plan(self, spec: SessionSpec) -> tuple[object, RecognitionPlan, RecognizerInfo]:
        """(recognizer, plan, info) for a live session of ``spec``: the punctuation model and the
        recognizer the plan asks for, loaded (or cached), the plan resolved on them once, and the
        ``RecognizerInfo`` saying the plan's language and whose marks it shows (the app's
        preload says it before Start)."""
        model = self.punctuation_model(spec.model_dir)
        choice = spec.recognition
        kind, options = choice.request(live=True)
        recognizer, info = self.recognizer(kind, spec.recognizer_model, options)
        plan = resolve_plan(choice, recognizer, model, live=True)
        told = {"language": plan.language, "translating": plan.translating}
        return recognizer, plan, replace(info, marks=plan.marks, final_marks=plan.final_marks, **told)

    def close_recognizers(self) -> None:
        """Close the cached recognizers (a PocketSphinx child process each); the next session makes
        new ones."""
        cached, self._recognizers = list(self._recognizers.values()), {}
        for recognizer, *_ in cached:
            try:
                recognizer.close()
            except Exception:  # a dead child process: the others must still close
                log.exception("closing a recognizer failed")
