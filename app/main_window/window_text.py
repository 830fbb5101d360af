"""The dictation window's text after a session: re-punctuation, editing, copy and export.

After a session stops, the transcript is re-punctuated by the offline decoder (it sees the
whole recording) and shown as editable text; edits are carried into exports (``app.main_window.edits``).
Both the re-punctuation and an export of live text can take minutes on a long session, so
they run as ``Job``s with a progress bar and a button that skips or cancels them.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QApplication, QFileDialog

from app import settings as keys
from app.main_window.edits import apply_edits
from app.main_window.exporting import FILTERS, refine, resolve_format, snapshot, write
from app.main_window.job_progress import JobCancelled, cancellable
from app.profanity import mask
from app.workers.jobs import Job
from app.workers.session_bridge import IDLE
from engine.transcript.builder import TranscriptBuilder
from engine.transcript.transcript import Transcript


class WindowText:
    """Mixed into ``DictationWindow``; uses its view, bridge, settings, banners and job list."""

    _refining = None  # the re-punctuation job while it runs

    def show_final(self, transcript: Transcript, note: str = "") -> Job:
        """Re-punctuate ``transcript`` with the offline decoder, then show it as editable text.
        Meanwhile the live captions stay on screen; skipping keeps them as the final text."""
        s = self.settings
        casing, pauses = s.get(keys.CASING), s.get(keys.PAUSE_THRESHOLD) > 0
        words = snapshot(transcript)
        # The live engine is idle now: every core may help (ONNX Runtime runs without the GIL).
        workers = max(1, min(4, os.cpu_count() or 1))

        def work(report, cancelled):
            try:
                return refine(
                    words,
                    self.bridge.punctuation_model(self.model_dir),
                    casing,
                    pauses,
                    progress=cancellable(report, cancelled),
                    workers=workers,
                )
            except JobCancelled:
                return None

        def done(refined):
            if refined is None:
                self._load_final(
                    words,
                    "Kept the live punctuation (improving it was skipped). "
                    "The text is yours to edit now; Export keeps your edits.",
                )
                return
            self._load_final(refined, note or "Done. The text is yours to edit now; Export keeps your edits.")

        def failed(message):
            self.banners.show_banner(
                "error",
                "warning",
                f"Could not improve the punctuation ({message}); showing the live captions instead.",
            )
            self._load_final(words, note)

        job = self.run_job(work, done, failed)
        self._refining = job
        self.job_progress.follow(job, "Improving punctuation with the whole transcript", "Skip")
        return job

    def _load_final(self, transcript: Transcript, note: str) -> None:
        self._refining = None
        if self.bridge.state != IDLE:
            return  # a new session started meanwhile; it owns the view now
        self.final_transcript = transcript
        self._saved_text = None
        self.view.load_transcript(transcript, editable=True)
        self._update_text_actions()
        if note:
            self.statusBar().showMessage(note)
        self.session_done.emit()

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

    # -- the text --------------------------------------------------------------------------------------
    def current_transcript(self) -> Transcript:
        """What copy and export take: the edited final text, or the live transcript so far."""
        if self.final_transcript is not None and not self.view.live:
            if self.view.edited:
                display = mask if self.view.mask_profanity else None
                return apply_edits(self.final_transcript, self.view.toPlainText(), display)
            return self.final_transcript
        return snapshot(self.bridge.transcript)

    def copy_all(self) -> None:
        text = self.current_transcript().text()
        QApplication.clipboard().setText(text)
        if not self.view.live:
            self._saved_text = self.view.toPlainText()
        self.statusBar().showMessage(f"Copied {len(text.split())} words to the clipboard", 5000)

    def clear(self) -> None:
        if self.bridge.state != IDLE or (self.unsaved and not self.confirm_discard()):
            return
        self.bridge.builder = TranscriptBuilder()
        self.view.set_builder(self.bridge.builder)
        self.final_transcript = None
        self.feed_overlay()
        self._update_text_actions()

    def export_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export the transcript", str(Path.home() / "captions.txt"), ";;".join(FILTERS.values())
        )
        if path:
            self.export_to(path, chosen)

    def export_to(self, path, chosen_filter: str = "") -> Job | None:
        """Write the transcript: TXT, SRT, WebVTT or JSON by extension (or the dialog's filter)."""
        path, fmt = resolve_format(path, chosen_filter)
        final = self.final_transcript is not None and not self.view.live
        transcript = self.current_transcript()
        if not transcript.words:
            self.statusBar().showMessage("Nothing to export yet.", 5000)
            return None
        s = self.settings
        casing, pauses = s.get(keys.CASING), s.get(keys.PAUSE_THRESHOLD) > 0

        def work(report, cancelled):
            # Still live: the words so far go through the offline decoder first (a final text already has).
            try:
                text = (
                    transcript
                    if final
                    else refine(
                        transcript,
                        self.bridge.punctuation_model(self.model_dir),
                        casing,
                        pauses,
                        progress=cancellable(report, cancelled),
                    )
                )
            except JobCancelled:
                return None
            return write(text, fmt, path)

        shown = self.view.toPlainText()

        def done(written):
            if written is None:
                self.statusBar().showMessage("Export cancelled; nothing was written.", 8000)
                return
            self._saved_text = shown
            self.statusBar().showMessage(f"Exported to {written}", 8000)

        def failed(message):
            self.banners.show_banner("error", "error", f"Export failed: {message}")

        job = self.run_job(work, done, failed)
        if not final:
            self.job_progress.follow(job, f"Exporting {Path(path).name}")
        return job
