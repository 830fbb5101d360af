"""Building a live session: one factory for every front end.

``build_live_session`` turns a ``SessionSpec`` into a ready (not yet started) ``LiveSession``:
the audio source, the recognizer, the punctuation model, a streaming decoder on the spec's
decoder settings, and the session journal. ``livecap listen`` and the app both call it, so a
session behaves the same whichever front end started it.

Loading models is slow (a large Vosk model takes seconds, PocketSphinx in its own process
needs a moment to start), so the loaded ones live in ``SessionResources``, which a front end
keeps across sessions: the app keeps one for its lifetime, the CLI makes one per command.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.audio.pausable import SourceChoice, open_source
from engine.files import paths
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.kinds import AUTO, RecognizerKind, recognizer_kind
from engine.session.live import LiveSession
from engine.session.marks import decoder_for
from engine.session.meeting import meeting_sides, open_meeting_sources, others_voices
from engine.session.plan import RecognitionChoice, RecognitionPlan, resolve_plan
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.labels import OTHERS, SpeakerNames
from engine.transcript.journal_folder import DEFAULT_KEEP_DAYS
from engine.transcript.speaker_labels import names_to_dict
from engine.words import is_english

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionSpec:
    """Everything a session is built from; the window fills it from the settings, the CLI from
    its flags. ``threshold``, ``l_max``, ``casing`` and ``pause_threshold`` change the model's
    recommended decoder settings (see ``DecoderSettings.override``)."""

    source: SourceChoice = field(default_factory=lambda: SourceChoice("mic"))
    realtime: bool = True  # pace a file like live audio (False: as fast as it decodes, for tests)
    recognizer: str = AUTO  # one of ``kinds.CHOICES``
    recognizer_model: str = ""  # a Vosk or Whisper model's name or folder; "" = the default choice
    # Whose marks and capitals: "engine" (livecap's punctuation model), "recognizer" (the ones
    # Whisper writes), "auto" (the better of the two for the recognizer, ``marks_by_default``).
    marks: str = "auto"
    model_dir: Path | None = None  # punctuation model; None = the shipped one
    journal: bool = True
    journal_dir: Path | None = None  # None = the per-user folder (or its fallback, see journal_folder)
    journal_keep_days: float | None = DEFAULT_KEEP_DAYS  # retention of closed sessions; None = forever
    # Make the session searchable in History as its words settle (``engine.history.LiveIndexer``);
    # only for the per-user journal folder, the one the history index covers.
    history_index: bool = True
    threshold: float | None = None  # None = the model's recommendation
    l_max: int | None = None  # None = the model's recommendation
    casing: bool = True
    pause_threshold: float | None = None  # seconds; None = the model's; 0 = no [PAUSE] tokens
    # A meeting: the others' side (the system audio or one application's), captioned beside
    # ``source`` (the microphone); words are labelled Me and Others. None: one source.
    others: SourceChoice | None = None
    # A meeting without a headset: record the microphone through the sound server's echo
    # canceller where it can (``engine.session.meeting``); the echo guard runs either way.
    echo_cancel: bool = True
    # A meeting's echo guard (``engine.speakers.echo_guard``): hide the Me words that may be the
    # others heard again through the speakers. Off (a headset): every word the microphone hears
    # is shown. The words it hides are said (``WordsHidden``) and kept in the journal.
    echo_guard: bool = True
    # The names a meeting shows its speakers by (None: the defaults), journaled for recovery.
    speaker_names: SpeakerNames | None = None
    # What is spoken: "en" (the recognizer chosen as above, tiny.en by default), a code of
    # ``language_pack.LANGUAGES`` ("de": Whisper base, from the language pack, hearing German), or
    # "auto" (Whisper base tells the language from the first speech, ``LanguageDetected``).
    language: str = "en"
    # English captions of speech in ``language``: Whisper base translates as it recognizes
    # (English speech has nothing to translate: False with "en").
    translate: bool = False
    # Speed or accuracy (``accuracy.Accuracy``): where English runs the built-in Whisper, tiny.en
    # or Whisper base (the language pack), as ``accuracy.wants_base`` says.
    accuracy: str = "auto"

    def __post_init__(self):
        """The recognition choices, checked and put in their normal form once (``plan``)."""
        choice = self.recognition
        for name in ("language", "translate", "accuracy"):
            object.__setattr__(self, name, getattr(choice, name))

    @property
    def recognition(self) -> RecognitionChoice:
        """What this spec asks of recognition, which the plan is resolved from (``plan``)."""
        return RecognitionChoice(self.recognizer, self.language, self.translate, self.accuracy, self.marks)

    def decoder_settings(self, recommended: DecoderSettings) -> DecoderSettings:
        """The streaming decoder's settings: the model's ``recommended`` ones with this spec's choices."""
        return recommended.override(
            threshold=self.threshold,
            l_max=self.l_max,
            pause_threshold=self.pause_threshold,
            casing=self.casing,
        )


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


