"""Captions → Share captions…: the running session's captions as a page other screens open.

The engine serves it (``engine.share``: a server on its own thread); the page is fed from the
app's one caption feed (``app.caption_feed``), so it shows the words, marks and unstable words the
window shows, decided once. This dialog only starts and stops it, and shows the link: as text,
with OBS's address beside it, and on the local network as a QR code a phone reads off the screen.
On the local network the link holds a random token; Renew link makes a new one, and every viewer
of the old one is dropped. Sharing stops when the session ends, at Stop sharing, or after the
minutes chosen.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from app.caption_feed import CaptionFeed
from engine import SHARE_DEFAULT_PORT, SHARE_OBS_OPTIONS, CaptionFold, share_captions, share_qr_png

NO_SESSION = "Start the captions first: the page shares the running session."


class CaptionFeedSource:
    """The app's caption feed as ``share_captions`` takes a session: its subscriber (the page's
    ``ShareFeed``) is handed each change of the feed's fold, on the UI thread."""

    def __init__(self, captions: CaptionFeed) -> None:
        self.captions = captions
        self._unsubscribe: Callable[[], None] | None = None

    def subscribe(self, share_feed) -> None:
        fold = self.captions.fold

        def forward(change) -> None:
            whole = change is CaptionFold.EVERYTHING or change.restarted  # subscribed, or started again
            share_feed.caption_change(
                change.events,
                fold.unstable if change.unstable else None,
                restart_from=fold.builder if whole else None,
            )

        self._unsubscribe = self.captions.subscribe(forward)

    def unsubscribe(self, share_feed) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


class ShareDialog(QDialog):
    """``session_of()``: the running session, or None; ``captions``: the app's caption feed."""

    def __init__(self, session_of: Callable[[], object | None], captions: CaptionFeed, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Share captions")
        self.session_of = session_of
        self.captions = captions
        self.server = None
        self.lan = QCheckBox("Share on the local network (a phone or a laptop in the room)")
        self.minutes = QSpinBox(minimum=0, maximum=600, suffix=" min")
        self.minutes.setSpecialValueText("until the session ends")
        self.minutes.setAccessibleName("Stop sharing after")
        self.toggle = QPushButton("Start sharing", clicked=self._toggle)
        self.link = QLineEdit(readOnly=True)
        self.link.setAccessibleName("Link to the caption page")
        self.copy = QPushButton("Copy link", clicked=self._copy)
        self.renew = QPushButton("Renew link", clicked=self.renew_link)
        self.renew.setToolTip("A new link; everyone reading the old one is dropped")
        self.obs = QLabel(wordWrap=True)
        self.obs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.qr = QLabel()
        self.qr.setAccessibleName("QR code of the link")
        self.status = QLabel(wordWrap=True)
        limit = QHBoxLayout()
        limit.addWidget(QLabel("Stop after:"))
        limit.addWidget(self.minutes, 1)
        links = QHBoxLayout()
        links.addWidget(self.link, 1)
        links.addWidget(self.copy)
        links.addWidget(self.renew)
        layout = QVBoxLayout(self)
        for part in (self.lan, limit, self.toggle, links, self.obs, self.qr, self.status):
            (layout.addLayout if isinstance(part, QHBoxLayout) else layout.addWidget)(part)
        self._poll = QTimer(self, interval=1000, timeout=self._refresh)
        self._refresh()

    @property
    def sharing(self) -> bool:
        return self.server is not None and self.server.running

    def start(self) -> bool:
        """Share the running session's captions as chosen; False (and why, in the dialog) if not."""
        if self.session_of() is None:
            self.status.setText(NO_SESSION)
            return False
        minutes = self.minutes.value()
        try:
            self.server = share_captions(
                CaptionFeedSource(self.captions),
                lan=self.lan.isChecked(),
                port=SHARE_DEFAULT_PORT,
                time_limit=minutes * 60 if minutes else None,
            )
        except OSError as exc:
            self.status.setText(f"Could not share the captions: {exc.strerror or exc}")
            return False
        self._poll.start()
        self._refresh()
        return True

    def stop(self) -> None:
        """Stop sharing (the session ended, or the user asked); every viewer is dropped."""
        if self.server is not None:
            self.server.stop()
        self._poll.stop()
        self._refresh()

    def renew_link(self) -> None:
        if self.sharing and self.server.token is not None:
            self.server.renew_token()
            self._refresh()

    def _toggle(self) -> None:
        if self.sharing:
            self.stop()
        else:
            self.start()

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.link.text())

    def _refresh(self) -> None:
        sharing = self.sharing
        lan = sharing and self.server.token is not None
        self.toggle.setText("Stop sharing" if sharing else "Start sharing")
        self.lan.setEnabled(not sharing)
        self.minutes.setEnabled(not sharing)
        self.link.setText(self.server.url if sharing else "")
        self.copy.setEnabled(sharing)
        self.renew.setVisible(lan)
        self.obs.setText(
            f"OBS browser source: {self.server.url}{SHARE_OBS_OPTIONS}" if sharing and not lan else ""
        )
        if lan:
            if self.qr.pixmap().isNull() or self.qr.property("link") != self.server.url:
                pixmap = QPixmap()
                pixmap.loadFromData(share_qr_png(self.server.url))
                self.qr.setPixmap(pixmap)
                self.qr.setProperty("link", self.server.url)
        else:
            self.qr.clear()
        if sharing:
            viewers = self.server.viewers
            where = "anyone on the local network with this link" if lan else "this computer only"
            self.status.setText(f"Shared with {where}; {viewers} viewer{'s' * (viewers != 1)} now.")
        elif self.server is not None:
            self.status.setText("Not shared.")
