"""The captions window's text after a session: re-punctuation, editing, copy and export.

After a session stops, the transcript goes through the offline decoder (it sees the whole
recording), which fills only the marks that never settled: a settled mark and its capital stay
exactly as the live captions showed them. It is then shown as editable text; edits are carried
into exports (``app.main_window.edits``). Both the re-punctuation and an export of live text can
take minutes on a long session, so they run as ``Job``s with a progress bar and a button that
skips or cancels them.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from app import settings as keys
from app.captions.speaker_labels import label_speakers
from app.exporting import FILTERS, refine, resolve_format, write
from app.main_window.caption_view import CaptionView
from app.main_window.controls import BannerArea
from app.main_window.edits import apply_edits
from app.main_window.job_progress import JobProgress
from app.profanity import mask
from app.settings import AppSettings
from app.workers.jobs import Job, JobRunner, cancellable
from app.workers.session_bridge import IDLE, SessionBridge
from engine import Transcript, TranscriptBuilder


class TranscriptController(QObject):
    status = Signal(str, int)  # a message for the status bar, and for how many ms (0: until replaced)
    final_shown = Signal()  # a finished session's transcript is shown (re-punctuated, editable)
    cleared = Signal()  # the text was cleared: nothing to copy or export

    def __init__(
        self,
        settings: AppSettings,
        bridge: SessionBridge,
        view: CaptionView,
        banners: BannerArea,
        progress: JobProgress,
        jobs: JobRunner,
        model_dir: Path | None,
        window: QWidget,
    ):
        """``window`` parents the file and question dialogs; ``model_dir`` is the punctuation
        model's (None: the shipped one)."""
        super().__init__(window)
        self.settings, self.bridge, self.view = settings, bridge, view
        self.banners, self.progress, self.jobs = banners, progress, jobs
        self.model_dir, self.window = model_dir, window
        self.final_transcript: Transcript | None = None  # the finished text edits are made against
        self._saved_text: str | None = None  # the finished text as last exported or copied
        self._refining: Job | None = None  # the re-punctuation job while it runs
        # Whether the finished text's words are English (else they passed through unmarked, and an
        # export must not end them with an English period).
        self._final_english = True
        # The language the running (or last) session's recognizer detected ("auto": it names none
        # before ``LanguageDetected``); a new session's ``ready`` forgets it.
        self._detected: str | None = None
        bridge.language_detected.connect(self._language_detected)
        bridge.ready.connect(self._session_ready)
        # (language spoken, whether the words are an English translation of it) of the finished
        # text, for the exports' JSON and WebVTT: its session's, taken when it was shown.
        self._final_about: tuple[str | None, bool] = (None, False)

    # -- after a session ----------------------------------------------------------------------------
    def show_final(
        self,
        transcript: Transcript,
        note: str = "",
        english: bool | None = None,
        *,
        language: str | None = None,
        translated: bool = False,
    ) -> Job:
        """Re-punctuate ``transcript`` with the offline decoder, then show it as editable text.
        Meanwhile the live captions stay on screen; skipping keeps them as the final text.
        ``english``: whether its words are English (None: as the session's recognizer says; a
        restored journal says its own, and then ``language`` and ``translated`` too: the language
        spoken, None where unknown, and whether the words are an English translation of it)."""
        self._final_english = self._english() if english is None else english
        self._final_about = self._about() if english is None else (language, translated)
        casing, pauses = self._decoding()
        # A copy that keeps which marks settled: the offline decoder fills only the others.
        words = transcript.copy()
        # The live engine is idle now: every core may help (ONNX Runtime runs without the GIL).
        workers = max(1, min(4, os.cpu_count() or 1))
        keep = self._recognizer_marks()
        recognizer = self._recognizer_name()
        if keep and not note:
            note = "Done. The recognizer's own punctuation is kept; the text is yours to edit now."

        def work(report, cancelled):
            if keep:  # the marks Whisper wrote, as chosen: the offline decoder would replace them
                return words
            model = self.bridge.punctuation_model(self.model_dir)
            progress = cancellable(report, cancelled)
            return refine(words, model, casing, pauses, progress, workers, recognizer)

        def done(refined):
            self._load_final(refined, note or "Done. The text is yours to edit now; Export keeps your edits.")

        def skipped():
            self._load_final(
                words,
                "Kept the live punctuation (improving it was skipped). "
                "The text is yours to edit now; Export keeps your edits.",
            )

        def failed(message):
            self.banners.show_banner(
                "error",
                "warning",
                f"Could not improve the punctuation ({message}); showing the live captions instead.",
            )
            self._load_final(words, note)

        self._refining = self._run(
            work, done, failed, skipped, ("Improving punctuation with the whole transcript", "Skip")
        )
        return self._refining

    def _recognizer_marks(self) -> bool:
        """The recognizer's own marks (Whisper's) stay in the text after Stop and in exports; else
        the offline decoder marks it (folding Whisper's in, where the model does)."""
        info = self.bridge.recognizer_info
        return info is not None and info.final_marks == "recognizer"

    def _recognizer_name(self) -> str | None:
        """The session's recognizer kind, whose cue fusion the offline decoder uses (None: none ran)."""
        info = self.bridge.recognizer_info
        return None if info is None else info.name

    def _english(self) -> bool:
        """Whether the session's words are English (its recognizer's language)."""
        info = self.bridge.recognizer_info
        return info is None or info.english

    def _about(self) -> tuple[str | None, bool]:
        """(the language the session's recognizer hears, or detected where it was told "auto";
        whether its captions are an English translation of it) for the exports."""
        info = self.bridge.recognizer_info
        if info is None:
            return None, False
        return info.language or self._detected, info.translating

    def _language_detected(self, language: str, probability: float = 1.0, speaker: str | None = None) -> None:
        # A meeting's language is the others' (what an export names); Me's counts only until theirs comes.
        if speaker != "me" or self._detected is None:
            self._detected = language

    def _session_ready(self, info) -> None:
        self._detected = None  # a new session (or recognizer): it detects anew

    def _load_final(self, transcript: Transcript, note: str) -> None:
        self._refining = None
        if self.bridge.state != IDLE:
            return  # a new session started meanwhile; it owns the view now
        self.final_transcript = transcript
        self._saved_text = None
        self.view.load_transcript(transcript, editable=True)
        if note:
            self.status.emit(note, 0)
        self.final_shown.emit()

    def forget_final(self) -> None:
        """A new session starts: the view shows its live captions from now on."""
        self.final_transcript = None

    @property
    def unsaved(self) -> bool:
        """A finished transcript whose current text was neither exported nor copied (or one still
        being re-punctuated: closing then would drop it unasked)."""
        if self._refining is not None and self.bridge.state == IDLE:
            return bool(self.bridge.transcript.words)
        if self.final_transcript is None or self.view.live:
            return False
        text = self.view.toPlainText()
        return bool(text.strip()) and text != self._saved_text

    def mark_saved(self) -> None:
        self._refining = None
        self._saved_text = self.view.toPlainText()

    def confirm_discard(self) -> bool:
        answer = QMessageBox.question(
            self.window,
            "Discard the transcript?",
            "The current transcript has not been exported or copied. Discard it? "
            "(It stays in the session journal on disk.)",
        )
        return answer == QMessageBox.Yes

    # -- the text --------------------------------------------------------------------------------------
    def current_transcript(self) -> Transcript:
        """What copy and export take: the edited final text, or the live transcript so far."""
        if self._showing_final():
            if self.view.edited:
                display = mask if self.view.mask_profanity else None
                labels = label_speakers(
                    self.view.speaker_names, {w.heard.speaker for w in self.final_transcript.words}
                )
                return apply_edits(self.final_transcript, self.view.toPlainText(), display, labels)
            return self.final_transcript
        return self.bridge.transcript.copy()  # the settled marks stay as they are in the export

    def word_count(self) -> int:
        """Words there are to copy or export (before any edits)."""
        if self._showing_final():
            return len(self.final_transcript.words)
        return len(self.bridge.transcript.words)

    def copy_all(self) -> None:
        transcript = self.current_transcript()
        text = transcript.text(names=self.view.speaker_names)
        QApplication.clipboard().setText(text)
        if not self.view.live:
            self._saved_text = self.view.toPlainText()
        self.status.emit(f"Copied {len(transcript.words)} words to the clipboard", 5000)

    def clear(self) -> None:
        if self.bridge.state != IDLE or (self.unsaved and not self.confirm_discard()):
            return
        self.bridge.builder = TranscriptBuilder()
        self.view.feed.restart(self.bridge.builder)
        self.final_transcript = None
        self.cleared.emit()

    def export_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self.window,
            "Export the transcript",
            str(Path.home() / "captions.txt"),
            ";;".join(FILTERS.values()),
        )
        if path:
            self.export_to(path, chosen)

    def export_to(self, path, chosen_filter: str = "") -> Job | None:
        """Write the transcript in the format its extension names (or the dialog's filter's)."""
        path, fmt = resolve_format(path, chosen_filter)
        final = self._showing_final()
        transcript = self.current_transcript()
        if not transcript.words:
            self.status.emit("Nothing to export yet.", 5000)
            return None
        casing, pauses = self._decoding()

        keep = self._recognizer_marks()
        recognizer = self._recognizer_name()
        english = self._final_english if final else self._english()
        # The JSON keeps the language spoken and whether the text is a translation of it.
        language, translated = self._final_about if final else self._about()
        names = self.view.speaker_names

        def work(report, cancelled):
            if not final and not keep:  # still live: the words so far go through the offline decoder first
                model = self.bridge.punctuation_model(self.model_dir)
                progress = cancellable(report, cancelled)
                transcript_out = refine(transcript, model, casing, pauses, progress, recognizer=recognizer)
            else:
                transcript_out = transcript
            return write(transcript_out, fmt, path, english, names, language=language, translated=translated)

        shown = self.view.toPlainText()

        def done(written):
            self._saved_text = shown
            self.status.emit(f"Exported to {written}", 8000)

        def failed(message):
            self.banners.show_banner("error", "error", f"Export failed: {message}")

        def cancelled():
            self.status.emit("Export cancelled; nothing was written.", 8000)

        return self._run(work, done, failed, cancelled, None if final else (f"Exporting {Path(path).name}",))

    def _run(self, work, done, failed, cancelled, progress: tuple | None) -> Job:
        """Start ``work`` as a Job; ``progress``: (what, cancel text) for the status-bar progress bar,
        which follows the job from before its outcome's slots run (they show the result)."""
        job = Job(work)
        if progress is not None:
            self.progress.follow(job, *progress)
        for signal, slot in ((job.done, done), (job.failed, failed), (job.cancelled, cancelled)):
            signal.connect(slot)
        return self.jobs.start(job)

    def _showing_final(self) -> bool:
        return self.final_transcript is not None and not self.view.live

    def _decoding(self) -> tuple[bool, bool]:
        """(casing, pauses) for the offline decoder, from the settings."""
        s = self.settings
        return s.get(keys.CASING), s.get(keys.PAUSE_THRESHOLD) > 0
