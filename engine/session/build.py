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
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.audio.pausable import SourceChoice, open_source
from engine.files import paths
from engine.punctuation.settings import DecoderSettings
from engine.recognizers.kinds import AUTO
from engine.session.live import LiveSession
from engine.session.marks import decoder_for
from engine.session.meeting import meeting_sides, open_meeting_sources, others_voices
from engine.session.plan import RecognitionChoice
from engine.session.resources import RecognizerInfo, SessionResources
from engine.session.terms import known_forms
from engine.speakers.echo_guard import EchoGuard
from engine.speakers.labels import OTHERS, SpeakerNames
from engine.transcript.journal_folder import DEFAULT_KEEP_DAYS
from engine.transcript.speaker_labels import names_to_dict
from engine.vocabulary import Vocabulary

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
    # The user's terms for this session (``engine.vocabulary``), read by the front end.
    vocabulary: Vocabulary = Vocabulary()

    def __post_init__(self):
        """The recognition choices, checked and put in their normal form once (``plan``)."""
        choice = self.recognition
        for name in ("language", "translate", "accuracy"):
            object.__setattr__(self, name, getattr(choice, name))

    @property
    def recognition(self) -> RecognitionChoice:
        """What this spec asks of recognition, which the plan is resolved from (``plan``)."""
        return RecognitionChoice(
            self.recognizer, self.language, self.translate, self.accuracy, self.marks, self.vocabulary
        )

    def decoder_settings(self, recommended: DecoderSettings) -> DecoderSettings:
        """The streaming decoder's settings: the model's ``recommended`` ones with this spec's choices."""
        return recommended.override(
            threshold=self.threshold,
            l_max=self.l_max,
            pause_threshold=self.pause_threshold,
            casing=self.casing,
        )


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
    settings = spec.decoder_settings(model.config.decoder)
    decoder = decoder_for(plan.marks, model, settings, recognizer, known_forms(plan.vocabulary))
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
        session = LiveSession(
            source, recognizer, decoder, journal, stabiliser=stabiliser, vocabulary=plan.vocabulary
        )
        _report_language(session, journal)
        return session, info
    voices, voices_notice = others_voices()
    guard = EchoGuard() if spec.echo_guard else None
    sides = meeting_sides(source, others, recognizer, voices, guard)
    session = LiveSession(
        None, None, decoder, journal, sides=sides, echo_guard=guard, voices=voices, vocabulary=plan.vocabulary
    )
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