def build_live_session(
    spec: SessionSpec, resources: SessionResources, source=None, stabiliser=None
) -> tuple[LiveSession, RecognizerInfo]:
    """A ``LiveSession`` for ``spec``, not started, and what recognizer it runs.

    The source is opened first, so a mistyped file fails before any model loads. Raises
    ``AudioError`` (or ``OSError`` without PortAudio) for a source, ``RecognizerError`` or
    ``ModelError`` for a model, ``OSError`` when the journal cannot be created.

    ``source`` and ``stabiliser`` are for the measurement tools (``engine.evaluation``): audio made
    on the fly, a file read in lock-step with the engine, a stabiliser with other settings, used
    instead of ``spec.source`` and the default stabiliser; the rest is what users run.
    """
    meeting = None
    if spec.others is not None and source is None:
        meeting = open_meeting_sources(
            spec.source, spec.others, spec.realtime, spec.echo_cancel, spec.echo_guard
        )
        source, others = meeting.me, meeting.others
    else:
        source = source if source is not None else open_source(spec.source, spec.realtime)
        others = open_source(spec.others, spec.realtime) if spec.others is not None else None
    try:
        return _build(spec, resources, source, others, stabiliser, meeting)
    except BaseException:
        for close in meeting.closers if meeting is not None else ():
            close()
        raise


def _build(spec, resources, source, others, stabiliser, meeting) -> tuple[LiveSession, RecognizerInfo]:
    recognizer, plan, info = resources.plan(spec)
    model = resources.punctuation_model(spec.model_dir)
    decoder = decoder_for(plan.marks, model, spec.decoder_settings(model.config.decoder), recognizer)
    journal, journal_notice = None, ""
    if spec.journal:
        header = {
            "recognizer": info.name,
            "model": info.journal_model,
            "language": plan.language,  # what ``livecap recover`` and Restore export by
            **({"translated": True} if plan.translating else {}),  # English captions of ``language``
            "punctuation_model": str(model.model_dir),
            "source": source.name,
            **({"others_source": others.name} if others is not None else {}),
            **({"speaker_names": names_to_dict(spec.speaker_names)} if spec.speaker_names else {}),
        }
        journal, journal_notice = _open_journal(spec, header)
    info = replace(
        info,
        punctuation_notice=" ".join(
            filter(None, (resources.punctuation_problem(spec.model_dir), *plan.notices))
        ),
        journal_notice=journal_notice,
    )
    if others is None:
        session = LiveSession(source, recognizer, decoder, journal, stabiliser=stabiliser)
        _report_language(session, journal)
        return session, info
    voices, voices_notice = others_voices()
    guard = EchoGuard() if spec.echo_guard else None
    sides = meeting_sides(source, others, recognizer, voices, guard)
    session = LiveSession(None, None, decoder, journal, sides=sides, echo_guard=guard, voices=voices)
    _report_language(session, journal)  # each side's: the others' stream tells its own
    if meeting is not None:
        session.closers += meeting.closers
        info = replace(info, echo=meeting.echo)
    if voices_notice:
        notices = (info.punctuation_notice, voices_notice)
        info = replace(info, punctuation_notice=" ".join(filter(None, notices)))
    return session, info


def _report_language(session: LiveSession, journal) -> None:
    """Where a side's recognizer tells the language from the speech, publish it once to the
    session's subscribers (``LanguageDetected``, with the side in a meeting) and record it in the
    journal.

    In a meeting each side's stream tells its own. The meeting's language, the one its journal
    names for recovery and exports (a reader takes the last language line), is the others' side's:
    it is what the user captions a meeting in another language for. So a Me line that comes after
    the others' one is followed by the others' line again."""
    from engine.events import LanguageDetected

    lock = threading.Lock()  # the sides' threads may tell their languages at once
    others_told: list[tuple[str, float]] = []

    def reporter(speaker: str | None):
        def detected(language: str, probability: float) -> None:
            if journal is not None:
                with lock:
                    journal.record_language(language, probability, speaker)
                    if speaker == OTHERS:
                        others_told.append((language, probability))
                    elif others_told:
                        journal.record_language(*others_told[-1], OTHERS)
            # The session's own events go out on the recognizer's thread, as this one does.
            session._emit([LanguageDetected(language, probability, speaker)])

        return detected

    for side in session.sides:
        if side.recognizer.detects_language:
            side.recognizer.on_language_detected = reporter(side.speaker or None)


def _open_journal(spec: SessionSpec, header: dict):
    """(journal, notice): the session's journal, in the folder ``choose_journal_folder`` picks,
    after pruning that folder; None when no folder can be written (captions run anyway). The
    notice ("" when the preferred folder works) is logged and returned for the front end to show."""
    from engine.history.retention import apply_retention
    from engine.transcript.journal import JournalWriter
    from engine.transcript.journal_folder import choose_journal_folder

    folder = choose_journal_folder(spec.journal_dir)
    if folder.notice:
        log.info("%s", folder.notice)  # the front end shows it (RecognizerInfo.journal_notice)
    if folder.path is None:
        return None, folder.notice
    apply_retention(folder.path, spec.journal_keep_days)
    observer = _live_indexer() if spec.history_index and folder.path == paths.journal_dir() else None
    return JournalWriter.create(folder.path, header=header, observer=observer), folder.notice or ""


def _live_indexer():
    """The history index's follower of the new journal; None when it cannot even start (the
    session journals and captions all the same, and History catches up from the journal)."""
    from engine.history.live import LiveIndexer

    try:
        return LiveIndexer()
    except Exception:
        log.exception("the history index will not follow this session")
        return None
