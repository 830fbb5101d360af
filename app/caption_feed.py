"""The app's one caption feed: the session's captions on the UI thread, for every view that shows them.

The session bridge hands over each frame's events once (``SessionBridge.captions_changed``,
already applied to its ``TranscriptBuilder``, the transcript the window copies and exports); the
feed folds them with the engine's ``CaptionFold`` and tells each subscriber what changed (a
``CaptionChange``). The window's caption view and the caption overlay subscribe; each reads the
words, their settled and provisional marks, their speakers and the unstable words from
``feed.fold`` and draws them its own way. Nothing here draws.

A subscriber is a callable taking a ``CaptionChange``, called on the UI thread, in the order they
subscribed. One that subscribes late is called at once with a change that redraws everything, so
it starts from the current captions. A bound method is held weakly: the feed keeps no widget
alive, and no reference cycle runs through one (``app.garbage_collection`` says why that
matters). A subscriber on another thread (a caption page's server) copies what it needs here,
``fold.lines()`` or the change's events, into its own bounded queue: the feed never waits for it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from inspect import ismethod

from PySide6.QtCore import QObject

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from engine import CaptionChange, CaptionFold, TranscriptBuilder

Subscriber = Callable[[CaptionChange], None]


class CaptionFeed(QObject):
    def __init__(self, builder: TranscriptBuilder | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.fold = CaptionFold(builder)
        self._subscribers: list[Callable[[], Subscriber | None]] = []  # each a (weak) reference

    @property
    def builder(self) -> TranscriptBuilder:
        return self.fold.builder

    def listen_to(self, bridge) -> None:
        """Take the captions of ``bridge``'s sessions (a ``SessionBridge``) from now on."""
        self.restart(bridge.builder)
        bridge.captions_changed.connect(self.receive)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` with each change, and now with everything; returns how to stop."""
        held = weakref.WeakMethod(subscriber) if ismethod(subscriber) else (lambda: subscriber)
        self._subscribers.append(held)
        subscriber(CaptionFold.EVERYTHING)
        return lambda: self._subscribers.remove(held) if held in self._subscribers else None

    def restart(self, builder: TranscriptBuilder) -> None:
        """Captions from ``builder`` on (a session started, the text was cleared): all redrawn."""
        self._tell(self.fold.restart(builder))

    def receive(self, events: list, partial=None) -> None:
        """One frame of the session: ``events`` (already in the builder) and, unless None, every
        side's latest unstable words."""
        self._tell(self.fold.caught_up(events, partial))

    def redraw(self) -> None:
        """Every subscriber draws everything again (the names of the speakers changed)."""
        self._tell(CaptionFold.EVERYTHING)

    def _tell(self, change: CaptionChange) -> None:
        if not change.changed:
            return
        for held in list(self._subscribers):
            subscriber = held()
            if subscriber is None:  # its object is gone
                self._subscribers.remove(held)
            else:
                subscriber(change)
