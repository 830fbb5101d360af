"""A status-bar progress bar, with a button that cancels, for one background ``Job`` at a time.

Re-punctuating a long session with the offline decoder takes minutes on a laptop's CPU (speed:
docs/PERFORMANCE.md), so the user sees how far it is and
can skip it: the live captions stay on screen meanwhile, and skipping keeps them.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)


class JobProgress(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel("")
        self.bar = QProgressBar(maximumWidth=160, textVisible=True)
        self.bar.setAccessibleName("Progress")
        self.button = QToolButton()
        self.button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.button):
            layout.addWidget(widget)
        self.job = None
        self.hide()

    def follow(self, job, what: str, cancel_text: str = "Cancel") -> None:
        """Show ``job``'s progress as "``what``…", until it finishes."""
        self.job = job
        self.label.setText(f"{what}…")
        self.bar.setRange(0, 0)  # busy until the first report says how much there is
        self.button.setText(cancel_text)
        self.button.setAccessibleName(f"{cancel_text}: {what.lower()}")
        self.button.setEnabled(True)
        job.progress.connect(lambda done, total, job=job: self._on_progress(job, done, total))
        # Gone as soon as the outcome is known, before its slots show the result.
        for outcome in (job.done, job.failed, job.cancelled):
            outcome.connect(lambda *_, job=job: self._on_finished(job))
        self.show()

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.button.setEnabled(False)
            self.label.setText("Stopping…")

    def _on_progress(self, job, done, total) -> None:
        if job is not self.job or not total:
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * min(done, total) / total))
        self.bar.setFormat(f"{100 * done / total:.0f} %")

    def _on_finished(self, job) -> None:
        if job is self.job:
            self.job = None
            self.hide()
